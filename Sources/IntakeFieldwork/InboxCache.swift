import Foundation
import IntakeClient
import IntakeStore

/// The last inbox fetched from the server, kept sealed in the local store, so that a field
/// worker offline still sees what they were told.
public struct InboxCache {
    let store: LocalStore
    static let name = "inbox"
    /// The newest notifications kept.
    static let capacity = 500

    public init(store: LocalStore) {
        self.store = store
    }

    public func save(_ notifications: [RemoteNotification]) throws {
        try store.saveDocument(Self.name, try JSONEncoder().encode(Array(notifications.suffix(Self.capacity))))
    }

    /// The notifications kept and when they were fetched; nil before the first fetch.
    public func load() throws -> (notifications: [RemoteNotification], fetchedAt: Date)? {
        guard let (data, savedAt) = try store.document(Self.name) else { return nil }
        return ((try? JSONDecoder().decode([RemoteNotification].self, from: data)) ?? [], savedAt)
    }
}
