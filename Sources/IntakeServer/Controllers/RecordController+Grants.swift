import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// Grants: `POST`/`GET /v1/records/{id}/grants`, `DELETE /v1/records/{id}/grants/{grant}` (the
/// record's team's coordinators), and `GET /v1/grants` (what the caller was given).
extension RecordController {
    struct GrantBody: RequestBody {
        var toUser: String?
        var toTeam: String?
        var access: GrantAccess
        var expiresAt: String
        static let fields: Set<String> = ["toUser", "toTeam", "access", "expiresAt"]
    }

    /// The longest a grant may run.
    static let maxGrantDays = 366

    func registerGrants(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/records/{id}/grants") { request, context in
            let (user, team) = try context.member()
            let id = try Self.id(context)
            _ = try await services.access.record(id, for: .grant, by: user)
            let body = try JSONCoding.decode(
                GrantBody.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
            guard (body.toUser == nil) != (body.toTeam == nil) else {
                throw APIError(
                    .unprocessableContent, code: "invalid_grant",
                    message: "give either toUser or toTeam: a grant goes to one user or one team")
            }
            let now = services.configuration.clock()
            guard let expiresAt = Timestamp.date(from: body.expiresAt) else {
                throw APIError.badRequest("expiresAt is a time such as 2026-12-01T00:00:00Z")
            }
            guard expiresAt > now, expiresAt <= now.addingTimeInterval(Double(Self.maxGrantDays) * 86_400) else {
                throw APIError(
                    .unprocessableContent, code: "invalid_expiry",
                    message: "a grant expires in the future and within \(Self.maxGrantDays) days; give another expiresAt")
            }
            let grant = NewGrant(
                recordId: id, fromTeamId: team, toUser: body.toUser, toTeam: body.toTeam, access: body.access, expiresAt: expiresAt,
                grantedBy: user.username, grantedAt: now)
            switch try await services.access.createGrant(grant) {
            case .created(let stored): return try JSONCoding.response(GrantJSON(stored, now: now), status: .created)
            case .recordNotFound:
                throw try await services.access.missing(id, for: .grant, by: user)
            case .unknownUser(let name):
                throw APIError(.unprocessableContent, code: "unknown_user", message: "no user is named '\(name.prefix(64))'")
            case .unknownTeam(let name):
                throw APIError(.unprocessableContent, code: "unknown_team", message: "no team is named '\(name.prefix(100))'")
            case .alreadyInTeam(let name):
                throw APIError(
                    .unprocessableContent, code: "already_in_team",
                    message: "'\(name.prefix(64))' is in the record's team and sees it already; grants are for users and teams outside it")
            }
        }
        routes.on(.get, "/v1/records/{id}/grants") { _, context in
            let user = try context.signedIn()
            let id = try Self.id(context)
            _ = try await services.access.record(id, for: .grant, by: user)
            let now = services.configuration.clock()
            return try JSONCoding.response(["grants": try await services.access.grants(recordId: id).map { GrantJSON($0, now: now) }])
        }
        routes.on(.delete, "/v1/records/{id}/grants/{grant}") { _, context in
            let (user, team) = try context.member()
            let id = try Self.id(context)
            let text = try context.parameters.require("grant")
            guard let grantId = UUID(uuidString: text) else { throw APIError.badRequest("a grant id is a UUID") }
            _ = try await services.access.record(id, for: .grant, by: user)
            let now = services.configuration.clock()
            guard let revoked = try await services.access.revokeGrant(id: grantId, recordId: id, by: user.username) else {
                throw APIError.notFound("grant \(grantId.uuidString.lowercased()) of record \(Self.key(id))")
            }
            return try JSONCoding.response(GrantJSON(revoked, now: now))
        }
        routes.on(.get, "/v1/grants") { _, context in
            let user = try context.signedIn()
            let now = services.configuration.clock()
            let grants = try await services.access.grantsReceived(by: user)
            return try JSONCoding.response(["grants": grants.map { GrantJSON($0, now: now) }])
        }
    }
}

struct GrantJSON: Encodable {
    var id: String
    var recordId: String
    var toUser: String?
    var toTeam: String?
    var access: String
    var expiresAt: String
    var grantedBy: String
    var grantedAt: String
    var revokedAt: String?
    var revokedBy: String?
    /// Whether it gives access now.
    var active: Bool

    init(_ grant: RecordGrant, now: Date) {
        id = grant.id.uuidString.lowercased()
        recordId = grant.recordId.uuidString.lowercased()
        toUser = grant.toUser
        toTeam = grant.toTeam
        access = grant.access.rawValue
        expiresAt = Timestamp.string(from: grant.expiresAt)
        grantedBy = grant.grantedBy
        grantedAt = Timestamp.string(from: grant.grantedAt)
        revokedAt = grant.revokedAt.map(Timestamp.string(from:))
        revokedBy = grant.revokedBy
        active = grant.isActive(at: now)
    }
}
