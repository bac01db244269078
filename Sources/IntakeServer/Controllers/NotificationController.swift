import Foundation
import Hummingbird

/// The signed-in user's notification inbox: `/v1/notifications`, `/v1/notifications/counts`,
/// `/v1/notifications/read` and `/v1/notifications/{id}`.
struct NotificationController {
    let services: IntakeServices

    struct ReadBody: RequestBody {
        var ids: [Int64]?
        var all: Bool?
        static let fields: Set<String> = ["ids", "all"]
    }

    struct PageJSON: Encodable {
        var notifications: [NotificationJSON]
        /// Give as `after` for the next page; absent on the last.
        var next: Int64?
    }

    struct CountsJSON: Encodable {
        var unread: [String: Int]
        var total: Int
    }

    struct MarkedJSON: Encodable {
        var marked: Int
    }

    static let parameters = ["unread", "type", "after", "limit"]

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/notifications", query: Self.parameters) { request, context in
            let user = try context.require(Role.everyone)
            var query = NotificationQuery(userId: user.id)
            let parameters = try QueryParameters.read(request, accepted: Self.parameters)
            switch parameters["unread"] {
            case nil, "false": break
            case "true": query.unreadOnly = true
            default: throw APIError.badRequest("'unread' is true or false (written so); leave it out for false")
            }
            if let types = parameters["type"] {
                query.types = types.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard query.types.allSatisfy(NotificationType.all.contains) else {
                    throw APIError.badRequest("type is a comma-separated list of \(NotificationType.all.joined(separator: ", "))")
                }
            }
            if let after = parameters["after"] {
                guard after.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(after) else {
                    throw APIError.badRequest("'after' is a notification id (digits)")
                }
                query.after = value
            }
            if let limit = parameters["limit"] {
                guard limit.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(limit), (1...200).contains(value) else {
                    throw APIError.badRequest("limit must be from 1 to 200")
                }
                query.limit = value
            }
            let pageSize = query.limit
            query.limit += 1
            let found = try await services.teams.notifications(query)
            let page = Array(found.prefix(pageSize))
            return try JSONCoding.response(
                PageJSON(notifications: page.map(NotificationJSON.init), next: found.count > pageSize ? page.last?.id : nil))
        }
        routes.on(.get, "/v1/notifications/counts") { _, context in
            let user = try context.require(Role.everyone)
            let counts = try await services.teams.unreadCounts(of: user)
            return try JSONCoding.response(CountsJSON(unread: counts, total: counts.values.reduce(0, +)))
        }
        routes.on(.post, "/v1/notifications/read") { request, context in
            let user = try context.require(Role.everyone)
            let body = try JSONCoding.decode(
                ReadBody.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
            switch (body.ids, body.all) {
            case (let ids?, nil) where !ids.isEmpty && ids.count <= 1000 && ids.allSatisfy({ $0 >= 0 }):
                return try JSONCoding.response(MarkedJSON(marked: try await services.teams.markRead(ids, of: user)))
            case (nil, true?):
                return try JSONCoding.response(MarkedJSON(marked: try await services.teams.markRead(nil, of: user)))
            default:
                throw APIError(
                    .unprocessableContent, code: "invalid_request",
                    message: "give either ids (1 to 1000 notification ids) or all: true")
            }
        }
        routes.on(.delete, "/v1/notifications/{id}") { _, context in
            let user = try context.require(Role.everyone)
            let text = try context.parameters.require("id")
            guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let id = Int64(text) else {
                throw APIError.badRequest("a notification id is digits")
            }
            guard try await services.teams.delete(id, of: user) else { throw APIError.notFound("notification \(id)") }
            return Response(status: .noContent)
        }
    }
}

struct NotificationJSON: Encodable {
    var id: Int64
    var type: String
    var createdAt: Date
    var read: Bool
    var readAt: Date?
    var subject: [String: String]

    init(_ notification: UserNotification) {
        id = notification.id
        type = notification.type
        createdAt = notification.createdAt
        read = notification.readAt != nil
        readAt = notification.readAt
        subject = notification.subject
    }
}
