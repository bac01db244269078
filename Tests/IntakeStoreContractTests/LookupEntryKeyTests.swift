import Foundation
import GRDB
import IntakeCore
import IntakeStoreTesting
import Testing

@testable import IntakeSQLite
@testable import IntakeService

/// SQLite's lookup entries are keyed by their record's rowid (v34), so a new record's entry is
/// written at the end of its table rather than on a page at random. An entry that no longer sits
/// on its record's rowid (a VACUUM may renumber them) is never taken for another record's, and
/// the entries are made again when the server opens the database.
struct LookupEntryKeyTests {
    static let names = [("Amina", "Haddad"), ("فاطمة", "الأحمد"), ("Omar", "Haddad")]

    static func records() -> [PatientResponse] {
        names.enumerated().map { index, name in
            RecordStoreContract.record(UInt64(900 + index)).with {
                $0.patient.givenName = name.0
                $0.patient.familyName = name.1
            }
        }
    }

    /// Each live record's entry, keyed by its rowid; nil where an entry is missing or misplaced.
    static func misplacedEntries(_ store: SQLiteRecordStore) async throws -> Int {
        try await store.database.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM record r LEFT JOIN lookupEntry e ON e.entry = r.rowid
                    WHERE r.deletedAt IS NULL AND e.recordId IS NOT r.id
                    """)!
        }
    }

    static func family(_ store: SQLiteRecordStore, _ name: String, team: Int64) async throws -> [String] {
        try await store.lookup(LookupQuery(teamId: team, familyName: name)).map(\.patient.givenName).sorted()
    }

    @Test func aDatabaseOfSchemaV33KeepsItsEntriesOnTheirRecords() async throws {
        // Given a database at v33 with three records and a deleted one (entries keyed as before)
        let (path, queue) = try MigrationDatabase.queue(upTo: "v33: each revision's body stored once")
        let records = Self.records() + [RecordStoreContract.record(950)]
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO team (id, name, createdAt) VALUES (1, 't', 0)")
            for (index, record) in records.enumerated() {
                try MigrationDatabase.insertRecord(
                    record, index: index, givenKey: NameKey.lookupKey(record.patient.givenName),
                    familyKey: NameKey.lookupKey(record.patient.familyName), db)
            }
            try db.execute(sql: "UPDATE record SET deletedAt = 1 WHERE id = ?", arguments: [records[3].id.uuidString.lowercased()])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lookupEntry") == 3)
        }
        try queue.close()

        // When the server opens it
        let store = try SQLiteRecordStore(path: path)

        // Then each live record's entry sits on its rowid, the deleted one has none, and lookups
        // find them as before
        #expect(try await Self.misplacedEntries(store) == 0)
        try await store.database.read { db throws in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lookupEntry") == 3)
            #expect(try Row.fetchAll(db, sql: "PRAGMA index_list(lookupEntry)").allSatisfy { ($0["unique"] as Int) == 0 })
        }
        #expect(try await Self.family(store, "haddad", team: 1) == ["Amina", "Omar"])
        #expect(try await Self.family(store, "الاحمد", team: 1) == ["فاطمة"])
    }

    @Test func entriesMovedOffTheirRecordsAreNeverTakenForAnotherAndAreMadeAgainAtTheOpen() async throws {
        let path = try MigrationDatabase.path()
        var store: SQLiteRecordStore? = try SQLiteRecordStore(path: path)
        let team = try await store!.createTeam(name: "mobile unit", at: Date())
        let records = Self.records()
        for record in records {
            _ = try await store!.ingest([IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "u"), at: Date())
        }
        #expect(try await Self.misplacedEntries(store!) == 0)
        let (first, second) = (records[0].id.uuidString.lowercased(), records[1].id.uuidString.lowercased())

        // Given entries that no longer sit on their records' rowids, as after a renumbering: the
        // second record's entry now where the first record's rowid is
        try await store!.database.write { db in
            let firstRowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM record WHERE id = ?", arguments: [first])!
            try db.execute(sql: "UPDATE lookupEntry SET entry = entry + 1000")
            try db.execute(sql: "UPDATE lookupEntry SET entry = ? WHERE recordId = ?", arguments: [firstRowid, second])
            // When the first record's names change
            try db.execute(sql: "UPDATE record SET familyNameKey = 'nasser' WHERE id = ?", arguments: [first])
            // Then the entry at its rowid, the second record's, is left as it was
            #expect(
                try String.fetchOne(db, sql: "SELECT familyNameKey FROM lookupEntry WHERE recordId = ?", arguments: [second]) == "الاحمد")
        }
        #expect(try await Self.misplacedEntries(store!) == 3)
        store = nil

        // When the server opens the database again, the entries are made again from the records
        let reopened = try SQLiteRecordStore(path: path)
        #expect(try await Self.misplacedEntries(reopened) == 0)
        #expect(try await Self.family(reopened, "nasser", team: team.id) == ["Amina"])
        #expect(try await Self.family(reopened, "haddad", team: team.id) == ["Omar"])
        #expect(try await Self.family(reopened, "الاحمد", team: team.id) == ["فاطمة"])
    }
}
