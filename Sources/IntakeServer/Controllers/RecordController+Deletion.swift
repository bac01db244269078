import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// `DELETE /v1/records/{id}` (a coordinator of the record's team, with a reason) and
/// `POST /v1/tombstones/purge` (an admin): deleting records, and forgetting them for good.
extension RecordController {
    struct DeleteBody: RequestBody {
        var reason: String
        static let fields: Set<String> = ["reason"]
    }

    struct PurgeBody: RequestBody {
        var olderThanDays: Int
        static let fields: Set<String> = ["olderThanDays"]
    }

    static let maxReasonLength = 500

    func registerDeletion(_ routes: RouteRegistrar) {
        routes.on(.delete, "/v1/records/{id}") { request, context in
            let (user, team) = try context.member()
            let id = try Self.id(context)
            let body = try JSONCoding.decode(
                DeleteBody.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout)
            )
            let reason = body.reason.trimmingCharacters(in: .whitespacesAndNewlines)
            guard body.reason.hasVisibleCharacter, body.reason.unicodeScalars.count <= Self.maxReasonLength else {
                throw APIError(
                    .unprocessableContent, code: "invalid_reason",
                    message:
                        "a deletion needs a reason of 1 to \(Self.maxReasonLength) characters (why, not who: it is kept with the tombstone)"
                )
            }
            _ = try await services.access.record(id, for: .delete, by: user)
            switch try await services.records.delete(id, teamId: team, reason: reason, by: user.username) {
            case .deleted(let tombstone):
                return try JSONCoding.response(TombstoneJSON(tombstone))
            case .alreadyDeleted(let tombstone):
                throw ServiceError.deleted(tombstone)
            case .notFound:
                // Moved or deleted since the check.
                throw try await services.access.missing(id, for: .delete, by: user)
            }
        }
        routes.on(.post, "/v1/tombstones/purge") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(
                PurgeBody.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
            guard RecordService.tombstoneRetention.contains(body.olderThanDays) else {
                throw APIError(
                    .unprocessableContent, code: "invalid_retention",
                    message:
                        "olderThanDays is a whole number of days from 1 to 36500: tombstones of records deleted longer ago than that go")
            }
            let (purge, cutoff) = try await services.records.purgeTombstones(olderThanDays: body.olderThanDays, by: user.username)
            return try JSONCoding.response(
                PurgeJSON(purged: purge.purged, kept: purge.kept, deletedBefore: Timestamp.string(from: cutoff)))
        }
    }
}

struct TombstoneJSON: Encodable {
    var id: String
    var deletedAt: String
    var deletedBy: String
    var reason: String
    var revision: Int

    init(_ tombstone: Tombstone) {
        id = tombstone.recordId.uuidString.lowercased()
        deletedAt = Timestamp.string(from: tombstone.deletedAt)
        deletedBy = tombstone.deletedBy
        reason = tombstone.reason
        revision = tombstone.revision
    }
}

struct PurgeJSON: Encodable {
    var purged: Int
    var kept: Int
    var deletedBefore: String
}
