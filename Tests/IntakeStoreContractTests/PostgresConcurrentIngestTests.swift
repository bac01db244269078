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
    /// Notification ids are a cursor too (webhook deliveries, notification streams): a record's
    /// alert held open in one server's group is not passed by readers of the other, which see a
    /// later notification only once the held one has committed.
    @Test func aNotificationHeldOpenIsNeverPassed() async throws {
        let database = try StoreKind.postgres.newDatabase()
        let first = try #require(try await StoreKind.postgres.open(database: database) as? PostgresRecordStore)
        let second = try await StoreKind.postgres.open(database: database)
        let team = try await first.createTeam(name: "t", at: Date())
        let coordinator = try await first.createUser(
            NewUser(username: "cora", passwordHash: "h", role: .coordinator, teamId: team.id), at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        func alerting(_ seed: UInt64) throws -> IngestItem {
            var item = try IngestItem(record: RecordStoreContract.record(seed))
            item.alerts = ["1"]
            return item
        }
        let hold = CommitHold()
        defer { hold.release() }
        first.holdGroupCommits(at: hold)
        let held = Task { try await first.ingest([try alerting(1)], owner: owner, at: Date()) }
        let deadline = Date().addingTimeInterval(20)
        while !hold.isReached, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(hold.isReached)
        // A later alert commits on the other server: its notification's id is above the held one's.
        _ = try await second.ingest([try alerting(2)], owner: owner, at: Date())
        let during = try await second.notifications(NotificationQuery(userId: coordinator.id))
        #expect(during.isEmpty, "a reader following ids does not pass the one held open")
        #expect(try await second.newestNotificationId(userId: coordinator.id) == 0, "a stream starting now starts below it")
        hold.release()
        _ = try await held.value
        let after = try await second.notifications(NotificationQuery(userId: coordinator.id))
        #expect(after.count == 2 && after.map(\.id) == after.map(\.id).sorted())
    }

    /// A record sent again while another transaction is changing it (an edit, a transfer, a
    /// questionnaire's collector-only switch, which updates all its records at once) is answered
    /// at once, with the new records of its group, and the group is not taken apart: its first
    /// statement finds the held id by its snapshot, so its insert never meets it (an `ON
    /// CONFLICT` on it would wait until the other transaction ends, and the server's ingest
    /// with it).
    @Test func aRecordSentAgainDoesNotWaitForATransactionChangingIt() async throws {
        let database = try StoreKind.postgres.newDatabase()
        let store = try #require(try await StoreKind.postgres.open(database: database) as? PostgresRecordStore)
        let team = try await store.createTeam(name: "t", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        let sent = RecordStoreContract.record(1), new = RecordStoreContract.record(2)
        _ = try await store.ingest([try IngestItem(record: sent)], owner: owner, at: Date())
        let items = [try IngestItem(record: sent), try IngestItem(record: new)]
        let finished = Finished()
        let (inTime, ingest) = try await PostgresTesting.whileHolding(
            "UPDATE record SET updatedAt = updatedAt + 1 WHERE id = '\(sent.id.uuidString.lowercased())' RETURNING id", in: database
        ) { () async throws -> (Bool, Task<[IngestOutcome], any Error>) in
            let ingest = Task {
                defer { finished.set() }
                return try await store.ingest(items, owner: owner, at: Date())
            }
            let deadline = ContinuousClock.now + .seconds(15)
            while !finished.isSet, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            return (finished.isSet, ingest)
        }
        #expect(inTime, "the group waited for the transaction holding the record")
        #expect(try await ingest.value == [.duplicate(revision: 1), .created(revision: 1)])
        #expect(store.fallbacks.count == 0, "the group was not taken apart (its lock timeout did not end it)")
    }

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

/// Set once a task has finished.
private final class Finished: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false
    var isSet: Bool { lock.withLock { done } }
    func set() { lock.withLock { done = true } }
}
