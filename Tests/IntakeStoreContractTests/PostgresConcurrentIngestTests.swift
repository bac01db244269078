import Foundation
import IntakeCore
import IntakePostgres
import IntakeServerTestSupport
import IntakeService
import IntakeStoreTesting
import Testing

/// What only the PostgreSQL store's audit chainer has (two servers' ingest with a group held
/// open is the store contract's HeldCommitContract, on both stores).
struct PostgresConcurrentIngestTests {
    /// An audit event left pending (its server gone between commit and chaining) is linked by the
    /// next reader of the trail, on any server.
    @Test func pendingAuditEventsAreLinkedByTheNextReader() async throws {
        let database = try StoreKind.postgres.newDatabase()
        let first = try #require(try await StoreKind.postgres.open(database: database) as? PostgresRecordStore)
        let team = try await first.createTeam(name: "t", at: Date())
        _ = try await first.ingest(
            [try IngestItem(record: RecordStoreContract.record(1))], owner: RecordOwner(teamId: team.id, username: "u"), at: Date())
        try await PostgresTesting.execute(
            """
            INSERT INTO auditPending (at, actor, action, subject, details)
            VALUES (1700000000, 'u', 'record.create', '00000000-0000-0000-0000-00000000abcd', '{}')
            """, in: database)
        let second = try await StoreKind.postgres.open(database: database)
        let created = try await second.auditEvents(AuditQuery(action: AuditAction.recordCreate.rawValue, limit: 100))
        #expect(created.map(\.subject).contains("00000000-0000-0000-0000-00000000abcd"))
        #expect(created.count == 2)
        #expect(try await AuditLog(store: second).verify().isSound)
    }
}
