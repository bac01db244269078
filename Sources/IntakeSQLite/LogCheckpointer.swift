import Foundation
import GRDB
import GRDBSQLite

/// Copies the pages the writer commits from the write-ahead log into the database file on a
/// connection of its own, so that the writer's commits do not wait for it.
///
/// SQLite does this itself at the end of the commit that takes the log past 1,000 pages: the
/// writer then copies every page of the log and syncs the file before the next group can start.
/// A group of 500 records writes about 4,000 pages, so every batch's commit did it, and it was
/// 29 % of the writer's time (`intake-bench store`, 100,000 records, `perf record`).
///
/// The writer's log hook (``install(on:)``) asks for a checkpoint once the log holds
/// ``startPages`` pages, and a serial queue runs passive checkpoints, one at a time, for as long
/// as commits keep coming. Passive checkpoints never block the writer or readers. A commit is on
/// disk when it is in the log (`synchronous = FULL` syncs the log at every commit), so when the
/// copy runs changes nothing a crash or a power cut can take. If the log still grows past
/// ``inlinePages`` (the copying cannot keep up, or fails), the writer checkpoints at the end of
/// its commit as SQLite would, so the log stays bounded.
final class LogCheckpointer: @unchecked Sendable {
    /// The log's size, in pages, from which a checkpoint is asked for (SQLite's own threshold).
    static let startPages: Int32 = 1_000
    /// The log's size, in pages, from which the writer checkpoints itself (64 MB of 4 KB pages).
    static let inlinePages: Int32 = 16_000

    private let queue = DispatchQueue(label: "intake.sqlite.checkpoint", qos: .utility)
    private let state = NSLock()
    /// Whether a checkpoint was asked for since the last one began, and whether one is running.
    private var asked = false
    private var running = false
    /// Its own connection, opened with the store (so a checkpoint that runs after the store is
    /// gone never makes a database where the file was), used on the queue only.
    private let connection: DatabaseQueue
    /// The checkpoints run, and those the writer had to run itself (under `state`).
    private var passCount = 0
    private var inlineCount = 0
    /// For tests: the checkpoints run beside the writer, and those the writer ran itself.
    var passes: Int { state.withLock { passCount } }
    var inlinePasses: Int { state.withLock { inlineCount } }

    init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "intake.sqlite.checkpoint"
        connection = try DatabaseQueue(path: path, configuration: configuration)
        // Sync the database file before the log is reused, as the writer would.
        try connection.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
    }

    /// Installs the log hook on the writer's connection. This replaces SQLite's automatic
    /// checkpoint, which is the default log hook.
    func install(on db: Database) {
        // The connection keeps the target for its life (a few bytes for each store opened); the
        // target holds the checkpointer weakly, so a connection that outlives it checkpoints itself.
        let target = HookTarget(self)
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, name, pages in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<HookTarget>.fromOpaque(context).takeUnretainedValue().checkpointer
                if pages >= LogCheckpointer.inlinePages || (checkpointer == nil && pages >= LogCheckpointer.startPages) {
                    // Behind, or no checkpointer: the writer copies the log itself, as SQLite's own checkpoint does.
                    checkpointer?.countInline()
                    _ = sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else if pages >= LogCheckpointer.startPages {
                    checkpointer?.ask()
                }
                return SQLITE_OK
            }, Unmanaged.passRetained(target).toOpaque())
    }

    private final class HookTarget: @unchecked Sendable {
        weak var checkpointer: LogCheckpointer?
        init(_ checkpointer: LogCheckpointer) { self.checkpointer = checkpointer }
    }

    private func countInline() {
        state.withLock { inlineCount += 1 }
    }

    /// Called by the writer after a commit: runs a checkpoint soon, unless one is already due.
    private func ask() {
        let start = state.withLock {
            asked = true
            guard !running else { return false }
            running = true
            return true
        }
        if start { queue.async { self.run() } }
    }

    private func run() {
        while true {
            let go = state.withLock {
                guard asked else {
                    running = false
                    return false
                }
                asked = false
                return true
            }
            guard go else { return }
            checkpoint()
        }
    }

    /// One passive checkpoint. A failure (a full disk, say) is left for the next commit to ask
    /// again, and the writer's own checkpoint past ``inlinePages`` to bound.
    private func checkpoint() {
        do {
            try connection.writeWithoutTransaction { try $0.checkpoint(.passive) }
            state.withLock { passCount += 1 }
        } catch {
            // Nothing is lost: the pages stay in the log until a checkpoint copies them.
        }
    }

    /// For tests: waits until no checkpoint is running or due.
    func settle() {
        while state.withLock({ running || asked }) { queue.sync {} }
    }
}
