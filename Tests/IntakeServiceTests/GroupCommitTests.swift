import Foundation
import Synchronization
import Testing

@testable import IntakeService

struct GroupCommitTests {
    /// Counts commits and what each held.
    final class Recorder: Sendable {
        let groups = Mutex<[[Int]]>([])
        let group = Mutex<GroupCommit<Int, Int>?>(nil)
    }

    @Test func concurrentJobsShareCommitsAndEachGetsItsOwnResult() async throws {
        let recorder = Recorder()
        // The first commit is on its way to disk until every other job has been handed in: they
        // all gather for the next one (or every job was in before the first began: one commit).
        let group = GroupCommit<Int, Int> { jobs in
            let first = recorder.groups.withLock { groups in
                groups.append(jobs)
                return groups.count == 1
            }
            if first {
                let deadline = ContinuousClock.now + .seconds(60)
                while (recorder.group.withLock { $0?.queued ?? 0 }) + jobs.count < 200, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            return jobs.map { .success($0 * 10) }
        }
        recorder.group.withLock { $0 = group }
        let results = try await withThrowingTaskGroup(of: (Int, Int).self) { tasks in
            for job in 0..<200 { tasks.addTask { (job, try await group.submit(job)) } }
            return try await tasks.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0.value == $0.key * 10 })
        let groups = recorder.groups.withLock { $0 }
        #expect(groups.flatMap { $0 }.sorted() == Array(0..<200), "every job is committed exactly once")
        #expect(groups.count <= 2, "jobs that arrive during a commit share the next one (\(groups.count) commits)")
    }

    struct Refused: Error {}

    @Test func aFailingJobFailsAloneAndAFailedCommitFailsItsWholeGroup() async throws {
        let group = GroupCommit<Int, Int> { jobs in
            if jobs.contains(-1) { throw Refused() }
            return jobs.map { $0 == 13 ? .failure(Refused()) : .success($0) }
        }
        #expect(try await group.submit(1) == 1)
        await #expect(throws: Refused.self) { try await group.submit(13) }
        await #expect(throws: Refused.self) { try await group.submit(-1) }
        #expect(try await group.submit(2) == 2, "a failed commit leaves the next one working")
    }
}
