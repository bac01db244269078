import Foundation
import Synchronization

/// Lets concurrent writers share one transaction, and so one fsync.
///
/// Each caller hands in a job and waits. While a commit is on its way to disk, new jobs gather;
/// the next commit takes all of them at once. A job's result comes back only after the commit
/// that holds it returned, so an answer still means the data is on disk. `commit` isolates jobs
/// from one another (a savepoint each), so one failing job fails alone.
package final class GroupCommit<Job: Sendable, Output: Sendable>: Sendable {
    package typealias Commit = @Sendable ([Job]) async throws -> [Result<Output, any Error>]

    private struct Waiting {
        var job: Job
        var continuation: CheckedContinuation<Output, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var committing = false
    }

    private let state = Mutex(State())
    private let commit: Commit

    package init(commit: @escaping Commit) {
        self.commit = commit
    }

    package func submit(_ job: Job) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let lead = state.withLock { state in
                state.waiting.append(Waiting(job: job, continuation: continuation))
                guard !state.committing else { return false }
                state.committing = true
                return true
            }
            if lead { Task { await self.drain() } }
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
            do {
                let results = try await commit(group.map(\.job))
                for (waiting, result) in zip(group, results) { waiting.continuation.resume(with: result) }
            } catch {
                for waiting in group { waiting.continuation.resume(throwing: error) }
            }
        }
    }
}
