import Foundation
import Metrics
import Synchronization

/// Lets concurrent writers share one transaction, and so one fsync.
///
/// Each caller hands in a job and waits. While a commit is on its way to disk, new jobs gather;
/// the next commit takes all of them at once. A job's result comes back only after the commit
/// that holds it returned, so an answer still means the data is on disk. `commit` keeps jobs
/// apart (a store takes a failed group again a job at a time), so one failing job fails alone.
package final class GroupCommit<Job: Sendable, Output: Sendable>: Sendable {
    package typealias Commit = @Sendable ([Job]) async throws -> [Result<Output, any Error>]

    private struct Waiting {
        var job: Job
        var continuation: CheckedContinuation<Output, any Error>
        var since: ContinuousClock.Instant
    }

    private struct State {
        var waiting: [Waiting] = []
        var committing = false
    }

    /// Where the figures go (`GET /metrics`), and how many records a job holds.
    private struct Observer: Sendable {
        var metrics: GroupCommitMetrics
        var records: @Sendable (Job) -> Int
    }

    private let state = Mutex(State())
    private let observer = Mutex<Observer?>(nil)
    private let commit: Commit
    private let executor: (any TaskExecutor)?

    /// `executor`: where commits run. A commit is a chain of short waits on the database; on the
    /// shared pool each wait's continuation queues behind requests being decoded and validated
    /// (tenths of a millisecond each), and every request waits for the commit. A thread of its
    /// own keeps the chain short.
    package init(executor: (any TaskExecutor)? = GroupCommitExecutor.shared, commit: @escaping Commit) {
        self.commit = commit
        self.executor = executor
    }

    /// Reports each commit's size and time, and how long jobs waited for it, to `metrics`.
    package func observe(_ metrics: GroupCommitMetrics, records: @escaping @Sendable (Job) -> Int) {
        observer.withLock { $0 = Observer(metrics: metrics, records: records) }
    }

    /// Jobs handed in and waiting for the next commit (not the one on its way): for tests.
    package var queued: Int { state.withLock { $0.waiting.count } }

    package func submit(_ job: Job) async throws -> Output {
        let metrics = observer.withLock { $0?.metrics }
        metrics?.waiting.increment()
        defer { metrics?.waiting.decrement() }
        return try await withCheckedThrowingContinuation { continuation in
            let lead = state.withLock { state in
                state.waiting.append(Waiting(job: job, continuation: continuation, since: .now))
                guard !state.committing else { return false }
                state.committing = true
                return true
            }
            if lead { Task(executorPreference: executor) { await self.drain() } }
        }
    }

    /// Commits what is waiting, again and again, until nothing is.
    private func drain() async {
        while true {
            let group = state.withLock { state in
                let group = state.waiting
                state.waiting = []
                if group.isEmpty { state.committing = false }
                return group
            }
            guard !group.isEmpty else { return }
            let start = ContinuousClock.now
            let observer = observer.withLock { $0 }
            if let observer {
                observer.metrics.requests.record(group.count)
                observer.metrics.records.record(group.reduce(0) { $0 + observer.records($1.job) })
                for waiting in group { observer.metrics.wait.record(duration: start - waiting.since) }
            }
            do {
                let results = try await commit(group.map(\.job))
                observer?.metrics.duration.record(duration: .now - start)
                for (waiting, result) in zip(group, results) { waiting.continuation.resume(with: result) }
            } catch {
                observer?.metrics.failures.increment()
                for waiting in group { waiting.continuation.resume(throwing: error) }
            }
        }
    }
}

/// A thread for group commits (``GroupCommit``), shared by the stores of a process: jobs run in
/// the order they arrive.
package final class GroupCommitExecutor: TaskExecutor, @unchecked Sendable {
    package static let shared = GroupCommitExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        Thread { [unowned self] in self.run() }.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        Thread.current.name = "intake-commit"
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

/// The figures of one store's group commits (``GroupCommit``).
public struct GroupCommitMetrics: Sendable {
    /// Records in each group commit.
    let records: Metrics.Recorder
    /// Requests (jobs) in each group commit.
    let requests: Metrics.Recorder
    /// From a request handing in its records to the start of the commit that holds them.
    let wait: Metrics.Timer
    /// Each commit, to the database's answer (after its fsync).
    let duration: Metrics.Timer
    /// Requests waiting for a commit now.
    let waiting: Metrics.Meter
    /// Group commits that failed as a whole.
    let failures: Metrics.Counter
    /// Groups a store took again a request at a time after the group as a whole failed (both
    /// stores commit a group's requests together first, and apart only when that fails).
    let fallbacks: Metrics.Counter

    /// Made by `factory` (a server's own registry: two servers in one process keep their figures apart).
    public init(factory: any MetricsFactory) {
        records = Metrics.Recorder(label: "intake_group_commit_records", factory: factory)
        requests = Metrics.Recorder(label: "intake_group_commit_requests", factory: factory)
        wait = Metrics.Timer(label: "intake_group_commit_wait_seconds", factory: factory)
        duration = Metrics.Timer(label: "intake_group_commit_duration_seconds", factory: factory)
        waiting = Metrics.Meter(label: "intake_group_commit_waiting", factory: factory)
        failures = Metrics.Counter(label: "intake_group_commit_failures_total", factory: factory)
        fallbacks = Metrics.Counter(label: "intake_group_commit_fallbacks_total", factory: factory)
    }

    /// One group taken again a request at a time (``fallbacks``).
    public func countFallback() { fallbacks.increment() }
}

/// A count shared by a store and its group commits: groups taken again a request at a time.
/// Reported as `intake_group_commit_fallbacks_total` once the store is observed.
package final class FallbackCount: Sendable {
    private let value = Mutex(0)
    private let metrics = Mutex<GroupCommitMetrics?>(nil)

    package init() {}

    package var count: Int { value.withLock { $0 } }

    package func increment() {
        value.withLock { $0 += 1 }
        metrics.withLock { $0 }?.countFallback()
    }

    package func report(to metrics: GroupCommitMetrics) { self.metrics.withLock { $0 = metrics } }
}

/// For tests: a point where a store's group commits stop after their statements and before
/// their `COMMIT`, the transaction open, until released (at most a minute). What another server
/// can do meanwhile is the store contract's `aGroupHeldOpenBeforeItsCommit…`.
package final class CommitHold: Sendable {
    private let state = Mutex((reached: false, released: false))

    package init() {}

    package var isReached: Bool { state.withLock { $0.reached } }

    package func release() { state.withLock { $0.released = true } }

    /// Called by the store at the point: marks it reached and waits to be released, blocking
    /// the calling thread (SQLite's writer).
    package func reachAndWaitBlocking() {
        state.withLock { $0.reached = true }
        let deadline = Date().addingTimeInterval(60)
        while !state.withLock({ $0.released }), Date() < deadline { usleep(5_000) }
    }

    /// Called by the store at the point: marks it reached and waits to be released.
    package func reachAndWait() async {
        state.withLock { $0.reached = true }
        let deadline = Date().addingTimeInterval(60)
        while !state.withLock({ $0.released }), Date() < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }
}

/// A store whose group commits a test can hold before their `COMMIT` (``CommitHold``).
package protocol GroupCommitHolding: Sendable {
    /// Holds every group commit from now on at `hold` (nil: no more).
    func holdGroupCommits(at hold: CommitHold?)
    /// Whether a second server's writes wait for a write transaction held open (SQLite's one
    /// writer at a time) or go on (PostgreSQL's ingest).
    var writersTakeTurns: Bool { get }
}

/// Where a store keeps the ``CommitHold`` its group commits stop at, if any.
package final class CommitHoldPoint: Sendable {
    private let hold = Mutex<CommitHold?>(nil)

    package init() {}

    package var current: CommitHold? {
        get { hold.withLock { $0 } }
        set { hold.withLock { $0 = newValue } }
    }
}
