import Foundation

/// Webhooks, registered by whoever wants their notifications delivered elsewhere.
///
/// Anyone signed in may register one for their own notifications; an admin may also register
/// one for another user, or for every user's notifications (a relay to a paging or SMS system).
/// People see and manage the webhooks they own or created; admins see and manage all.
public struct WebhookService: Sendable {
    let store: any WebhookStore & AccountStore
    let settings: WebhookSettings
    let clock: @Sendable () -> Date
    /// Woken when a webhook is resumed, so delivery starts at once.
    let hub: NotificationHub

    public init(
        store: any WebhookStore & AccountStore, settings: WebhookSettings, hub: NotificationHub,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.settings = settings
        self.hub = hub
        self.clock = clock
    }

    /// Whose notifications a webhook receives.
    public enum Target: Sendable, Equatable {
        /// The signed-in user's.
        case me
        /// Another user's (admins only).
        case user(String)
        /// Every user's (admins only).
        case everyone
    }

    /// Stores a webhook; its ``Webhook/secret`` is shown this once.
    public func register(url text: String, types: [String], for target: Target, by user: User) async throws -> Webhook {
        let url = try settings.addresses.check(text)
        if let unknown = types.first(where: { !NotificationType.all.contains($0) }) {
            throw ServiceError.invalidRequest(
                "'\(unknown.prefix(60))' is not a notification type; types are \(NotificationType.all.joined(separator: ", "))")
        }
        let ownerId: Int64?
        switch target {
        case .me: ownerId = user.id
        case .user(let name):
            guard user.role == .admin else { throw ServiceError.forbidden("only an admin registers a webhook for someone else") }
            guard let owner = try await store.users().first(where: { $0.username == name }) else {
                throw ServiceError.notFound("there is no user named '\(name.prefix(100))'")
            }
            ownerId = owner.id
        case .everyone:
            guard user.role == .admin else {
                throw ServiceError.forbidden("only an admin registers a webhook for every user's notifications")
            }
            ownerId = nil
        }
        var unique: [String] = []
        for type in types where !unique.contains(type) { unique.append(type) }
        let webhook = NewWebhook(
            ownerId: ownerId, createdBy: user.username, url: url.absoluteString, types: unique, secret: WebhookSignature.newSecret(),
            createdAt: clock())
        switch try await store.createWebhook(webhook) {
        case .created(let stored): return stored
        case .tooMany:
            throw ServiceError.conflict(
                "too_many_webhooks",
                "\(ownerId == nil ? "every user's notifications go" : "these notifications go") to \(Webhook.maxPerOwner) webhooks already; remove one first (intake webhook remove ID)"
            )
        }
    }

    /// The webhooks `user` may see, oldest first.
    /// Every webhook and what waits for them, for operators (`/metrics`).
    public func backlog() async throws -> WebhookBacklog { try await store.webhookBacklog() }

    public func webhooks(for user: User) async throws -> [Webhook] {
        try await store.webhooks(of: user.role == .admin ? nil : user.username)
    }

    /// One webhook `user` may see (another's is not found, as if it did not exist).
    public func webhook(_ id: UUID, for user: User) async throws -> Webhook {
        guard let webhook = try await store.webhook(id: id),
            user.role == .admin || webhook.owner == user.username || webhook.createdBy == user.username
        else { throw ServiceError.notFound("there is no webhook \(id.uuidString.lowercased()) of yours") }
        return webhook
    }

    public func delete(_ id: UUID, by user: User) async throws {
        _ = try await webhook(id, for: user)
        guard try await store.deleteWebhook(id: id) else {
            throw ServiceError.notFound("there is no webhook \(id.uuidString.lowercased())")
        }
    }

    /// Starts a suspended or failing webhook again at once, from where it stopped.
    public func resume(_ id: UUID, by user: User) async throws -> Webhook {
        _ = try await webhook(id, for: user)
        guard let webhook = try await store.resumeWebhook(id: id, at: clock()) else {
            throw ServiceError.notFound("there is no webhook \(id.uuidString.lowercased())")
        }
        hub.notify()
        return webhook
    }
}
