import Foundation
import IntakeService
import Testing

/// What every store must do with webhooks: start after the newest notification, hand out what is
/// due in order, let one round at a time hold a webhook, count failures, suspend and resume.
public enum WebhookStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func newWebhook(_ store: any RecordStore, owner: String?, types: [String] = [], by creator: String = "admin") async throws
        -> Webhook
    {
        var ownerId: Int64?
        if let owner { ownerId = try #require(try await store.credentials(username: owner)?.user).id }
        let outcome = try await store.createWebhook(
            NewWebhook(
                ownerId: ownerId, createdBy: creator, url: "http://127.0.0.1:9/hook", types: types, secret: "whsec_test", createdAt: start))
        guard case .created(let webhook) = outcome else { throw ContractFailure("not created: \(outcome)") }
        return webhook
    }

    static func announce(_ store: any RecordStore, _ text: String, at time: Date = start) async throws {
        _ = try await store.announce(teamId: nil, author: "admin", text: text, at: time)
    }

    public static func aWebhookGetsWhatHappensAfterItIsRegisteredInOrder(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await TeamStoreContract.setUp(store)
        try await announce(store, "before")
        let ana = try await newWebhook(store, owner: "ana", by: "ana")
        let everyone = try await newWebhook(store, owner: nil)
        #expect(ana.owner == "ana" && ana.ownerId != nil && ana.failures == 0 && !ana.suspended && ana.secret == "whsec_test")
        #expect(everyone.owner == nil && everyone.ownerId == nil)
        #expect(try await store.claimDueWebhooks(at: start, leaseUntil: start + 60, limit: 10).isEmpty, "nothing happened since")

        try await announce(store, "one")
        try await announce(store, "two")
        let claimed = try await store.claimDueWebhooks(at: start, leaseUntil: start + 60, limit: 10)
        #expect(Set(claimed.map(\.id)) == [ana.id, everyone.id])
        let toAna = try await store.pendingWebhookEvents(try #require(claimed.first { $0.id == ana.id }), limit: 10)
        #expect(toAna.map(\.recipient) == ["ana", "ana"])
        #expect(toAna.map { $0.notification.subject["text"] } == ["one", "two"], "oldest first")
        let toAll = try await store.pendingWebhookEvents(everyone, limit: 100)
        #expect(toAll.count == 6 && Set(toAll.map(\.recipient)) == ["lead", "ana", "rui"], "every user's, each with its recipient")
        #expect(try await store.webhookBacklog() == WebhookBacklog(webhooks: 2, events: 8), "what /metrics shows: ana's 2 and everyone's 6")
        #expect(toAll.map(\.notification.id) == toAll.map(\.notification.id).sorted())
        let firstPage = try await store.pendingWebhookEvents(everyone, limit: 4)
        #expect(firstPage == Array(toAll.prefix(4)))

        try await store.finishWebhookAttempt(
            WebhookAttempt(
                id: ana.id, through: toAna[1].notification.id, delivered: 2, error: nil, at: start, nextAttemptAt: start, suspend: false))
        let after = try #require(try await store.webhook(id: ana.id))
        #expect(after.deliveredThrough == toAna[1].notification.id && after.delivered == 2 && after.lastAttemptAt == start)
        #expect(try await store.pendingWebhookEvents(after, limit: 10).isEmpty)
        #expect(try await store.webhookBacklog() == WebhookBacklog(webhooks: 2, events: 6))

        // The cursor never goes back, whatever a late round reports.
        try await store.finishWebhookAttempt(
            WebhookAttempt(
                id: ana.id, through: toAna[0].notification.id, delivered: 0, error: nil, at: start, nextAttemptAt: start, suspend: false))
        #expect(try await store.webhook(id: ana.id)?.deliveredThrough == toAna[1].notification.id)
    }

    public static func aClaimedWebhookIsHeldUntilItsRoundEndsOrItsLeaseRunsOut(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await TeamStoreContract.setUp(store)
        let webhook = try await newWebhook(store, owner: "ana", by: "ana")
        try await announce(store, "one")
        #expect(try await store.claimDueWebhooks(at: start, leaseUntil: start + 60, limit: 10).map(\.id) == [webhook.id])
        #expect(try await store.claimDueWebhooks(at: start + 30, leaseUntil: start + 90, limit: 10).isEmpty, "held by the first round")
        #expect(
            try await store.claimDueWebhooks(at: start + 61, leaseUntil: start + 121, limit: 10).map(\.id) == [webhook.id],
            "a round that never finished lets go when its lease runs out")
        let pending = try await store.pendingWebhookEvents(webhook, limit: 10)
        try await store.finishWebhookAttempt(
            WebhookAttempt(
                id: webhook.id, through: pending[0].notification.id, delivered: 1, error: nil, at: start + 62, nextAttemptAt: start,
                suspend: false))
        #expect(try await store.claimDueWebhooks(at: start + 63, leaseUntil: start + 120, limit: 10).isEmpty, "nothing left to deliver")
        try await announce(store, "two", at: start + 64)
        #expect(
            try await store.claimDueWebhooks(at: start + 65, leaseUntil: start + 120, limit: 10).map(\.id) == [webhook.id],
            "finishing lets go")
    }

    public static func failuresAreCountedPostponedAndSuspendUntilResumed(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await TeamStoreContract.setUp(store)
        let webhook = try await newWebhook(store, owner: "ana", by: "ana")
        try await announce(store, "one")
        _ = try await store.claimDueWebhooks(at: start, leaseUntil: start + 60, limit: 10)
        try await store.finishWebhookAttempt(
            WebhookAttempt(
                id: webhook.id, through: webhook.deliveredThrough, delivered: 0, error: "HTTP 503", at: start, nextAttemptAt: start + 10,
                suspend: false))
        let failing = try #require(try await store.webhook(id: webhook.id))
        #expect(failing.failures == 1 && failing.lastError == "HTTP 503" && failing.nextAttemptAt == start + 10 && !failing.suspended)
        #expect(try await store.claimDueWebhooks(at: start + 5, leaseUntil: start + 65, limit: 10).isEmpty, "not before its next try")
        #expect(try await store.claimDueWebhooks(at: start + 10, leaseUntil: start + 70, limit: 10).map(\.id) == [webhook.id])
        try await store.finishWebhookAttempt(
            WebhookAttempt(
                id: webhook.id, through: webhook.deliveredThrough, delivered: 0, error: "no answer in time", at: start + 10,
                nextAttemptAt: start + 30, suspend: true))
        let suspended = try #require(try await store.webhook(id: webhook.id))
        #expect(suspended.failures == 2 && suspended.suspended && suspended.lastError == "no answer in time")
        #expect(try await store.claimDueWebhooks(at: start + 10_000, leaseUntil: start + 10_060, limit: 10).isEmpty, "suspended: never due")

        let resumed = try #require(try await store.resumeWebhook(id: webhook.id, at: start + 20_000))
        #expect(
            !resumed.suspended && resumed.failures == 0 && resumed.deliveredThrough == webhook.deliveredThrough, "from where it stopped")
        #expect(try await store.claimDueWebhooks(at: start + 20_000, leaseUntil: start + 20_060, limit: 10).map(\.id) == [webhook.id])
        try await store.finishWebhookAttempt(
            WebhookAttempt(
                id: webhook.id, through: webhook.deliveredThrough + 1, delivered: 1, error: nil, at: start + 20_001, nextAttemptAt: start,
                suspend: false))
        let healthy = try #require(try await store.webhook(id: webhook.id))
        #expect(healthy.failures == 0 && healthy.lastError == nil && healthy.delivered == 1)
        #expect(try await store.resumeWebhook(id: UUID(), at: start) == nil)
    }

    public static func webhooksAreListedByOwnerOrCreatorLimitedAndDeleted(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await TeamStoreContract.setUp(store)
        var ana: [Webhook] = []
        for _ in 0..<Webhook.maxPerOwner { ana.append(try await newWebhook(store, owner: "ana", by: "ana")) }
        let byAdmin = try await newWebhook(store, owner: "lead", by: "admin")
        let everyone = try await newWebhook(store, owner: nil, types: [NotificationType.announcement, NotificationType.referralReceived])
        let refused = try await store.createWebhook(
            NewWebhook(ownerId: ana[0].ownerId, createdBy: "ana", url: "http://127.0.0.1:9/x", types: [], secret: "s", createdAt: start))
        #expect(refused == .tooMany)
        #expect(everyone.types == [NotificationType.announcement, NotificationType.referralReceived])
        #expect(Set(try await store.webhooks(of: "ana").map(\.id)) == Set(ana.map(\.id)))
        #expect(try await store.webhooks(of: "lead").map(\.id) == [byAdmin.id], "owned")
        #expect(Set(try await store.webhooks(of: "admin").map(\.id)) == [byAdmin.id, everyone.id], "created")
        #expect(try await store.webhooks(of: nil).count == Webhook.maxPerOwner + 2)
        #expect(try await store.deleteWebhook(id: ana[0].id))
        #expect(try await !store.deleteWebhook(id: ana[0].id))
        #expect(try await store.webhook(id: ana[0].id) == nil)
        guard
            case .created = try await store.createWebhook(
                NewWebhook(ownerId: ana[0].ownerId, createdBy: "ana", url: "http://127.0.0.1:9/x", types: [], secret: "s", createdAt: start)
            )
        else {
            Issue.record("a freed place is usable")
            return
        }
    }

    public static func twoServersClaimingAtOnceNeverHoldTheSameWebhook(_ kind: some RecordStoreFactory) async throws {
        let (first, second, _) = try await TeamStoreContract.twoServers(kind)
        var webhooks: [UUID] = []
        for owner in ["lead", "ana", "rui"] {
            for _ in 0..<3 { webhooks.append(try await newWebhook(first, owner: owner, by: owner).id) }
        }
        try await announce(first, "one")
        let claims = try await withThrowingTaskGroup(of: [UUID].self) { group in
            for index in 0..<8 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask { try await store.claimDueWebhooks(at: start, leaseUntil: start + 60, limit: 2).map(\.id) }
            }
            return try await group.reduce(into: []) { $0.append(contentsOf: $1) }
        }
        #expect(claims.count == Set(claims).count, "a webhook claimed twice: \(claims)")
        #expect(Set(claims) == Set(webhooks), "each due webhook claimed once")
    }

    public static func webhooksRegisteredAtOnceNeverPassTheLimit(_ kind: some RecordStoreFactory) async throws {
        let (first, second, _) = try await TeamStoreContract.twoServers(kind)
        let ana = try #require(try await first.credentials(username: "ana")?.user)
        let outcomes = try await withThrowingTaskGroup(of: WebhookOutcome.self) { group in
            for index in 0..<(Webhook.maxPerOwner * 2) {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    try await store.createWebhook(
                        NewWebhook(
                            ownerId: ana.id, createdBy: "ana", url: "http://127.0.0.1:9/\(index)", types: [], secret: "s", createdAt: start)
                    )
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .tooMany }.count == Webhook.maxPerOwner)
        #expect(try await second.webhooks(of: "ana").count == Webhook.maxPerOwner)
    }
}

struct ContractFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
