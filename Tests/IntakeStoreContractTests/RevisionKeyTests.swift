import Foundation
import GRDB
import IntakeCore
import IntakeStoreTesting
import Testing

@testable import IntakeSQLite
@testable import IntakeService

/// SQLite keeps a record's revisions on the record's rowid (v37), so a new record's revision is
/// written at the end of its table rather than on a page at random. Revisions are records' data
/// (past bodies), not an index made again from the records: one that no longer sits on its
/// record's rowid (rowids renumbered while the server ran) is never taken for another record's,
/// nor lost, nor kept after its record's deletion; the store's writes place them again before
/// they touch a record whose revisions moved, and the open does at the next start.
struct RevisionKeyTests {
    /// How many revisions do not sit on their record's rowid.
    static func misplacedRevisions(_ store: SQLiteRecordStore) async throws -> Int {
        try await store.database.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT COUNT(*) FROM recordRevision v LEFT JOIN record r ON r.rowid = v.recordRow WHERE r.id IS NOT v.recordId")!
        }
    }

    static func key(_ record: PatientResponse) -> String { record.id.uuidString.lowercased() }

    @Test func aDatabaseOfSchemaV36HasItsRevisionsMovedOntoTheirRecords() async throws {
        // Given a database at v36: a record edited once (its first body kept by its first
        // revision), a record never edited, and a deleted one
        let (path, queue) = try MigrationDatabase.queue(
            upTo: "v36: a new record's lookup entry takes a misplaced one's place without REPLACE")
        let edited = RecordStoreContract.record(970), plain = RecordStoreContract.record(971), deleted = RecordStoreContract.record(972)
        let edit = edited.with { $0.patient.givenName = "Layla" }
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO team (id, name, createdAt) VALUES (1, 't', 0)")
            for (index, record) in [edited, plain, deleted].enumerated() {
                try MigrationDatabase.insertRecord(record, index: index, givenKey: "g", familyKey: "f", db)
                try db.execute(
                    sql:
                        "INSERT INTO recordRevision (recordId, revision, contentHash, body, savedBy, savedAt) VALUES (?, 1, ?, NULL, 'u', ?)",
                    arguments: [Self.key(record), IngestItem(record: record).contentHash, Double(index)])
            }
            try db.execute(
                sql: "UPDATE recordRevision SET body = (SELECT body FROM record WHERE id = ?) WHERE recordId = ?",
                arguments: [Self.key(edited), Self.key(edited)])
            try db.execute(
                sql: "UPDATE record SET revision = 2, body = ? WHERE id = ?",
                arguments: [String(decoding: RecordCodec.encode(edit), as: UTF8.self), Self.key(edited)])
            try db.execute(
                sql: "INSERT INTO recordRevision (recordId, revision, contentHash, body, savedBy, savedAt) VALUES (?, 2, ?, NULL, 'v', 5)",
                arguments: [Self.key(edited), IngestItem(record: edit).contentHash])
            try db.execute(sql: "UPDATE record SET deletedAt = 1, body = '' WHERE id = ?", arguments: [Self.key(deleted)])
            try db.execute(sql: "DELETE FROM recordRevision WHERE recordId = ?", arguments: [Self.key(deleted)])
        }

        // When the migration runs
        try SQLiteRecordStore.migrator.migrate(queue)
        try queue.close()

        // Then each revision sits on its record's rowid, with what it held
        let store = try SQLiteRecordStore(path: path)
        #expect(try await Self.misplacedRevisions(store) == 0)
        let history = try await store.revisions(of: edited.id)
        #expect(history.map(\.revision) == [1, 2])
        #expect(history.map(\.record.patient.givenName) == [edited.patient.givenName, "Layla"])
        #expect(history.map(\.savedBy) == ["u", "v"])
        #expect(try await store.revisions(of: plain.id).map(\.record) == [plain])
        // And a copy sent again of either revision is known as one
        let owner = RecordOwner(teamId: 1, username: "u")
        #expect(
            try await store.ingest([IngestItem(record: edited), IngestItem(record: plain)], owner: owner, at: Date()) == [
                .duplicate(revision: 2), .duplicate(revision: 1),
            ])
    }

    /// Three records of one team (the first edited once) and their owner.
    static func storeWithRecords(_ path: String) async throws -> (SQLiteRecordStore, RecordOwner, [PatientResponse]) {
        let store = try SQLiteRecordStore(path: path)
        let team = try await store.createTeam(name: "mobile unit", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        let records = [RecordStoreContract.record(980), RecordStoreContract.record(981), RecordStoreContract.record(982)]
        for record in records { _ = try await store.ingest([IngestItem(record: record)], owner: owner, at: Date()) }
        let edit = records[0].with { $0.patient.givenName = "Layla" }
        #expect(
            try await store.update(IngestItem(record: edit), baseRevision: 1, teamId: team.id, savedBy: "v", at: Date())
                == .updated(revision: 2))
        #expect(try await misplacedRevisions(store) == 0)
        return (store, owner, records)
    }

    /// Every revision moved off its record's rowid, as a renumbering of the record table leaves
    /// them; and, when `at` is given, the second record's put where that rowid is.
    static func misplace(_ store: SQLiteRecordStore, secondAt rowid: Int64? = nil, _ records: [PatientResponse]) async throws {
        try await store.database.write { db in
            try db.execute(sql: "UPDATE recordRevision SET recordRow = recordRow + 1000")
            if let rowid {
                try db.execute(sql: "UPDATE recordRevision SET recordRow = ? WHERE recordId = ?", arguments: [rowid, key(records[1])])
            }
        }
        #expect(try await misplacedRevisions(store) > 0)
    }

    static func rowid(_ store: SQLiteRecordStore, _ sql: String, _ arguments: StatementArguments = []) async throws -> Int64 {
        try await store.database.read { db in try Int64.fetchOne(db, sql: sql, arguments: arguments)! }
    }

    @Test func revisionsMovedOffTheirRecordsAreFoundKeptAndNeverTakenForAnother() async throws {
        let path = try MigrationDatabase.path()
        var store: SQLiteRecordStore? = nil
        let (opened, owner, records) = try await Self.storeWithRecords(path)
        store = opened
        let first = records[0], second = records[1]
        let firstRowid = try await Self.rowid(store!, "SELECT rowid FROM record WHERE id = ?", [Self.key(first)])

        // A record's history is read all the same, with the second record's revision at its rowid
        try await Self.misplace(store!, secondAt: firstRowid, records)
        #expect(try await store!.revisions(of: first.id).map(\.record.patient.givenName) == [first.patient.givenName, "Layla"])
        #expect(try await store!.revisions(of: second.id).map(\.record) == [second])

        // A copy sent again is known as one (not a conflict), and the revisions are placed again
        #expect(try await store!.ingest([IngestItem(record: second)], owner: owner, at: Date()) == [.duplicate(revision: 1)])
        #expect(try await Self.misplacedRevisions(store!) == 0)

        // An edit keeps the body it replaces
        try await Self.misplace(store!, secondAt: firstRowid, records)
        let again = first.with { $0.patient.givenName = "Mariam" }
        #expect(
            try await store!.update(IngestItem(record: again), baseRevision: 2, teamId: owner.teamId, savedBy: "w", at: Date())
                == .updated(revision: 3))
        #expect(
            try await store!.revisions(of: first.id).map(\.record.patient.givenName) == [first.patient.givenName, "Layla", "Mariam"])
        #expect(try await store!.revisions(of: second.id).map(\.record) == [second])

        // A new record whose rowid holds another record's revision is stored, that one kept
        let next = try await Self.rowid(store!, "SELECT MAX(rowid) + 1 FROM record")
        try await Self.misplace(store!, secondAt: next, records)
        let fourth = RecordStoreContract.record(983)
        #expect(try await store!.ingest([IngestItem(record: fourth)], owner: owner, at: Date()) == [.created(revision: 1)])
        #expect(try await store!.revisions(of: fourth.id).map(\.record) == [fourth])
        #expect(try await store!.revisions(of: second.id).map(\.record) == [second])

        // A deleted record's revisions all go, wherever they were
        try await Self.misplace(store!, records)
        _ = try await store!.deleteRecord(id: second.id, teamId: owner.teamId, reason: "duplicate", by: "u", at: Date())
        let left = try await store!.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recordRevision WHERE recordId = ?", arguments: [Self.key(second)])!
        }
        #expect(left == 0)

        // And the open puts them all back on their records
        try await Self.misplace(store!, records)
        store = nil
        let reopened = try SQLiteRecordStore(path: path)
        #expect(try await Self.misplacedRevisions(reopened) == 0)
        #expect(try await reopened.revisions(of: first.id).count == 3)
        #expect(try await reopened.revisions(of: records[2].id).map(\.record) == [records[2]])
    }

    /// An incremental export by time asks whether a record was first saved before that time (its
    /// first revision's time): with the revisions moved off their records' rowids, a record whose
    /// patient withdrew consent is still listed for removal.
    @Test func aWithdrawalIsListedWithTheRevisionsMovedOffTheirRecords() async throws {
        let store = try SQLiteRecordStore(path: try MigrationDatabase.path())
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let team = try await store.createTeam(name: "clinic", at: start)
        let patient = UUID()
        _ = try await store.registerPatients([
            NewPatient(
                id: patient, teamId: team.id, identification: PatientIdentification(givenName: "Amina", familyName: "Haddad"),
                createdBy: "c", createdAt: start)
        ])
        _ = try await store.recordConsent(
            Consent(patientId: patient, scope: .allQualifiedResearchers, method: .written, recordedBy: "c", recordedAt: start))
        let record = RecordStoreContract.record(990).with { $0.patientId = patient }
        _ = try await store.ingest([IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "c"), at: start)
        let withdrawnAt = start + 60
        _ = try await store.recordConsent(
            Consent(patientId: patient, scope: .noSharing, method: .verbal, recordedBy: "c", recordedAt: withdrawnAt))
        func withdrawn() async throws -> [UUID] {
            let snapshot = try await store.exportSnapshot(teamId: nil)
            var query = ExportQuery(questionnaireId: record.questionnaire.id, teamId: nil, after: 0, upTo: snapshot.cursor)
            query.consent = ConsentFilter(scopes: ResearchAccess.external.scopes, includeUnlinked: false)
            query.previous = .time(withdrawnAt)
            return try await snapshot.withdrawn(query)
        }
        #expect(try await withdrawn() == [record.id])
        try await Self.misplace(store, [record])
        #expect(try await withdrawn() == [record.id])
    }
}
