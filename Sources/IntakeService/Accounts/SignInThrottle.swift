import Foundation
import Synchronization

/// Failed sign-ins counted in memory: per client address, and per user name that has no
/// account (known accounts are counted in the store, shared by every server).
final class SignInThrottle: Sendable {
    struct Failures: Sendable {
        var count: Int
        var last: Date
    }

    private let entries = Mutex<[String: Failures]>([:])
    /// Entries kept at most; the oldest are forgotten past it.
    private let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    func failures(_ key: String) -> Failures? {
        entries.withLock { $0[key] }
    }

    @discardableResult
    func recordFailure(_ key: String, at time: Date) -> Failures {
        entries.withLock { entries in
            var failures = entries[key] ?? Failures(count: 0, last: time)
            failures.count += 1
            failures.last = time
            entries[key] = failures
            if entries.count > capacity {
                let oldest = entries.sorted { $0.value.last < $1.value.last }.prefix(entries.count - capacity / 2).map(\.key)
                for key in oldest { entries[key] = nil }
            }
            return failures
        }
    }

    func clear(_ key: String) {
        entries.withLock { $0[key] = nil }
    }
}
