import Foundation
import Synchronization

/// Wakes those waiting for new notifications (long polls, event streams) when this server stores
/// some. Notifications stored by another server on the same database are found by the waiters'
/// own timeout: they look again at least every ``pollInterval``.
public final class NotificationHub: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())
    /// The longest a waiter goes without looking at the store.
    public let pollInterval: Duration

    public init(pollInterval: Duration = .seconds(2)) {
        self.pollInterval = pollInterval
    }

    /// A number that changes whenever ``notify()`` is called: take it before looking at the store.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// How many wait now: for tests, which wait for a reader to be waiting before they store
    /// what it waits for.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Something was stored: every waiter looks again.
    public func notify() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once ``notify()`` has been called since `seen` was the generation, after `timeout`,
    /// or when the task is cancelled, whichever comes first.
    public func wait(after seen: UInt64, timeout: Duration) async {
        let id = UUID()
        // Woken after `timeout`, and again each `timeout` after, in case the first came before
        // the waiter was in place.
        let timer = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: timeout)
                self.wake(id)
            }
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    guard state.generation == seen, !Task.isCancelled else { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            self.wake(id)
        }
    }

    private func wake(_ id: UUID) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
