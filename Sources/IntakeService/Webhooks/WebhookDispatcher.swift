import Foundation
import IntakeCore
import Logging

/// How webhooks are delivered and retried.
public struct WebhookSettings: Sendable {
    /// The wait after the first failure; it doubles with each further failure, up to an hour.
    public var retryBase: Duration = .seconds(10)
    /// Failures in a row after which a webhook is suspended.
    public var maxFailures = 12
    /// How long a receiver has to answer one delivery.
    public var timeout: Duration = .seconds(10)
    /// Where webhooks may deliver.
    public var addresses = WebhookAddressPolicy()

    public init() {}

    /// The wait before the next try after `failures` failures in a row (with up to a tenth more,
    /// at random, so that webhooks that failed together do not retry together).
    public func delay(afterFailures failures: Int) -> TimeInterval {
        let base = Double(retryBase.components.seconds) + Double(retryBase.components.attoseconds) / 1e18
        let plain = min(base * pow(2, Double(max(0, failures - 1))), 3600)
        return plain * Double.random(in: 1...1.1)
    }
}

/// Delivers notifications to webhooks: wakes when this server stores notifications (and at least
/// every poll interval, for those another server stored or retries that fall due), claims the
/// webhooks that have something due, and sends each its notifications in order, one at a time,
/// until one fails.
///
/// Each delivery is a JSON POST of the notification's id, type, time, recipient and subject (ids
/// and names; an announcement's text is left out), signed per ``WebhookSignature``. A receiver
/// may see a notification twice (a round cut off before it was recorded): `Intake-Delivery`
/// (the notification id) lets it drop repeats.
public struct WebhookDispatcher: Sendable {
    let store: any WebhookStore
    let hub: NotificationHub
    let settings: WebhookSettings
    let clock: @Sendable () -> Date
    let poster: WebhookPoster
    let logger: Logger
    /// How long a round may hold a webhook before another server may take it.
    static let lease: TimeInterval = 120
    static let pageSize = 50

    public init(
        store: any WebhookStore, hub: NotificationHub, settings: WebhookSettings, clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger
    ) {
        self.store = store
        self.hub = hub
        self.settings = settings
        self.clock = clock
        self.poster = WebhookPoster(timeout: settings.timeout)
        self.logger = logger
    }

    /// Delivers until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            let seen = hub.generation
            do {
                _ = try await deliverDue()
            } catch {
                logger.warning("could not read webhooks", metadata: ["error.type": "\(type(of: error))"])
            }
            await hub.wait(after: seen, timeout: hub.pollInterval)
        }
    }

    /// One pass over the webhooks due now, delivered to concurrently; how many notifications
    /// were delivered.
    @discardableResult
    public func deliverDue() async throws -> Int {
        let now = clock()
        let claimed = try await store.claimDueWebhooks(at: now, leaseUntil: now.addingTimeInterval(Self.lease), limit: 16)
        return await withTaskGroup(of: Int.self) { group in
            for webhook in claimed { group.addTask { await deliver(to: webhook) } }
            return await group.reduce(0, +)
        }
    }

    private func deliver(to webhook: Webhook) async -> Int {
        guard let url = URL(string: webhook.url) else { return 0 }
        var cursor = webhook
        var delivered = 0
        var failure: String?
        let started = ContinuousClock.now
        rounds: while ContinuousClock.now - started < .seconds(Self.lease / 2) {
            let events: [WebhookEvent]
            do {
                events = try await store.pendingWebhookEvents(cursor, limit: Self.pageSize)
            } catch {
                logger.warning("could not read a webhook's notifications", metadata: ["error.type": "\(type(of: error))"])
                break
            }
            guard !events.isEmpty else { break }
            for event in events {
                if webhook.receives(event.notification.type) {
                    let body = Self.payload(event, webhook: webhook.id)
                    let at = clock()
                    let headers = [
                        "Content-Type": "application/json",
                        "User-Agent": "Intake-Webhook/1",
                        "Intake-Webhook-Id": webhook.id.uuidString.lowercased(),
                        "Intake-Delivery": String(event.notification.id),
                        WebhookSignature.header: WebhookSignature.sign(body, secret: webhook.secret, at: at),
                    ]
                    if let error = await poster.post(body, to: url, headers: headers) {
                        failure = error
                        break rounds
                    }
                    delivered += 1
                }
                cursor.deliveredThrough = event.notification.id
            }
        }
        let failures = failure == nil ? 0 : webhook.failures + 1
        let now = clock()
        let attempt = WebhookAttempt(
            id: webhook.id, through: cursor.deliveredThrough, delivered: delivered, error: failure, at: now,
            nextAttemptAt: now.addingTimeInterval(settings.delay(afterFailures: failures)), suspend: failures >= settings.maxFailures)
        do {
            try await store.finishWebhookAttempt(attempt)
        } catch {
            logger.warning("could not record a webhook delivery", metadata: ["error.type": "\(type(of: error))"])
        }
        if let failure {
            logger.notice(
                attempt.suspend ? "webhook suspended after repeated failures" : "webhook delivery failed",
                metadata: ["webhook": "\(webhook.id)", "failures": "\(failures)", "error": "\(failure)"])
        }
        return delivered
    }

    /// The body of one delivery: no patient data (notifications hold none) and no announcement text.
    static func payload(_ event: WebhookEvent, webhook: UUID) -> Data {
        let notification = event.notification
        var subject = notification.subject
        subject.removeValue(forKey: "text")
        let object: [String: Any] = [
            "webhook": webhook.uuidString.lowercased(),
            "notification": [
                "id": notification.id, "type": notification.type, "createdAt": Timestamp.string(from: notification.createdAt),
                "recipient": event.recipient, "subject": subject,
            ] as [String: Any],
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}
