import Foundation
import GRDB
import IntakeCore
import IntakeStoreTesting
import Testing

@testable import IntakeSQLite
@testable import IntakeService

/// SQLite's lookup entries are keyed by their record's rowid (v34), so a new record's entry is
/// written at the end of its table rather than on a page at random. An entry that no longer sits
/// on its record's rowid (a dump restored without --preserve-rowids renumbers them) is never
/// taken for another record's, a new record's entry takes its place, and the entries are made
/// again when the server opens the database.
struct LookupEntryKeyTests {
    static let names = [("Amina", "Haddad"), ("فاطمة", "الأحمد"), ("Omar", "Haddad")]

    static func records() -> [PatientResponse] { MigrationDatabase.records(of: names, seed: 900) }

    /// How many live records have no entry at their rowid, or another record's there.
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

    @Test func aDatabaseOfSchemaV33HasItsEntriesMovedOntoTheirRecords() async throws {
        // Given a database at v33 whose entries were numbered apart from their records' rowids,
        // as a transfer's exit row left them: a record, an exit row (its entry made, then
        // removed), then two records (the first of them given the exit row's entry number) and
        // a record deleted since
        let (path, queue) = try MigrationDatabase.queue(upTo: "v33: each revision's body stored once")
        let people = Self.records()
        let exit = RecordStoreContract.record(949)
        let records = [people[0], exit, people[1], people[2], RecordStoreContract.record(950)]
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO team (id, name, createdAt) VALUES (1, 't', 0)")
            for (index, record) in records.enumerated() {
                try MigrationDatabase.insertRecord(
                    record, index: index, givenKey: NameKey.lookupKey(record.patient.givenName),
                    familyKey: NameKey.lookupKey(record.patient.familyName), db)
                if record.id == exit.id {
                    let id = exit.id.uuidString.lowercased()
                    try db.execute(sql: "UPDATE record SET deletedAt = 1 WHERE id = ?", arguments: [id])
                    try db.execute(sql: "DELETE FROM lookupEntry WHERE recordId = ?", arguments: [id])
                }
            }
            try db.execute(sql: "UPDATE record SET deletedAt = 1 WHERE id = ?", arguments: [records[4].id.uuidString.lowercased()])
            let apart = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM lookupEntry e JOIN record r ON r.id = e.recordId WHERE e.entry <> r.rowid")
            #expect(apart == 2, "the fixture's entries are numbered apart from their records")
        }

        // When the migration runs
        try SQLiteRecordStore.migrator.migrate(queue)

        // Then each live record's entry sits on its rowid, the deleted ones have none, and no
        // unique index of record ids is left
        try await queue.read { db throws in
            let rows = try Row.fetchAll(db, sql: "SELECT e.entry, r.rowid AS rowid FROM lookupEntry e JOIN record r ON r.id = e.recordId")
            #expect(rows.count == 3 && rows.allSatisfy { ($0["entry"] as Int64) == ($0["rowid"] as Int64) })
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM lookupEntry") == 3)
            #expect(try Row.fetchAll(db, sql: "PRAGMA index_list(lookupEntry)").allSatisfy { ($0["unique"] as Int) == 0 })
        }
        try queue.close()

        // And lookups find them as before
        let store = try SQLiteRecordStore(path: path)
        #expect(try await Self.misplacedEntries(store) == 0)
        #expect(try await Self.family(store, "haddad", team: 1) == ["Amina", "Omar"])
        #expect(try await Self.family(store, "الاحمد", team: 1) == ["فاطمة"])
    }

    @Test func entriesMovedOffTheirRecordsAreNeverTakenForAnotherAndAreMadeAgainAtTheOpen() async throws {
        let path = try MigrationDatabase.path()
        var store: SQLiteRecordStore? = try SQLiteRecordStore(path: path)
        let team = try await store!.createTeam(name: "mobile unit", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        let records = Self.records()
        for record in records { _ = try await store!.ingest([IngestItem(record: record)], owner: owner, at: Date()) }
        #expect(try await Self.misplacedEntries(store!) == 0)
        let (first, second, third) = (
            records[0].id.uuidString.lowercased(), records[1].id.uuidString.lowercased(), records[2].id.uuidString.lowercased()
        )

        // Given entries that no longer sit on their records' rowids, as after a renumbering: the
        // second record's entry where the first record's rowid is, the third's where the next
        // record's will be
        try await store!.database.write { db in
            let firstRowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM record WHERE id = ?", arguments: [first])!
            let nextRowid = try Int64.fetchOne(db, sql: "SELECT MAX(rowid) + 1 FROM record")!
            try db.execute(sql: "UPDATE lookupEntry SET entry = entry + 1000")
            try db.execute(sql: "UPDATE lookupEntry SET entry = ? WHERE recordId = ?", arguments: [firstRowid, second])
            try db.execute(sql: "UPDATE lookupEntry SET entry = ? WHERE recordId = ?", arguments: [nextRowid, third])
            // When the first record's names change, and then it is deleted
            try db.execute(sql: "UPDATE record SET familyNameKey = 'nasser' WHERE id = ?", arguments: [first])
            try db.execute(sql: "UPDATE record SET deletedAt = 1 WHERE id = ?", arguments: [first])
            // Then the entry at its rowid, the second record's, is left as it was
            #expect(
                try String.fetchOne(db, sql: "SELECT familyNameKey FROM lookupEntry WHERE recordId = ?", arguments: [second]) == "الاحمد")
        }
        // And a new record whose rowid holds a misplaced entry is stored all the same
        let fourth = RecordStoreContract.record(960).with { $0.patient.familyName = "Haddad" }
        #expect(try await store!.ingest([IngestItem(record: fourth)], owner: owner, at: Date()) == [.created(revision: 1)])
        store = nil

        // When the server opens the database again, the entries are made again from the records
        let reopened = try SQLiteRecordStore(path: path)
        #expect(try await Self.misplacedEntries(reopened) == 0)
        #expect(try await Self.family(reopened, "nasser", team: team.id) == [])
        #expect(try await Self.family(reopened, "haddad", team: team.id) == ["Omar", fourth.patient.givenName].sorted())
        #expect(try await Self.family(reopened, "الاحمد", team: team.id) == ["فاطمة"])
    }
}
