import Foundation
import Hummingbird
import IntakeService

/// Webhooks: `POST /v1/webhooks`, `GET /v1/webhooks`, `GET /v1/webhooks/{id}`,
/// `DELETE /v1/webhooks/{id}`, `POST /v1/webhooks/{id}/resume`.
struct WebhookController {
    let services: IntakeServices

    struct NewWebhookBody: RequestBody {
        var url: String
        var types: [String]?
        /// Another user's notifications (admins only).
        var user: String?
        /// Every user's notifications (admins only).
        var allUsers: Bool?
        static let fields: Set<String> = ["url", "types", "user", "allUsers"]
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/webhooks") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(
                NewWebhookBody.self,
                from: try await JSONCoding.body(of: request, limit: 16 * 1024, timeout: services.configuration.bodyTimeout))
            let target: WebhookService.Target
            switch (body.user, body.allUsers ?? false) {
            case (nil, false): target = .me
            case (let name?, false): target = .user(name)
            case (nil, true): target = .everyone
            case (_?, true): throw APIError(.unprocessableContent, code: "invalid_request", message: "give user or allUsers, not both")
            }
            let webhook = try await services.webhooks.register(url: body.url, types: body.types ?? [], for: target, by: user)
            var json = WebhookJSON(webhook)
            json.secret = webhook.secret
            return try JSONCoding.response(json, status: .created)
        }
        routes.on(.get, "/v1/webhooks") { _, context in
            let user = try context.signedIn()
            return try JSONCoding.response(["webhooks": try await services.webhooks.webhooks(for: user).map(WebhookJSON.init)])
        }
        routes.on(.get, "/v1/webhooks/{id}") { _, context in
            let user = try context.signedIn()
            return try JSONCoding.response(WebhookJSON(try await services.webhooks.webhook(try context.pathID(of: "a webhook"), for: user)))
        }
        routes.on(.delete, "/v1/webhooks/{id}") { _, context in
            let user = try context.signedIn()
            try await services.webhooks.delete(try context.pathID(of: "a webhook"), by: user)
            return Response(status: .noContent)
        }
        routes.on(.post, "/v1/webhooks/{id}/resume") { _, context in
            let user = try context.signedIn()
            return try JSONCoding.response(WebhookJSON(try await services.webhooks.resume(try context.pathID(of: "a webhook"), by: user)))
        }
    }
}

/// A webhook as the API shows it: never its secret, except once in the answer that created it.
struct WebhookJSON: Encodable {
    var id: String
    var url: String
    /// The user whose notifications it receives; absent for every user's.
    var user: String?
    var allUsers: Bool
    var types: [String]
    var createdBy: String
    var createdAt: Date
    var state: String
    var delivered: Int
    var deliveredThrough: Int64
    var failures: Int
    var lastError: String?
    var lastAttemptAt: Date?
    var nextAttemptAt: Date?
    var secret: String?

    init(_ webhook: Webhook) {
        id = webhook.id.uuidString.lowercased()
        url = webhook.url
        user = webhook.owner
        allUsers = webhook.ownerId == nil
        types = webhook.types
        createdBy = webhook.createdBy
        createdAt = webhook.createdAt
        state = webhook.suspended ? "suspended" : webhook.failures > 0 ? "failing" : "active"
        delivered = webhook.delivered
        deliveredThrough = webhook.deliveredThrough
        failures = webhook.failures
        lastError = webhook.lastError
        lastAttemptAt = webhook.lastAttemptAt
        nextAttemptAt = webhook.failures > 0 && !webhook.suspended ? webhook.nextAttemptAt : nil
    }
}
