import Foundation
import IntakeCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A member of a team as the server lists them.
public struct RemoteMember: Sendable, Decodable, Equatable {
    public var username: String
    public var role: String
    public var since: String
}

/// One change to a team's membership.
public struct RemoteMembershipEvent: Sendable, Decodable, Equatable {
    public var username: String
    public var event: String
    public var role: String?
    public var by: String
    public var at: String
}

public struct RemoteInvitation: Sendable, Decodable, Equatable {
    public var id: String
    public var team: String
    public var invitee: String
    public var role: String
    public var invitedBy: String
    public var state: String
    public var createdAt: String
    public var expiresAt: String
    /// What the inviter wrote, if anything.
    public var message: String?
}

/// A notification: its type, when, and the ids and names it is about.
public struct RemoteNotification: Sendable, Codable, Equatable {
    public var id: Int64
    public var type: String
    public var createdAt: String
    public var read: Bool
    public var subject: [String: String]
}

/// A referral as the server shows it.
public struct RemoteReferral: Sendable, Decodable, Equatable {
    public var id: String
    public var recordId: String
    public var fromTeam: String
    public var referrer: String
    public var toTeam: String
    public var assignee: String?
    public var reason: String
    public var priority: String
    public var allowEdit: Bool
    public var state: String
    public var createdAt: String
    public var acceptedAt: String?
    public var acceptedBy: String?
    public var messages: [Message]?

    public struct Message: Sendable, Decodable, Equatable {
        public var author: String
        public var text: String
        public var at: String
    }
}

/// Teams, invitations and the notification inbox.
extension IntakeClient {
    /// Refers a record of your team to a member of it (`toUser`) or to a team (`toTeam`).
    public func refer(
        _ recordId: String, toUser: String?, toTeam: String?, reason: String, priority: String?, allowEdit: Bool
    ) async throws(ClientError) -> RemoteReferral {
        struct Body: Encodable {
            var recordId: String
            var toUser: String?
            var toTeam: String?
            var reason: String
            var priority: String?
            var allowEdit: Bool
        }
        return try await call(
            "POST", "/v1/referrals",
            body: Body(recordId: recordId, toUser: toUser, toTeam: toTeam, reason: reason, priority: priority, allowEdit: allowEdit),
            expecting: 201, as: RemoteReferral.self)
    }

    /// A team's referrals as CSV (its coordinators).
    public func referralsCSV(of team: String) async throws(ClientError) -> String {
        let (status, data) = try await send("GET", "/v1/teams/\(Self.segment(team))/referrals", body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        return String(decoding: data, as: UTF8.self)
    }

    public func referrals(sent: Bool, state: String?) async throws(ClientError) -> [RemoteReferral] {
        struct Answer: Decodable { var referrals: [RemoteReferral] }
        let query = "?direction=\(sent ? "sent" : "received")" + (state.map { "&state=\(Self.segment($0))" } ?? "")
        return try await call("GET", "/v1/referrals" + query, expecting: 200, as: Answer.self).referrals
    }

    /// One record's, or one registry patient's, referrals that the user takes part in.
    public func referrals(record: String? = nil, patient: String? = nil, state: String? = nil) async throws(ClientError) -> [RemoteReferral]
    {
        struct Answer: Decodable { var referrals: [RemoteReferral] }
        let parts = [
            record.map { "record=\(Self.segment($0))" }, patient.map { "patient=\(Self.segment($0))" },
            state.map { "state=\(Self.segment($0))" },
        ]
        return try await call("GET", "/v1/referrals?" + parts.compactMap { $0 }.joined(separator: "&"), expecting: 200, as: Answer.self)
            .referrals
    }

    /// Sends a referral nobody accepted yet to a member of the referring team or to another team.
    public func retargetReferral(_ id: String, toUser: String?, toTeam: String?) async throws(ClientError) -> RemoteReferral {
        struct Body: Encodable {
            var toUser: String?
            var toTeam: String?
        }
        return try await call(
            "POST", "/v1/referrals/\(Self.segment(id))/retarget", body: Body(toUser: toUser, toTeam: toTeam), expecting: 200,
            as: RemoteReferral.self)
    }

    /// Forms a team (an admin; or a member without a team, who then leads it, where the server allows it).
    public func createTeam(_ name: String) async throws(ClientError) {
        struct Answer: Decodable { var name: String }
        _ = try await call("POST", "/v1/teams", body: ["name": name], expecting: 201, as: Answer.self)
    }

    public func referral(_ id: String) async throws(ClientError) -> RemoteReferral {
        try await call("GET", "/v1/referrals/\(Self.segment(id))", expecting: 200, as: RemoteReferral.self)
    }

    /// accept, decline, complete or withdraw.
    public func referral(_ id: String, _ action: String) async throws(ClientError) -> RemoteReferral {
        try await call("POST", "/v1/referrals/\(Self.segment(id))/\(action)", expecting: 200, as: RemoteReferral.self)
    }

    public func reassignReferral(_ id: String, to user: String) async throws(ClientError) -> RemoteReferral {
        try await call(
            "POST", "/v1/referrals/\(Self.segment(id))/reassign", body: ["toUser": user], expecting: 200, as: RemoteReferral.self)
    }

    public func messageReferral(_ id: String, text: String) async throws(ClientError) {
        struct Answer: Decodable { var id: Int64 }
        _ = try await call("POST", "/v1/referrals/\(Self.segment(id))/messages", body: ["text": text], expecting: 201, as: Answer.self)
    }

    /// Sets the team's time zone (`UTC` for UTC); the zone the server now holds.
    public func setTimeZone(_ zone: String, of team: String) async throws(ClientError) -> String {
        struct Answer: Decodable { var timeZone: String }
        return try await call("PATCH", "/v1/teams/\(Self.segment(team))", body: ["timeZone": zone], expecting: 200, as: Answer.self)
            .timeZone
    }

    public func members(of team: String) async throws(ClientError) -> [RemoteMember] {
        struct Answer: Decodable { var members: [RemoteMember] }
        return try await call("GET", "/v1/teams/\(Self.segment(team))/members", expecting: 200, as: Answer.self).members
    }

    public func history(of team: String) async throws(ClientError) -> [RemoteMembershipEvent] {
        struct Answer: Decodable { var events: [RemoteMembershipEvent] }
        return try await call("GET", "/v1/teams/\(Self.segment(team))/history", expecting: 200, as: Answer.self).events
    }

    public func changeRole(in team: String, of username: String, to role: String) async throws(ClientError) -> RemoteMember {
        try await call(
            "PATCH", "/v1/teams/\(Self.segment(team))/members/\(Self.segment(username))", body: ["role": role], expecting: 200,
            as: RemoteMember.self)
    }

    public func remove(_ username: String, from team: String) async throws(ClientError) {
        let (status, data) = try await send("DELETE", "/v1/teams/\(Self.segment(team))/members/\(Self.segment(username))", body: nil)
        guard status == 204 else { throw ClientError.from(status: status, data: data) }
    }

    /// Invites `username`; the invitation and its passcode, which the server shows only this once.
    public func invite(_ username: String, to team: String, role: String?, days: Int?, message: String? = nil) async throws(ClientError)
        -> (
            invitation: RemoteInvitation, passcode: String
        )
    {
        struct Body: Encodable {
            var username: String
            var role: String?
            var expiresInDays: Int?
            var message: String?
        }
        struct Answer: Decodable {
            var invitation: RemoteInvitation
            var passcode: String
        }
        let answer = try await call(
            "POST", "/v1/teams/\(Self.segment(team))/invitations",
            body: Body(username: username, role: role, expiresInDays: days, message: message),
            expecting: 201, as: Answer.self)
        return (answer.invitation, answer.passcode)
    }

    public func invitations(state: String? = nil) async throws(ClientError) -> [RemoteInvitation] {
        struct Answer: Decodable { var invitations: [RemoteInvitation] }
        let query = state.map { "?state=\(Self.segment($0))" } ?? ""
        return try await call("GET", "/v1/invitations" + query, expecting: 200, as: Answer.self).invitations
    }

    /// Accepts, declines, revokes or confirms an invitation (`action`); accepting takes the passcode.
    public func invitation(_ id: String, _ action: String, passcode: String? = nil) async throws(ClientError) -> RemoteInvitation {
        let body: [String: String]? = passcode.map { ["passcode": $0] }
        return try await call(
            "POST", "/v1/invitations/\(Self.segment(id))/\(action)", body: body, expecting: 200, as: RemoteInvitation.self)
    }

    /// A page of notifications after `after`, and where the next page starts (nil on the last).
    /// With `wait`, the server holds the request up to that many seconds until something arrives (a long poll).
    public func notifications(unreadOnly: Bool, after: Int64? = nil, limit: Int = 50, wait: Int? = nil) async throws(ClientError) -> (
        notifications: [RemoteNotification], next: Int64?
    ) {
        struct Answer: Decodable {
            var notifications: [RemoteNotification]
            var next: Int64?
        }
        var query = ["limit=\(limit)"]
        if unreadOnly { query.append("unread=true") }
        if let after { query.append("after=\(after)") }
        if let wait { query.append("wait=\(wait)") }
        let answer = try await call("GET", "/v1/notifications?" + query.joined(separator: "&"), expecting: 200, as: Answer.self)
        return (answer.notifications, answer.next)
    }

    /// Announces `text` to a team, or (an admin, with no team) to everyone; who it reached.
    public func announce(_ text: String, to team: String?) async throws(ClientError) -> (team: String?, recipients: Int) {
        struct Body: Encodable {
            var text: String
            var team: String?
        }
        struct Answer: Decodable {
            var team: String?
            var recipients: Int
        }
        let answer = try await call("POST", "/v1/announcements", body: Body(text: text, team: team), expecting: 201, as: Answer.self)
        return (answer.team, answer.recipients)
    }

    /// Unread notifications by type.
    public func notificationCounts() async throws(ClientError) -> [String: Int] {
        struct Answer: Decodable { var unread: [String: Int] }
        return try await call("GET", "/v1/notifications/counts", expecting: 200, as: Answer.self).unread
    }

    /// Marks the given notifications read, or all when `ids` is nil; how many were unread.
    public func markRead(_ ids: [Int64]?) async throws(ClientError) -> Int {
        struct Answer: Decodable { var marked: Int }
        struct Some: Encodable { var ids: [Int64] }
        struct All: Encodable { var all = true }
        if let ids { return try await call("POST", "/v1/notifications/read", body: Some(ids: ids), expecting: 200, as: Answer.self).marked }
        return try await call("POST", "/v1/notifications/read", body: All(), expecting: 200, as: Answer.self).marked
    }

    /// Sends a request and reads the answer's JSON, or throws the server's error.
    func call<Answer: Decodable>(
        _ method: String, _ path: String, body: (some Encodable)? = nil as String?, expecting expected: Int, as type: Answer.Type
    ) async throws(ClientError) -> Answer {
        var data: Data?
        if let body {
            do {
                data = try JSONEncoder().encode(body)
            } catch {
                throw ClientError.unexpected("the request could not be encoded")
            }
        }
        let (status, answer) = try await send(method, path, body: data)
        guard status == expected else { throw ClientError.from(status: status, data: answer) }
        do {
            return try JSONDecoder().decode(Answer.self, from: answer)
        } catch {
            throw ClientError.unexpected("the server's answer to \(method) \(path.split(separator: "?")[0]) could not be read")
        }
    }

    /// The whole ids of the team's records whose id starts with `prefix` (at most 10).
    public func recordIds(startingWith prefix: String) async throws(ClientError) -> [UUID] {
        struct Answer: Decodable { var ids: [String] }
        return try await call("GET", "/v1/records/ids?prefix=\(Self.segment(prefix))", expecting: 200, as: Answer.self).ids.compactMap(
            UUID.init(uuidString:))
    }

    /// A name as a path segment (``PathSegment``).
    static func segment(_ text: String) -> String { PathSegment.encoded(text) }
}
