import Foundation
import Hummingbird
import IntakeService

/// A team run by its coordinators: `/v1/teams/{team}/members`, `/v1/teams/{team}/history`,
/// `/v1/teams/{team}/invitations` and `/v1/invitations`.
struct TeamController {
    let services: IntakeServices

    struct RolePatch: RequestBody {
        var role: Role
        static let fields: Set<String> = ["role"]
    }

    struct NewInvitationBody: RequestBody {
        var username: String
        var role: Role?
        var expiresInDays: Int?
        var message: String?
        static let fields: Set<String> = ["username", "role", "expiresInDays", "message"]
    }

    struct TeamPatch: RequestBody {
        var timeZone: String?
        static let fields: Set<String> = ["timeZone"]
        static let nullable: Set<String> = ["timeZone"]
    }

    struct PasscodeBody: RequestBody {
        var passcode: String
        static let fields: Set<String> = ["passcode"]
    }

    struct AnnouncementBody: RequestBody {
        var text: String
        var team: String?
        static let fields: Set<String> = ["text", "team"]
    }

    struct AnnouncementJSON: Encodable {
        var id: Int64
        var team: String?
        var recipients: Int
        var createdAt: Date
    }

    struct IssuedJSON: Encodable {
        var invitation: InvitationJSON
        /// Shown this once: pass it on to the invitee out of band.
        var passcode: String
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/teams/{team}/members") { _, context in
            let team = try await managed(context)
            return try JSONCoding.response(
                MembersJSON(team: team.name, members: try await services.teams.members(of: team).map(MemberJSON.init)))
        }
        routes.on(.get, "/v1/teams/{team}/referrals") { _, context in
            let team = try await managed(context)
            let csv = try await services.referrals.exportCSV(of: team)
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"referrals.csv\"",
                    .cacheControl: "no-store",
                ],
                body: ResponseBody(byteBuffer: ByteBuffer(string: csv)))
        }
        routes.on(.patch, "/v1/teams/{team}") { request, context in
            let team = try await managed(context)
            let data = try await small(request)
            let body = try JSONCoding.decode(TeamPatch.self, from: data)
            guard JSONCoding.hasField("timeZone", in: data) else {
                throw APIError(
                    .unprocessableContent, code: "invalid_request",
                    message: "give timeZone: an IANA name such as Asia/Amman, or null for UTC")
            }
            return try JSONCoding.response(
                TeamJSON(try await services.teams.setTimeZone(body.timeZone, of: team, by: try context.signedIn())))
        }
        routes.on(.get, "/v1/teams/{team}/history") { _, context in
            let team = try await managed(context)
            return try JSONCoding.response(
                HistoryJSON(team: team.name, events: try await services.teams.history(of: team).map(MembershipEventJSON.init)))
        }
        routes.on(.patch, "/v1/teams/{team}/members/{username}") { request, context in
            let team = try await managed(context)
            let body = try JSONCoding.decode(RolePatch.self, from: try await small(request))
            let user = try context.signedIn()
            let member = try await services.teams.changeRole(
                in: team, of: try context.parameters.require("username"), to: body.role, by: user)
            return try JSONCoding.response(MemberJSON(member))
        }
        routes.on(.delete, "/v1/teams/{team}/members/{username}") { _, context in
            let team = try await managed(context)
            let user = try context.signedIn()
            try await services.teams.remove(try context.parameters.require("username"), from: team, by: user)
            return Response(status: .noContent)
        }
        routes.on(.post, "/v1/teams/{team}/invitations") { request, context in
            let team = try await managed(context)
            let body = try JSONCoding.decode(NewInvitationBody.self, from: try await small(request))
            let issued = try await services.teams.invite(
                body.username, to: team, role: body.role ?? .fieldworker, days: body.expiresInDays, message: body.message,
                by: try context.signedIn())
            return try JSONCoding.response(
                IssuedJSON(invitation: InvitationJSON(issued.invitation, now: Date()), passcode: issued.passcode), status: .created)
        }
        routes.on(.post, "/v1/announcements") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(AnnouncementBody.self, from: try await small(request))
            let (announcement, team) = try await services.teams.announce(body.text, to: body.team, by: user)
            return try JSONCoding.response(
                AnnouncementJSON(id: announcement.id, team: team, recipients: announcement.recipients, createdAt: announcement.createdAt),
                status: .created)
        }
        routes.on(.get, "/v1/invitations", query: ["state"]) { request, context in
            let user = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: ["state"])
            var state: InvitationState?
            if let text = parameters["state"] {
                guard let parsed = InvitationState(rawValue: text) else {
                    throw APIError.badRequest("state is one of \(InvitationState.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                state = parsed
            }
            let now = Date()
            let invitations = try await services.teams.invitations(for: user, state: state)
            return try JSONCoding.response(["invitations": invitations.map { InvitationJSON($0, now: now) }])
        }
        routes.on(.post, "/v1/invitations/{id}/accept") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(PasscodeBody.self, from: try await small(request))
            let invitation = try await services.teams.accept(try context.pathID(of: "an invitation"), passcode: body.passcode, by: user)
            return try JSONCoding.response(InvitationJSON(invitation, now: Date()))
        }
        routes.on(.post, "/v1/invitations/{id}/decline") { _, context in
            let user = try context.signedIn()
            return try JSONCoding.response(
                InvitationJSON(try await services.teams.decline(try context.pathID(of: "an invitation"), by: user), now: Date()))
        }
        routes.on(.post, "/v1/invitations/{id}/revoke") { _, context in
            let user = try context.signedIn()
            return try JSONCoding.response(
                InvitationJSON(try await services.teams.decide(try context.pathID(of: "an invitation"), .revoke, by: user), now: Date()))
        }
        routes.on(.post, "/v1/invitations/{id}/confirm") { _, context in
            let user = try context.signedIn()
            return try JSONCoding.response(
                InvitationJSON(try await services.teams.decide(try context.pathID(of: "an invitation"), .confirm, by: user), now: Date()))
        }
    }

    private func managed(_ context: IntakeRequestContext) async throws -> Team {
        let user = try context.signedIn()
        return try await services.teams.managedTeam(try context.parameters.require("team"), by: user)
    }

    private func small(_ request: Request) async throws -> Data {
        try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout)
    }
}

struct MembersJSON: Encodable {
    var team: String
    var members: [MemberJSON]
}

struct MemberJSON: Encodable {
    var username: String
    var role: String
    var since: Date

    init(_ member: Member) {
        username = member.username
        role = member.role.rawValue
        since = member.since
    }
}

struct HistoryJSON: Encodable {
    var team: String
    var events: [MembershipEventJSON]
}

struct MembershipEventJSON: Encodable {
    var username: String
    var event: String
    var role: String?
    var by: String
    var at: Date

    init(_ event: MembershipEvent) {
        username = event.username
        self.event = event.kind.rawValue
        role = event.role?.rawValue
        by = event.by
        at = event.at
    }
}

struct InvitationJSON: Encodable {
    var id: String
    var team: String
    var invitee: String
    var role: String
    var invitedBy: String
    var state: String
    var createdAt: Date
    var expiresAt: Date
    var updatedAt: Date
    var failedAttempts: Int
    var message: String?

    init(_ invitation: Invitation, now: Date) {
        message = invitation.message
        id = invitation.id.uuidString.lowercased()
        team = invitation.teamName
        invitee = invitation.invitee
        role = invitation.role.rawValue
        invitedBy = invitation.invitedBy
        state = invitation.state(at: now).rawValue
        createdAt = invitation.createdAt
        expiresAt = invitation.expiresAt
        updatedAt = invitation.updatedAt
        failedAttempts = invitation.failedAttempts
    }
}
