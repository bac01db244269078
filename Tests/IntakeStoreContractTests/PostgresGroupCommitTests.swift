import Foundation
import IntakeCore
import IntakePostgres
import IntakeServer
import IntakeServerTestSupport
import IntakeService
import IntakeStoreTesting
import Testing

/// What only the PostgreSQL store's group commit has: statements prepared once per connection.
struct PostgresGroupCommitTests {
    /// A group statement whose preparation failed on a connection (here: the revisions' table
    /// away when it is first prepared, as a migration might hold it) does not keep that connection's later groups on the
    /// one-request-at-a-time path: the failing group is taken again that way, and the groups
    /// after it go together again once the table is back.
    @Test func aFailedPreparationKeepsNoConnectionOnTheSlowPath() async throws {
        let database = try StoreKind.postgres.newDatabase()
        let store = try #require(try await StoreKind.postgres.open(database: database) as? PostgresRecordStore)
        let metrics = ServerMetrics()
        store.observeIngest(metrics.groupCommit)
        let team = try await store.createTeam(name: "t", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        func send(_ seed: UInt64) async throws -> [IngestOutcome] {
            try await store.ingest([try IngestItem(record: RecordStoreContract.record(seed))], owner: owner, at: Date())
        }
        // Before any group: the statements are first prepared while the table is away.
        try await PostgresTesting.execute("ALTER TABLE recordRevision RENAME TO recordRevisionAway", in: database)
        await #expect(throws: (any Error).self) { try await send(2) }
        #expect(store.fallbacks.count == 1, "the group that failed was taken a request at a time")
        try await PostgresTesting.execute("ALTER TABLE recordRevisionAway RENAME TO recordRevision", in: database)
        for seed in 3..<40 {
            let outcome = try await send(UInt64(seed))
            #expect(outcome == [.created(revision: 1)])
        }
        #expect(store.fallbacks.count == 1, "no group after the table came back went the slow way")
        let scraped = String(decoding: metrics.scrape(backlog: WebhookBacklog(webhooks: 0, events: 0)), as: UTF8.self)
        #expect(scraped.contains("intake_group_commit_fallbacks_total 1\n"), "the operator sees it: \(scraped)")
        #expect(try await store.revisions(of: RecordStoreContract.record(2).id).isEmpty, "the failed group stored nothing")
    }
}
