import Foundation
import GRDB
import IntakeCore
import IntakeStoreTesting
import Testing

@testable import IntakeSQLite
@testable import IntakeService

/// SQLite v39 keeps what a record does to cases on its row. Records an older server stored and
/// its case service had not read yet are marked to be read once, whole; those it had read are
/// left alone; and every record that names a case keeps that case's id, so deleting it later
/// withdraws its visit.
struct CaseWorkMigrationTests {
    @Test func recordsNotYetReadForCasesAreMarkedAndFollowUpsKeepTheirCase() async throws {
        // Given a database at v38: three records of a team whose case cursor passed the first;
        // the third a follow-up naming a case
        let (path, queue) = try MigrationDatabase.queue(upTo: "v38: cases")
        let followed = UUID.named("case-work-migration")
        let records = (0..<3).map { index in
            RecordStoreContract.record(9300 + UInt64(index)).with {
                if index == 2 { $0.caseLink = CaseLink(id: followed, list: "follow-up", revision: 2) }
            }
        }
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO team (id, name, createdAt) VALUES (1, 'mobile unit', 0)")
            for (index, record) in records.enumerated() {
                try MigrationDatabase.insertRecord(record, index: index, givenKey: "g", familyKey: "f", db)
            }
            try db.execute(sql: "INSERT INTO caseCursor (teamId, cursor) VALUES (1, 1)")
        }

        // When the migration runs
        try SQLiteRecordStore.migrator.migrate(queue)
        let rows = try await queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, caseWork, followsCase FROM record ORDER BY teamSeq")
        }
        try queue.close()

        // Then the two the case service had not read are marked, and the follow-up names its case
        #expect(rows.map { $0["caseWork"] as String? } == [nil, "derive", "derive"])
        #expect(rows.map { $0["followsCase"] as String? } == [nil, nil, followed.uuidString.lowercased()])
        let store = try SQLiteRecordStore(path: path)
        let feed = try await store.caseFeed(teamId: 1, after: 1, limit: 10)
        #expect(feed.map(\.recordId) == [records[1].id, records[2].id])
        #expect(feed.map(\.kind) == [.saved(caseWork: "derive"), .saved(caseWork: "derive")])
        // And deleting the follow-up names its case in the feed
        #expect(try await store.deleteRecord(id: records[2].id, teamId: 1, reason: "wrong patient", by: "c", at: Date()) != .notFound)
        let deleted = try await store.caseFeed(teamId: 1, after: feed[1].cursor, limit: 10)
        #expect(deleted.map(\.kind) == [.deleted(followedCase: followed)])
        let cleared = try await store.database.read { db in
            try String.fetchOne(db, sql: "SELECT caseWork FROM record WHERE id = ?", arguments: [records[2].id.uuidString.lowercased()])
        }
        #expect(cleared == nil, "a deleted record's row keeps nothing of what its case was given")
    }
}
