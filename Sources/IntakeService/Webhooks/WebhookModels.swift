import Foundation

/// A URL that receives a user's notifications (or, registered by an admin, everyone's) as signed
/// HTTP POSTs, for people who are not at a terminal.
///
/// Deliveries follow the notifications in id order from ``deliveredThrough``: each is sent until
/// the receiver answers 2xx, waiting longer after each failure, and the webhook is suspended
/// after too many failures in a row (until someone resumes it).
public struct Webhook: Sendable, Hashable {
    public var id: UUID
    /// Whose notifications it receives: nil for every user's.
    public var ownerId: Int64?
    /// The owner's user name (nil for every user's).
    public var owner: String?
    public var createdBy: String
    public var url: String
    /// The notification types it receives; empty for all.
    public var types: [String]
    /// The key deliveries are signed with. Shown once, when it is registered.
    public var secret: String
    public var createdAt: Date
    /// The last notification id handled (delivered, or skipped as another type).
    public var deliveredThrough: Int64
    /// How many notifications it has delivered.
    public var delivered: Int
    /// Failed attempts in a row (0 after a success).
    public var failures: Int
    /// Why the last attempt failed: a status or a connection error, never a body.
    public var lastError: String?
    public var lastAttemptAt: Date?
    /// No delivery is tried before this.
    public var nextAttemptAt: Date
    /// Stopped after too many failures in a row; resuming starts it again where it stopped.
    public var suspended: Bool

    package init(
        id: UUID, ownerId: Int64?, owner: String?, createdBy: String, url: String, types: [String], secret: String, createdAt: Date,
        deliveredThrough: Int64, delivered: Int, failures: Int, lastError: String?, lastAttemptAt: Date?, nextAttemptAt: Date,
        suspended: Bool
    ) {
        self.id = id
        self.ownerId = ownerId
        self.owner = owner
        self.createdBy = createdBy
        self.url = url
        self.types = types
        self.secret = secret
        self.createdAt = createdAt
        self.deliveredThrough = deliveredThrough
        self.delivered = delivered
        self.failures = failures
        self.lastError = lastError
        self.lastAttemptAt = lastAttemptAt
        self.nextAttemptAt = nextAttemptAt
        self.suspended = suspended
    }

    /// Most webhooks one user's notifications go to (every-user webhooks count together).
    public static let maxPerOwner = 5

    /// Whether it receives notifications of this type.
    public func receives(_ type: String) -> Bool { types.isEmpty || types.contains(type) }
}

public struct NewWebhook: Sendable {
    public var id: UUID
    /// Whose notifications: nil for every user's.
    public var ownerId: Int64?
    public var createdBy: String
    public var url: String
    public var types: [String]
    public var secret: String
    public var createdAt: Date

    public init(id: UUID = UUID(), ownerId: Int64?, createdBy: String, url: String, types: [String], secret: String, createdAt: Date) {
        self.id = id
        self.ownerId = ownerId
        self.createdBy = createdBy
        self.url = url
        self.types = types
        self.secret = secret
        self.createdAt = createdAt
    }
}

/// What became of a registration.
public enum WebhookOutcome: Sendable, Equatable {
    case created(Webhook)
    /// The owner already has ``Webhook/maxPerOwner`` webhooks.
    case tooMany
}

/// A notification due to a webhook, with the user it is for.
public struct WebhookEvent: Sendable, Hashable {
    public var notification: UserNotification
    public var recipient: String

    package init(notification: UserNotification, recipient: String) {
        self.notification = notification
        self.recipient = recipient
    }
}

/// How one round of deliveries to a webhook ended.
public struct WebhookAttempt: Sendable {
    public var id: UUID
    /// The last notification id handled (delivered or skipped) in this round.
    public var through: Int64
    /// How many were delivered in this round.
    public var delivered: Int
    /// Why the round stopped early (nil: everything due was delivered).
    public var error: String?
    public var at: Date
    /// When to try again after a failure.
    public var nextAttemptAt: Date
    /// Whether the failure was one too many: the webhook stops until resumed.
    public var suspend: Bool

    public init(id: UUID, through: Int64, delivered: Int, error: String?, at: Date, nextAttemptAt: Date, suspend: Bool) {
        self.id = id
        self.through = through
        self.delivered = delivered
        self.error = error
        self.at = at
        self.nextAttemptAt = nextAttemptAt
        self.suspend = suspend
    }
}
