import Foundation
import IntakeCore
import IntakeServer
import IntakeServerTestSupport
import IntakeService
import IntakeStoreTesting
import Synchronization
import Testing

@testable import IntakeSQLite

/// What only the SQLite store's group commit has: a group goes in as one, and is taken again a
/// request at a time (a savepoint each) only when it fails.
struct SQLiteGroupCommitTests {
    /// An acknowledged record survives a power cut: the writer syncs each commit to disk
    /// (`synchronous = FULL`), which GRDB turns down to NORMAL as it opens a pool unless the store
    /// sets it again.
    @Test func theWriterSyncsEveryCommit() async throws {
        let store = try #require(try await StoreKind.sqlite.open(database: StoreKind.sqlite.newDatabase()) as? SQLiteRecordStore)
        let level = try await store.database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(level == 2, "synchronous is \(String(describing: level)), not FULL (2)")
    }

    /// Requests sent at once share commits; one of them names a team that does not exist, so
    /// the group holding it fails as one and is taken again apart: that request alone fails,
    /// the others are stored once, and the operator's scrape counts the groups taken again.
    @Test func aGroupThatFailsIsTakenAgainARequestAtATime() async throws {
        let store = try #require(try await StoreKind.sqlite.open(database: StoreKind.sqlite.newDatabase()) as? SQLiteRecordStore)
        let metrics = ServerMetrics()
        store.observeIngest(metrics.groupCommit)
        let team = try await store.createTeam(name: "t", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        // What the writer runs: a group goes in without a savepoint, its journals in memory.
        let statements = Mutex<[String]>([])
        try await store.database.writeWithoutTransaction { db in
            db.trace { event in
                if case .statement(let statement) = event { statements.withLock { $0.append(statement.sql) } }
            }
        }
        func sendAtOnce(_ seeds: Range<UInt64>) async throws {
            try await withThrowingTaskGroup(of: [IngestOutcome].self) { group in
                for seed in seeds {
                    group.addTask {
                        try await store.ingest([IngestItem(record: RecordStoreContract.record(seed))], owner: owner, at: Date())
                    }
                }
                for try await outcome in group { #expect(outcome == [.created(revision: 1)]) }
            }
        }
        try await sendAtOnce(80_000..<80_016)
        let together = statements.withLock { $0 }
        #expect(together.contains { $0.hasPrefix("PRAGMA temp_store = MEMORY") }, "\(together.prefix(5))")
        #expect(!together.contains { $0.uppercased().hasPrefix("SAVEPOINT") }, "no request in a savepoint of its own")
        #expect(store.fallbacks.count == 0)
        var stored = 16
        // Until a round puts the refused request in a group with others (nearly always the first).
        for round in 0..<20 where store.fallbacks.count == 0 {
            let records = (0..<16).map { RecordStoreContract.record(UInt64(90_000 + 100 * round + $0)) }
            let results = await withTaskGroup(of: (Int, Bool).self) { group in
                for (index, record) in records.enumerated() {
                    let sender = index == 7 ? RecordOwner(teamId: team.id + 10_000, username: "u") : owner
                    group.addTask {
                        let outcome = try? await store.ingest([IngestItem(record: record)], owner: sender, at: Date())
                        return (index, outcome == [.created(revision: 1)])
                    }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            for (index, created) in results { #expect(created == (index != 7), "round \(round), request \(index)") }
            #expect(try await store.record(id: records[7].id) == nil)
            stored += 15
        }
        let fallbacks = store.fallbacks.count
        #expect(fallbacks > 0, "no round grouped the refused request with others")
        #expect(statements.withLock { $0 }.contains { $0.uppercased().hasPrefix("SAVEPOINT") }, "the failed group was taken apart")
        let scraped = String(decoding: metrics.scrape(backlog: WebhookBacklog(webhooks: 0, events: 0)), as: UTF8.self)
        #expect(scraped.contains("intake_group_commit_fallbacks_total \(fallbacks)\n"), "the operator sees it: \(scraped)")
        let created = try await store.auditEvents(AuditQuery(action: AuditAction.recordCreate.rawValue, limit: 1000))
        #expect(created.count == stored && Set(created.map(\.subject)).count == stored, "each stored record audited once")
        #expect(try await AuditLog(store: store).verify().isSound)
        // After it, groups go together again: nothing more is counted.
        try await sendAtOnce(99_000..<99_016)
        #expect(store.fallbacks.count == fallbacks)
        // The group's journals were kept in memory for its transaction only: the writer is back
        // to files, where a migration's or a purge's large statement keeps its journal.
        let tempStore = try await store.database.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") }
        #expect(tempStore == 0)
    }
}
