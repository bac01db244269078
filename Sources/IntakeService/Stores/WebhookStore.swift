import Foundation

/// Webhooks and the progress of their deliveries.
///
/// A delivery round claims a webhook for a while (a lease), so two servers on one database never
/// deliver the same notification to the same webhook at once; the webhook's cursor only moves
/// forward.
public protocol WebhookStore: Sendable {
    /// Stores a webhook that starts after the newest notification it would receive (it gets what
    /// happens from now on, not the past), unless its owner already has ``Webhook/maxPerOwner``.
    func createWebhook(_ webhook: NewWebhook) async throws -> WebhookOutcome
    func webhook(id: UUID) async throws -> Webhook?
    /// Webhooks owned or created by `username`, or every webhook when nil; oldest first.
    func webhooks(of username: String?) async throws -> [Webhook]
    /// False when there is no such webhook.
    func deleteWebhook(id: UUID) async throws -> Bool
    /// Starts a suspended (or failing) webhook again at once, from where it stopped.
    func resumeWebhook(id: UUID, at time: Date) async throws -> Webhook?
    /// Claims up to `limit` webhooks that are not suspended, are due at `time`, are not claimed
    /// by another round, and have notifications past their cursor; they stay claimed until
    /// `leaseUntil` or ``finishWebhookAttempt(_:)``.
    func claimDueWebhooks(at time: Date, leaseUntil: Date, limit: Int) async throws -> [Webhook]
    /// How many webhooks there are, and how many notifications wait past their cursors, all
    /// webhooks together (suspended ones included): the backlog `/metrics` shows.
    func webhookBacklog() async throws -> WebhookBacklog
    /// The notifications past a webhook's cursor that it would receive (any type), oldest first.
    func pendingWebhookEvents(_ webhook: Webhook, limit: Int) async throws -> [WebhookEvent]
    /// Records a round: moves the cursor forward (never back), counts deliveries, and either
    /// clears the failures or counts one and schedules the next try; releases the claim.
    func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws
}

/// Webhooks and the notifications waiting for them.
public struct WebhookBacklog: Sendable, Equatable {
    public var webhooks: Int
    public var events: Int

    public init(webhooks: Int, events: Int) {
        self.webhooks = webhooks
        self.events = events
    }
}
