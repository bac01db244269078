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

    /// The log is copied into the database file beside the writer, not by it: once the log passes
    /// 1,000 pages, the checkpointer's connection copies it (SQLite's own checkpoint would run at
    /// the end of the writer's commit), and when it is done every page the log holds is in the
    /// file (read from the log's index in `-shm`: its last frame and the frames copied).
    @Test func theLogIsCopiedBesideTheWriter() async throws {
        let path = try StoreKind.sqlite.newDatabase()
        let store = try #require(try await StoreKind.sqlite.open(database: path) as? SQLiteRecordStore)
        let team = try await store.createTeam(name: "t", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        var logged: UInt32 = 0
        var seed: UInt64 = 70_000
        // Until the log has passed the threshold at least once (about 8 pages a record).
        for _ in 0..<40 where store.checkpointer.passes == 0 {
            let items = (0..<100).map { _ in
                seed += 1
                return IngestItem(record: RecordStoreContract.record(seed))
            }
            #expect(try await store.ingest(items, owner: owner, at: Date()).allSatisfy { $0 == .created(revision: 1) })
            store.checkpointer.settle()
            logged = max(logged, try Self.walIndex(path).frames)
        }
        store.checkpointer.settle()
        #expect(store.checkpointer.passes > 0, "no checkpoint ran beside the writer (\(logged) frames logged)")
        #expect(store.checkpointer.inlinePasses == 0, "the writer copied the log itself")
        let index = try Self.walIndex(path)
        #expect(index.frames > 0 && index.copied == index.frames, "\(index.copied) of the log's \(index.frames) frames are in the file")
        let stored = try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record") }
        #expect(stored == Int(seed - 70_000))
    }

    /// The log's last frame and the frames already copied into the database file, as the
    /// wal-index header in `-shm` keeps them (SQLite's file format: `mxFrame` at byte 16,
    /// `nBackfill` at byte 96, in the machine's byte order).
    static func walIndex(_ path: String) throws -> (frames: UInt32, copied: UInt32) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path + "-shm")).prefix(100)
        func word(_ offset: Int) -> UInt32 { bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) } }
        return (word(16), word(96))
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
