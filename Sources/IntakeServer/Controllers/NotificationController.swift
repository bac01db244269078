import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore
import IntakeService
import ServiceLifecycle
import Synchronization

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
        /// Give as `after` for the next page (as `before` when the newest come first); absent on the last.
        var next: Int64?
    }

    struct CountsJSON: Encodable {
        var unread: [String: Int]
        var total: Int
    }

    struct MarkedJSON: Encodable {
        var marked: Int
    }

    static let parameters = ["unread", "type", "after", "before", "order", "limit", "wait"]

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/notifications", query: Self.parameters) { request, context in
            let user = try context.signedIn()
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
            if let before = parameters["before"] {
                guard before.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(before) else {
                    throw APIError.badRequest("'before' is a notification id (digits)")
                }
                query.before = value
            }
            switch parameters["order"] {
            case nil, "oldest": break
            case "newest": query.newestFirst = true
            default: throw APIError.badRequest("'order' is newest (a person's inbox) or oldest (the default, to catch up after an id)")
            }
            if let limit = parameters["limit"] {
                guard limit.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(limit), (1...200).contains(value) else {
                    throw APIError.badRequest("limit must be from 1 to 200")
                }
                query.limit = value
            }
            var wait: Duration?
            if let text = parameters["wait"] {
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let seconds = Int(text), (1...300).contains(seconds) else {
                    throw APIError.badRequest("wait is a number of seconds from 1 to 300")
                }
                // In either order: with nothing matching yet, the answer waits for the first that does.
                wait = min(.seconds(seconds), services.configuration.longPollLimit)
            }
            let pageSize = query.limit
            query.limit += 1
            let found: [UserNotification]
            if let wait {
                let stopping = ShutdownSignal(hub: services.teams.hub)
                found = try await withGracefulShutdownHandler {
                    try await services.teams.notifications(query, waitingUpTo: wait, until: stopping.isRaised)
                } onGracefulShutdown: {
                    stopping.raise()
                }
            } else {
                found = try await services.teams.notifications(query)
            }
            let page = Array(found.prefix(pageSize))
            return try JSONCoding.response(
                PageJSON(notifications: page.map(NotificationJSON.init), next: found.count > pageSize ? page.last?.id : nil))
        }
        routes.on(.get, "/v1/notifications/stream", query: ["after"]) { request, context in
            let user = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: ["after"])
            // Where to resume: the last event the client saw (its Last-Event-ID), or `after`.
            var after: Int64 = 0
            for text in [parameters["after"], request.headers[Self.lastEventID]].compactMap({ $0 }) {
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(text) else {
                    throw APIError.badRequest("Last-Event-ID and after are notification ids (digits)")
                }
                after = max(after, value)
            }
            return services.notificationEvents(for: user, after: after)
        }
        routes.on(.get, "/v1/notifications/counts") { _, context in
            let user = try context.signedIn()
            let counts = try await services.teams.unreadCounts(of: user)
            return try JSONCoding.response(CountsJSON(unread: counts, total: counts.values.reduce(0, +)))
        }
        routes.on(.post, "/v1/notifications/read") { request, context in
            let user = try context.signedIn()
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
            let user = try context.signedIn()
            let text = try context.parameters.require("id")
            guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let id = Int64(text) else {
                throw APIError.badRequest("a notification id is digits")
            }
            guard try await services.teams.delete(id, of: user) else { throw APIError.notFound("notification \(id)") }
            return Response(status: .noContent)
        }
    }
}

extension NotificationController {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}

extension IntakeServices {
    /// `user`'s notifications after `after` as Server-Sent Events, then each new one as it is
    /// stored (``NotificationStream``): the API's stream, and the console's.
    public func notificationEvents(for user: User, after: Int64) -> Response {
        let stream = NotificationStream(teams: teams, userId: user.id, after: after, lifetime: configuration.streamLifetime)
        let hub = teams.hub
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                // A server shutting down ends its streams (the clients reconnect elsewhere or later)
                // rather than wait for them to run out.
                let stopping = ShutdownSignal(hub: hub)
                try await withGracefulShutdownHandler {
                    try await stream.run(until: stopping) { text in try await writer.write(ByteBuffer(string: text)) }
                } onGracefulShutdown: {
                    stopping.raise()
                }
                try await writer.finish(nil)
            })
    }
}

/// One user's notifications as Server-Sent Events: each as `id`, `event` (its type) and `data`
/// (its JSON), in id order from where the client left off, then each new one as it is stored,
/// with a comment every 15 seconds to keep the connection open. Runs until the client goes.
struct NotificationStream: Sendable {
    let teams: TeamService
    let userId: Int64
    let after: Int64
    /// When the server ends the stream (the client reconnects).
    let lifetime: Duration
    static let keepAlive: Duration = .seconds(15)

    func run(until stopping: ShutdownSignal, write: (String) async throws -> Void) async throws {
        try await write("retry: 2000\n\n")
        var after = after
        var lastWrite = ContinuousClock.now
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
        let end = ContinuousClock.now + lifetime
        while !Task.isCancelled, !stopping.isRaised(), ContinuousClock.now < end {
            let seen = teams.hub.generation
            let found = try await teams.notifications(NotificationQuery(userId: userId, after: after, limit: 200))
            for notification in found {
                let data = String(decoding: try encoder.encode(NotificationJSON(notification)), as: UTF8.self)
                try await write("id: \(notification.id)\nevent: \(notification.type)\ndata: \(data)\n\n")
                after = notification.id
                lastWrite = ContinuousClock.now
            }
            if found.count == 200 { continue }
            if ContinuousClock.now - lastWrite >= Self.keepAlive {
                try await write(": keep-alive\n\n")
                lastWrite = ContinuousClock.now
            }
            let left = end - ContinuousClock.now
            guard left > .zero else { break }
            await teams.hub.wait(after: seen, timeout: min(teams.hub.pollInterval, Self.keepAlive, left))
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

/// Raised when the server starts shutting down: long polls and event streams stop waiting.
final class ShutdownSignal: Sendable {
    private let raised = Atomic(false)
    private let hub: NotificationHub

    init(hub: NotificationHub) {
        self.hub = hub
    }

    @Sendable func isRaised() -> Bool { raised.load(ordering: .acquiring) }

    /// Stops the waits: they look at ``isRaised()`` when the hub wakes them.
    func raise() {
        raised.store(true, ordering: .releasing)
        hub.notify()
    }
}
