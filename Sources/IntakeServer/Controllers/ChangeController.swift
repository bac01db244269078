import Foundation
import Hummingbird
import IntakeCore
import IntakeService
import ServiceLifecycle

/// The team's change feed, for field workers' synced copies: `GET /v1/changes?since=&limit=&wait=`
/// pages through every record of the caller's team changed after a cursor (saved as it is now, or
/// deleted), and `GET /v1/changes/stream` sends the same as Server-Sent Events as they happen.
struct ChangeController {
    let services: IntakeServices
    static let maxPage = 500

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/changes", query: ["since", "limit", "wait"]) { request, context in
            let (user, team) = try context.member()
            let parameters = try QueryParameters.read(request, accepted: ["since", "limit", "wait"])
            let since = try parameters["since"].map { try Self.cursor($0, "since") } ?? 0
            var limit = 200
            if let text = parameters["limit"] {
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text), (1...Self.maxPage).contains(value) else {
                    throw APIError.badRequest("limit is a number of changes from 1 to \(Self.maxPage)")
                }
                limit = value
            }
            var wait: Duration?
            if let text = parameters["wait"] {
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let seconds = Int(text), (1...300).contains(seconds) else {
                    throw APIError.badRequest("wait is a number of seconds from 1 to 300")
                }
                wait = min(.seconds(seconds), services.configuration.longPollLimit)
            }
            var (page, reset) = try await read(team: team, since: since, limit: limit + 1)
            if page.changes.isEmpty, let wait {
                // Nothing new: hold the request until a change is saved here, the poll interval
                // finds one saved elsewhere, or the wait runs out.
                let stopping = ShutdownSignal(hub: services.records.changes)
                let end = ContinuousClock.now + wait
                try await withGracefulShutdownHandler {
                    while page.changes.isEmpty, !stopping.isRaised(), ContinuousClock.now < end, !Task.isCancelled {
                        let seen = services.records.changes.generation
                        (page, reset) = try await read(team: team, since: since, limit: limit + 1)
                        guard page.changes.isEmpty else { break }
                        await services.records.changes.wait(
                            after: seen, timeout: min(services.records.changes.pollInterval, end - ContinuousClock.now))
                    }
                } onGracefulShutdown: {
                    stopping.raise()
                }
            }
            // What the reader may see, read after the page: a questionnaire made collector-only
            // while the request waited never shows another's record.
            let reach = Reach(user: user, hidden: try await services.access.collectorOnly(for: user))
            let more = page.changes.count > limit
            let changes = page.changes.prefix(limit)
            var writer = JSONWriter(capacity: 256 + changes.count * 2048)
            writer.beginObject()
            writer.key("changes")
            writer.beginArray()
            for change in changes { Self.write(change, reach: reach, into: &writer) }
            writer.endArray()
            writer.key("cursor")
            writer.string(String(changes.last?.cursor ?? (reset ? 0 : since)))
            writer.key("more")
            writer.bool(more)
            writer.key("reset")
            writer.bool(reset)
            writer.key("team")
            writer.string(user.teamName ?? "")
            writer.endObject()
            return JSONCoding.response(json: writer.bytes)
        }
        routes.on(.get, "/v1/changes/stream", query: ["since"]) { request, context in
            let (user, team) = try context.member()
            let parameters = try QueryParameters.read(request, accepted: ["since"])
            // Where to resume: the last event the client saw (its Last-Event-ID), or `since`.
            var since: Int64 = 0
            for (text, name) in [(parameters["since"], "since"), (request.headers[NotificationController.lastEventID], "Last-Event-ID")] {
                guard let text else { continue }
                since = max(since, try Self.cursor(text, name))
            }
            let start = since
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    let stopping = ShutdownSignal(hub: services.records.changes)
                    try await withGracefulShutdownHandler {
                        try await stream(team: team, since: start, user: user, until: stopping) { text in
                            try await writer.write(ByteBuffer(string: text))
                        }
                    } onGracefulShutdown: {
                        stopping.raise()
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// A page after `since`; from the start, with `reset`, when deletions after `since` may have been purged.
    private func read(team: Int64, since: Int64, limit: Int) async throws -> (ChangePage, reset: Bool) {
        let page = try await services.records.changes(teamId: team, after: since, limit: limit)
        guard since > 0, since < page.horizon else { return (page, false) }
        return (try await services.records.changes(teamId: team, after: 0, limit: limit), true)
    }

    /// Each change as an event (`record` or `deleted`, its cursor as id); `reset` first when the
    /// reader must drop its copy and start again. A comment every 15 s keeps the connection open;
    /// the server ends the stream after its lifetime (the client reconnects with Last-Event-ID).
    private func stream(team: Int64, since: Int64, user: User, until stopping: ShutdownSignal, write: (String) async throws -> Void)
        async throws
    {
        try await write("retry: 2000\n\n")
        let hub = services.records.changes
        var since = since
        var lastWrite = ContinuousClock.now
        let end = ContinuousClock.now + services.configuration.streamLifetime
        while !Task.isCancelled, !stopping.isRaised(), ContinuousClock.now < end {
            let seen = hub.generation
            let (page, reset) = try await read(team: team, since: since, limit: 200)
            // Read after each page, so a flip to collector-only shows at once.
            let reach = Reach(user: user, hidden: try await services.access.collectorOnly(for: user))
            if reset { try await write("event: reset\ndata: {}\n\n") }
            for change in page.changes {
                var writer = JSONWriter()
                let type = Self.write(change, reach: reach, into: &writer)
                try await write("id: \(change.cursor)\nevent: \(type)\ndata: \(String(decoding: writer.bytes, as: UTF8.self))\n\n")
                since = change.cursor
                lastWrite = ContinuousClock.now
            }
            if page.changes.count == 200 { continue }
            if ContinuousClock.now - lastWrite >= NotificationStream.keepAlive {
                try await write(": keep-alive\n\n")
                lastWrite = ContinuousClock.now
            }
            let left = end - ContinuousClock.now
            guard left > .zero else { break }
            await hub.wait(after: seen, timeout: min(hub.pollInterval, NotificationStream.keepAlive, left))
        }
    }

    static func cursor(_ text: String, _ name: String) throws -> Int64 {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int64(text) else {
            throw APIError.badRequest("\(name) is a change cursor (digits), as the last page or event gave it; 0 or nothing for the start")
        }
        return value
    }

    /// What a reader may see of the team's records: all but the collector-only questionnaires'
    /// records that another field worker collected.
    struct Reach: Sendable {
        var user: User
        var hidden: Set<String>

        func sees(_ stored: StoredRecord) -> Bool {
            RecordAccessPolicy.sees(user, collectorOnly: hidden.contains(stored.record.questionnaire.id), collector: stored.collector)
        }
    }

    /// `{"type": "record", "id", "cursor", "revision", "receivedBy", "receivedAt", "updatedAt", "record"}`,
    /// `{"type": "deleted", "id", "cursor", "deletedAt", "deletedBy"}` (the reason stays on the server),
    /// or `{"type": "removed", "id", "cursor", "reason": "out_of_reach" | "transferred"}` for a record
    /// the reader may not see, or that moved to another team (any copy of it must go). Returns the type.
    @discardableResult
    static func write(_ change: RecordChange, reach: Reach, into writer: inout JSONWriter) -> String {
        writer.beginObject()
        writer.key("cursor")
        writer.string(String(change.cursor))
        writer.key("id")
        writer.string(change.id.uuidString.lowercased())
        defer { writer.endObject() }
        switch change.kind {
        case .saved(let stored) where !reach.sees(stored):
            writer.key("reason")
            writer.string("out_of_reach")
            writer.key("type")
            writer.string("removed")
            return "removed"
        case .transferred:
            writer.key("reason")
            writer.string("transferred")
            writer.key("type")
            writer.string("removed")
            return "removed"
        case .saved(let stored):
            StoredRecordJSON.writeMembers(stored, type: "record", into: &writer)
            return "record"
        case .deleted(let tombstone):
            writer.key("deletedAt")
            writer.string(Timestamp.string(from: tombstone.deletedAt))
            writer.key("deletedBy")
            writer.string(tombstone.deletedBy)
            writer.key("type")
            writer.string("deleted")
            return "deleted"
        }
    }
}
