import Foundation
import Synchronization

/// Recently seen tokens and their users, so a request need not read the accounts every time.
///
/// Changes made through this server empty it at once. Changes made by another process on the
/// same database (`intake admin user update --disable`) take effect within `lifetime`.
final class TokenCache: Sendable {
    private struct Entry {
        var user: User
        var until: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    let lifetime: Duration
    let capacity: Int

    init(lifetime: Duration = .seconds(2), capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func user(hash: String) -> User? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[hash] else { return nil }
            guard entry.until > now else {
                entries[hash] = nil
                return nil
            }
            return entry.user
        }
    }

    /// Only found users are kept: an unknown token is read from the store each time.
    func insert(_ user: User, hash: String) {
        let until = ContinuousClock.now + lifetime
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[hash] = Entry(user: user, until: until)
        }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
