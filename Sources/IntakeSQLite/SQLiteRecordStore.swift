import Foundation
import GRDB
import IntakeCore
import IntakeService

/// The embedded default store: one SQLite file (WAL) through GRDB and the system libsqlite3.
public final class SQLiteRecordStore: RecordStore, GroupCommitHolding {
    let database: DatabasePool
    /// Copies the log into the database file beside the writer (``LogCheckpointer``).
    let checkpointer: LogCheckpointer
    let ingestGroup: GroupCommit<IngestJob, [IngestOutcome]>
    /// Groups that failed as one and were taken again a request at a time (see
    /// ``commit(_:into:fallbacks:hold:)``).
    package let fallbacks = FallbackCount()
    /// For tests: where group commits stop before their `COMMIT` (``GroupCommitHolding``).
    let commitHold = CommitHoldPoint()

    struct IngestJob: Sendable {
        var items: [IngestItem]
        var owner: RecordOwner
        var time: Date
    }

    /// Opens (creating and migrating when needed) the database at `path`.
    public init(path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // The writer keeps 32 MB of pages (indexes it updates stay in memory); readers keep
            // SQLite's default 2 MB, so an export that reads every page stays small.
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -32768") }
        }
        let database = try DatabasePool(path: path, configuration: configuration)
        // FULL: an acknowledged record survives a power cut, not only a crash. Set after the pool
        // opens: GRDB sets NORMAL on its writer when it turns the log on.
        try database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        let checkpointer = try LogCheckpointer(path: path)
        database.writeWithoutTransaction { checkpointer.install(on: $0) }
        self.checkpointer = checkpointer
        self.database = database
        if try database.read({ try Self.migrator.hasBeenSuperseded($0) }) {
            throw SQLiteStoreError("\(path) was migrated by a newer Intake; run that version, or restore a backup made before it")
        }
        try Self.migrator.migrate(database)
        try Self.placeRowsKeyedByRecord(database)
        let fallbacks = fallbacks
        let hold = commitHold
        ingestGroup = GroupCommit { jobs in try await Self.commit(jobs, into: database, fallbacks: fallbacks, hold: hold.current) }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + suffix)
        }
    }

    /// SQLite says a full disk (`SQLITE_FULL`, what a write that meets ENOSPC gives) and a
    /// failing one (`SQLITE_IOERR`, `SQLITE_CANTOPEN`); the transaction was rolled back either way.
    public func outage(_ error: any Error) -> StoreOutage? { Self.outage(error) }

    static func outage(_ error: any Error) -> StoreOutage? {
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_FULL: return .full
        case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_BUSY: return .unavailable
        default: return nil
        }
    }

    public func checkHealth() async throws {
        _ = try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM schemaVersion") }
    }

    static func timestamp(_ date: Date) -> Double { date.timeIntervalSince1970 }
    static func date(_ value: Double) -> Date { Date(timeIntervalSince1970: value) }
}

/// Why the SQLite store cannot open, with what to do about it.
public struct SQLiteStoreError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
