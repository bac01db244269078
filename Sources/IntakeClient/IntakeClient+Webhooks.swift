import Foundation

/// A webhook as the server shows it.
public struct RemoteWebhook: Sendable, Decodable, Equatable {
    public var id: String
    public var url: String
    public var user: String?
    public var allUsers: Bool
    public var types: [String]
    public var createdBy: String
    public var state: String
    public var delivered: Int
    public var failures: Int
    public var lastError: String?
    public var nextAttemptAt: String?
    /// Only in the answer that registered it.
    public var secret: String?
}

/// Webhooks: where the server POSTs notifications for people who are not at a terminal.
extension IntakeClient {
    /// Registers `url` for your notifications (or, as an admin, another user's or everyone's);
    /// the answer holds the signing secret, which the server shows only this once.
    public func registerWebhook(_ url: String, types: [String], user: String?, allUsers: Bool) async throws(ClientError) -> RemoteWebhook {
        struct Body: Encodable {
            var url: String
            var types: [String]?
            var user: String?
            var allUsers: Bool?
        }
        return try await call(
            "POST", "/v1/webhooks", body: Body(url: url, types: types.isEmpty ? nil : types, user: user, allUsers: allUsers ? true : nil),
            expecting: 201, as: RemoteWebhook.self)
    }

    public func webhooks() async throws(ClientError) -> [RemoteWebhook] {
        struct Answer: Decodable { var webhooks: [RemoteWebhook] }
        return try await call("GET", "/v1/webhooks", expecting: 200, as: Answer.self).webhooks
    }

    public func removeWebhook(_ id: String) async throws(ClientError) {
        let (status, data) = try await send("DELETE", "/v1/webhooks/\(Self.segment(id))", body: nil)
        guard status == 204 else { throw ClientError.from(status: status, data: data) }
    }

    public func resumeWebhook(_ id: String) async throws(ClientError) -> RemoteWebhook {
        try await call("POST", "/v1/webhooks/\(Self.segment(id))/resume", expecting: 200, as: RemoteWebhook.self)
    }
}
