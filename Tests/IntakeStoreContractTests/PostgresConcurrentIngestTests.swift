import Foundation
import IntakeCore
import IntakePostgres
import IntakeServerTestSupport
import IntakeService
import IntakeStoreTesting
import Synchronization
import Testing

/// Two servers on one PostgreSQL database: ingest takes no lock the other server's ingest waits
/// for, and readers never pass a change still held open (PostgresChangeCursors.swift).
///
/// SQLite has one writer at a time by design (a second server on the same file waits for the
/// first's commit): there the requirement is the store contract's
/// `twoWritersPostingOneIdAtOnceGiveOneCreated` and its races, not this.
struct PostgresConcurrentIngestTests {
    /// A signal a test can wait for with a deadline.
    final class Gate: Sendable {
        private let opened = Mutex(false)

        func open() { opened.withLock { $0 = true } }

        func wait(seconds: Double) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if opened.withLock({ $0 }) { return true }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return opened.withLock { $0 }
        }
    }

    @Test func twoServersIngestGroupsCommitWhileTheOtherIsHeldOpen() async throws {
        let database = try StoreKind.postgres.newDatabase()
        let first = try #require(try await StoreKind.postgres.open(database: database) as? PostgresRecordStore)
        let second = try #require(try await StoreKind.postgres.open(database: database) as? PostgresRecordStore)
        let team = try await first.createTeam(name: "mobile unit", at: Date())
        let other = try await first.createTeam(name: "وحدة", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "a")
        // A change already committed, which every reader may see throughout.
        let before = RecordStoreContract.record(1)
        _ = try await second.ingest([try IngestItem(record: before)], owner: owner, at: Date())

        // The first server's group stops before its COMMIT, its transaction open.
        let held = Gate(), release = Gate()
        // Whatever fails below, the held transaction ends.
        defer { release.open() }
        first.beforeGroupCommit.set {
            held.open()
            _ = await release.wait(seconds: 60)
        }
        let heldRecord = RecordStoreContract.record(2)
        let heldIngest = Task { try await first.ingest([try IngestItem(record: heldRecord)], owner: owner, at: Date()) }
        #expect(await held.wait(seconds: 20), "the first server's group reached its commit")

        // The second server's groups commit meanwhile: the same team's, and another team's.
        let sent = Task {
            var outcomes: [IngestOutcome] = []
            for seed in 3..<8 {
                outcomes += try await second.ingest(
                    [try IngestItem(record: RecordStoreContract.record(UInt64(seed)))], owner: owner, at: Date())
            }
            outcomes += try await second.ingest(
                [try IngestItem(record: RecordStoreContract.record(9))], owner: RecordOwner(teamId: other.id, username: "b"), at: Date())
            return outcomes
        }
        let done = Gate()
        Task {
            _ = try? await sent.value
            done.open()
        }
        #expect(await done.wait(seconds: 20), "the second server's groups committed while the first's transaction was open")
        #expect(try await sent.value == Array(repeating: .created(revision: 1), count: 6))

        // Readers stop below the change still open: the record committed before, and nothing of
        // the same team's after it, on either server; the other team's feed is its own.
        for store in [first, second] as [any RecordStore] {
            let page = try await store.changes(teamId: team.id, after: 0, limit: 100)
            #expect(page.changes.map(\.id) == [before.id], "a reader does not pass the change held open")
            let snapshot = try await store.exportSnapshot(teamId: team.id)
            #expect(snapshot.cursor == page.changes.last?.cursor, "an export's cursor stops there too")
        }
        #expect(try await second.exportSnapshot(teamId: nil).cursor == 1, "the deployment's cursor stops below it too")
        let readDuringHold = try await second.changes(teamId: team.id, after: 0, limit: 100)

        release.open()
        #expect(try await heldIngest.value == [.created(revision: 1)])
        first.beforeGroupCommit.set(nil)

        // Once it commits, a reader that stopped below it reads it and everything after: nothing
        // passed over, each once, in cursor order.
        let after = try await second.changes(teamId: team.id, after: readDuringHold.changes.last?.cursor ?? 0, limit: 100)
        let expected = Set([heldRecord.id] + (3..<8).map { RecordStoreContract.record(UInt64($0)).id })
        #expect(Set(after.changes.map(\.id)) == expected && after.changes.count == expected.count)
        #expect(after.changes.map(\.cursor) == after.changes.map(\.cursor).sorted())
        #expect(after.changes.first?.id == heldRecord.id, "the change held open has the lowest cursor of those after the hold")
        let theOther = try await first.changes(teamId: other.id, after: 0, limit: 100)
        #expect(theOther.changes.map(\.id) == [RecordStoreContract.record(9).id])

        // The audit trail: each record created once, linked after the commits, the chain whole.
        let created = try await first.auditEvents(AuditQuery(action: AuditAction.recordCreate.rawValue, limit: 100))
        #expect(created.count == 8 && Set(created.map(\.subject)).count == 8)
        #expect(try await AuditLog(store: second).verify().isSound)
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
