import Foundation
import IntakeCore

/// A page of the team's change feed.
public struct RemoteChangePage: Sendable {
    public enum Change: Sendable {
        case record(PatientResponse, revision: Int, cursor: Int64, updatedAt: Date)
        case deleted(UUID, cursor: Int64)
    }

    public var changes: [Change]
    public var cursor: Int64
    public var more: Bool
    /// Drop the copy: what follows starts from the beginning.
    public var reset: Bool
    public var team: String
}

/// The change feed, for the synced copy.
extension IntakeClient {
    /// The team's records changed after `since`, up to `limit`; with `wait`, held up to that many
    /// seconds for a change when there is none.
    public func changes(since: Int64, limit: Int = 200, wait: Int? = nil) async throws(ClientError) -> RemoteChangePage {
        var path = "/v1/changes?since=\(since)&limit=\(limit)"
        if let wait { path += "&wait=\(wait)" }
        let (status, data) = try await send("GET", path, body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        do {
            return try ChangePageReader.read(data)
        } catch {
            throw ClientError.unexpected("the server's changes could not be read: \(error)")
        }
    }
}

enum ChangePageReader {
    static func read(_ data: Data) throws(JSONReadError) -> RemoteChangePage {
        try JSONReader.document(data) { reader throws(JSONReadError) in
            var page = RemoteChangePage(changes: [], cursor: 0, more: false, reset: false, team: "")
            var sawCursor = false
            try reader.object { key, reader throws(JSONReadError) in
                switch key {
                case "changes":
                    try reader.array { _, reader throws(JSONReadError) in page.changes.append(try change(&reader)) }
                case "cursor":
                    guard let cursor = Int64(try reader.string()) else { throw reader.error("the cursor is not a number") }
                    page.cursor = cursor
                    sawCursor = true
                case "more": page.more = try reader.bool()
                case "reset": page.reset = try reader.bool()
                case "team": page.team = try reader.string()
                default: _ = try reader.skipValue()
                }
            }
            guard sawCursor else { throw reader.error("the answer has no cursor", at: 0) }
            return page
        }
    }

    private static func change(_ reader: inout JSONReader) throws(JSONReadError) -> RemoteChangePage.Change {
        var type: String?
        var id: UUID?
        var cursor: Int64?
        var record: PatientResponse?
        var revision: Int?
        var updatedAt: Date?
        try reader.object { key, reader throws(JSONReadError) in
            switch key {
            case "type": type = try reader.string()
            case "id": id = UUID(uuidString: try reader.string())
            case "cursor": cursor = Int64(try reader.string())
            case "record": record = try RecordCodec.read(&reader)
            case "revision": revision = try reader.integer()
            case "updatedAt": updatedAt = Timestamp.date(from: try reader.string())
            default: _ = try reader.skipValue()
            }
        }
        switch (type, id, cursor) {
        case ("deleted", let id?, let cursor?), ("removed", let id?, let cursor?):
            // Deleted, or out of the reader's reach: either way the copy drops it.
            return .deleted(id, cursor: cursor)
        case ("record", _, let cursor?):
            guard let record, let revision else { throw reader.error("a record change lacks its record or revision") }
            return .record(record, revision: revision, cursor: cursor, updatedAt: updatedAt ?? Date())
        default:
            throw reader.error("a change is not a record or a deletion with an id and a cursor")
        }
    }
}
