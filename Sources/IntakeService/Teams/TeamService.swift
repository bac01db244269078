import Foundation

/// A team run by its coordinators: members, invitations and the notifications they leave.
///
/// Who may act is decided here, from the signed-in user: an admin manages every team, a
/// coordinator their own. Services know no HTTP; ``ServiceError`` says what went wrong.
public struct TeamService: Sendable {
    let store: any TeamStore & AccountStore
    let clock: @Sendable () -> Date
    /// Called after a change to someone's team or role, so that cached sign-ins see it at once.
    let membershipChanged: @Sendable () -> Void
    /// Woken whenever a change here stored notifications.
    public let hub: NotificationHub
    /// Where each change of membership goes (`member.change`), whoever asked for it.
    let audit: AuditLog?
    /// Wrong passcodes an invitation takes before it locks.
    public static let passcodeAttempts = 5
    /// How long an invitation stays open by default.
    public static let defaultLifetimeDays = 7

    public init(
        store: any TeamStore & AccountStore, clock: @escaping @Sendable () -> Date = { Date() }, hub: NotificationHub = NotificationHub(),
        audit: AuditLog? = nil, membershipChanged: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.clock = clock
        self.hub = hub
        self.audit = audit
        self.membershipChanged = membershipChanged
    }

    private func audited(_ user: User, _ subject: String, _ details: [String: String]) async throws {
        try await audit?.record(.memberChange, by: user.username, subject: subject, details: details)
    }

    /// The team named `name`, if `user` may manage it.
    /// Sets the time zone the team's pages show times in (an IANA name such as `Asia/Amman`; nil
    /// or `UTC` for UTC), by its coordinators or an admin.
    public func setTimeZone(_ zone: String?, of team: Team, by user: User) async throws -> Team {
        let wanted = zone.flatMap { $0 == "UTC" || $0.isEmpty ? nil : $0 }
        if let wanted, TimeZone(identifier: wanted) == nil {
            throw ServiceError.invalidRequest(
                "'\(wanted.prefix(60))' is not a time zone; give an IANA name such as Asia/Amman or Africa/Nairobi, or UTC")
        }
        guard let changed = try await store.setTeamTimeZone(teamId: team.id, wanted) else {
            throw ServiceError.notFound("no team is named '\(team.name)'")
        }
        return changed
    }

    /// The time zone `user`'s team shows times in, if it set one.
    public func timeZone(of user: User) async throws -> TimeZone? {
        guard let name = user.teamName, let id = try await store.team(named: name)?.timeZone else { return nil }
        return TimeZone(identifier: id)
    }

    public func managedTeam(_ name: String, by user: User) async throws -> Team {
        guard let team = try await store.team(named: name) else { throw ServiceError.notFound("no team is named '\(name)'") }
        guard user.role == .admin || (user.role == .coordinator && user.teamId == team.id) else {
            throw ServiceError.forbidden("only the coordinators of '\(name)' (or an admin) manage it")
        }
        return team
    }

    // MARK: Members

    public func members(of team: Team) async throws -> [Member] { try await store.members(teamId: team.id) }

    public func history(of team: Team) async throws -> [MembershipEvent] { try await store.membershipHistory(teamId: team.id) }

    public func changeRole(in team: Team, of username: String, to role: Role, by user: User) async throws -> Member {
        guard role == .fieldworker || role == .coordinator else {
            throw ServiceError.invalidRequest("a team member is a fieldworker or a coordinator, not a \(role.rawValue)")
        }
        defer {
            membershipChanged()
            hub.notify()
        }
        switch try await store.changeMemberRole(teamId: team.id, username: username, to: role, by: user.username, at: clock()) {
        case .changed(let member?):
            try await audited(user, username, ["team": team.name, "change": "role", "role": role.rawValue])
            return member
        case .changed(nil), .notMember: throw ServiceError.notFound("\(username) is not a member of '\(team.name)'")
        case .lastCoordinator:
            throw ServiceError.conflict(
                "last_coordinator", "\(username) is the last coordinator of '\(team.name)'; make someone else one first")
        }
    }

    public func remove(_ username: String, from team: Team, by user: User) async throws {
        defer {
            membershipChanged()
            hub.notify()
        }
        switch try await store.removeMember(teamId: team.id, username: username, by: user.username, at: clock()) {
        case .changed: try await audited(user, username, ["team": team.name, "change": "removed"])
        case .notMember: throw ServiceError.notFound("\(username) is not a member of '\(team.name)'")
        case .lastCoordinator:
            throw ServiceError.conflict(
                "last_coordinator", "\(username) is the last coordinator of '\(team.name)'; make someone else one first")
        }
    }

    // MARK: Invitations

    /// An invitation and its passcode, which is shown this once and kept only hashed.
    public struct Issued: Sendable {
        public var invitation: Invitation
        public var passcode: String
    }

    /// The longest message an invitation carries.
    public static let maxMessageLength = 1000

    public func invite(_ username: String, to team: Team, role: Role, days: Int?, message: String? = nil, by user: User) async throws
        -> Issued
    {
        guard role == .fieldworker || role == .coordinator else {
            throw ServiceError.invalidRequest("an invitation makes a fieldworker or a coordinator, not a \(role.rawValue)")
        }
        let message = message?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let message, message.isEmpty || message.unicodeScalars.count > Self.maxMessageLength {
            throw ServiceError.invalidRequest("an invitation's message has 1 to \(Self.maxMessageLength) characters (or leave it out)")
        }
        let days = days ?? Self.defaultLifetimeDays
        guard (1...30).contains(days) else { throw ServiceError.invalidRequest("an invitation lasts 1 to 30 days") }
        let passcode = PasscodeHash.newPasscode()
        let now = clock()
        defer { hub.notify() }
        let outcome = try await store.createInvitation(
            NewInvitation(
                teamId: team.id, invitee: username, role: role, invitedBy: user.username, passcodeHash: PasscodeHash.make(passcode),
                createdAt: now, expiresAt: now.addingTimeInterval(Double(days) * 86_400), message: message))
        return Issued(invitation: try Self.invitation(outcome, team: team.name, invitee: username), passcode: passcode)
    }

    /// Invitations `user` may see: those to them, and those of the team they coordinate (an admin sees all).
    public func invitations(for user: User, state: InvitationState?) async throws -> [Invitation] {
        let all: [Invitation]
        switch user.role {
        case .admin: all = try await store.invitations(invitee: nil, teamId: nil)
        case .coordinator: all = try await store.invitations(invitee: user.username, teamId: user.teamId)
        default: all = try await store.invitations(invitee: user.username, teamId: nil)
        }
        let now = clock()
        return state.map { wanted in all.filter { $0.state(at: now) == wanted } } ?? all
    }

    public func accept(_ id: UUID, passcode: String, by user: User) async throws -> Invitation {
        defer { hub.notify() }
        let outcome = try await store.acceptInvitation(
            id: id, invitee: user.username, at: clock(), lockAfter: Self.passcodeAttempts,
            matches: { PasscodeHash.matches(passcode, $0) })
        let invitation = try Self.invitation(outcome, team: nil, invitee: user.username)
        try await audited(user, user.username, ["change": "joined", "invitation": invitation.id.uuidString.lowercased()])
        await read(id, by: user)
        return invitation
    }

    public func decline(_ id: UUID, by user: User) async throws -> Invitation {
        defer { hub.notify() }
        let invitation = try Self.invitation(
            try await store.decideInvitation(id: id, .decline, by: user.username, at: clock()), team: nil, invitee: nil)
        await read(id, by: user)
        return invitation
    }

    /// Acting on an invitation reads what told `user` of it (best effort: the action stands).
    private func read(_ invitation: UUID, by user: User) async {
        _ = try? await store.markNotificationsRead(
            userId: user.id, eventPrefix: NotificationEvent.invitationPrefix(invitation), at: clock())
    }

    /// Revokes or confirms an invitation of a team `user` manages.
    public func decide(_ id: UUID, _ decision: InvitationDecision, by user: User) async throws -> Invitation {
        guard let invitation = try await store.invitation(id: id) else { throw ServiceError.notFound("no invitation has the id \(id)") }
        guard user.role == .admin || (user.role == .coordinator && user.teamId == invitation.teamId) else {
            // Not theirs to manage: the same answer as an unknown id.
            throw ServiceError.notFound("no invitation has the id \(id)")
        }
        defer {
            if decision == .confirm { membershipChanged() }
            hub.notify()
        }
        let decided = try Self.invitation(
            try await store.decideInvitation(id: id, decision, by: user.username, at: clock()), team: nil, invitee: nil)
        await read(id, by: user)
        return decided
    }

    private static func invitation(_ outcome: InvitationOutcome, team: String?, invitee: String?) throws -> Invitation {
        switch outcome {
        case .invitation(let invitation): return invitation
        case .notFound: throw ServiceError.notFound("no such invitation for you")
        case .unknownUser: throw ServiceError.notFound("no user is named '\(invitee ?? "")'")
        case .notInvitable(let role):
            throw ServiceError.invalidRequest("a \(role.rawValue) cannot belong to a team; invite a fieldworker or coordinator")
        case .alreadyInTeam:
            throw ServiceError.conflict(
                "already_in_team", "\(invitee ?? "the invitee") already belongs to a team; they must leave it first")
        case .alreadyInvited(let id):
            throw ServiceError.conflict(
                "already_invited",
                "\(invitee ?? "the invitee") already has an open invitation to \(team ?? "this team") (\(id.uuidString.lowercased()))")
        case .wrongPasscode(let remaining):
            throw ServiceError.wrongPasscode(remaining: remaining)
        case .notAllowed(let state):
            throw ServiceError.conflict("invitation_\(state.rawValue)", Self.why(state))
        }
    }

    private static func why(_ state: InvitationState) -> String {
        switch state {
        case .pending: "the invitation is not accepted yet; the invitee accepts it with the passcode first"
        case .accepted: "the invitation is already accepted; a coordinator confirms it"
        case .confirmed: "the invitation is already confirmed"
        case .declined: "the invitation was declined; send a new one"
        case .revoked: "the invitation was revoked; ask the coordinator for a new one"
        case .expired: "the invitation expired; ask the coordinator for a new one"
        case .locked: "the invitation is locked after too many wrong passcodes; ask the coordinator for a new one"
        }
    }

    // MARK: Announcements

    /// The longest announcement.
    public static let maxAnnouncementLength = 2000

    /// Announces `text` to a team (a coordinator: their own; an admin: any) or, for an admin who
    /// names no team, to everyone. Each recipient gets a notification; the author does not.
    public func announce(_ text: String, to teamName: String?, by user: User) async throws -> (Announcement, team: String?) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.unicodeScalars.count <= Self.maxAnnouncementLength else {
            throw ServiceError.invalidRequest("an announcement has 1 to \(Self.maxAnnouncementLength) characters")
        }
        var team: Team?
        switch (user.role, teamName) {
        case (.admin, let name?):
            guard let found = try await store.team(named: name) else { throw ServiceError.notFound("no team is named '\(name)'") }
            team = found
        case (.admin, nil):
            team = nil
        case (.coordinator, let name):
            guard let own = user.teamId, let found = try await store.team(named: name ?? user.teamName ?? ""), found.id == own else {
                throw ServiceError.forbidden("a coordinator announces to their own team only; an admin announces to everyone")
            }
            team = found
        default:
            throw ServiceError.forbidden("only coordinators (to their team) and admins announce")
        }
        defer { hub.notify() }
        return (try await store.announce(teamId: team?.id, author: user.username, text: text, at: clock()), team?.name)
    }

    // MARK: Notifications

    public func notifications(_ query: NotificationQuery) async throws -> [UserNotification] { try await store.notifications(query) }

    /// Notifications as ``notifications(_:)`` finds them, waiting up to `wait` for some to arrive
    /// when there are none yet (a long poll), or until `stop` says so (the server shuts down).
    public func notifications(
        _ query: NotificationQuery, waitingUpTo wait: Duration, until stop: @Sendable () -> Bool = { false }
    ) async throws -> [UserNotification] {
        let deadline = ContinuousClock.now + wait
        while true {
            let seen = hub.generation
            let found = try await store.notifications(query)
            let now = ContinuousClock.now
            guard found.isEmpty, now < deadline, !Task.isCancelled, !stop() else { return found }
            await hub.wait(after: seen, timeout: min(deadline - now, hub.pollInterval))
        }
    }

    public func unreadCounts(of user: User) async throws -> [String: Int] { try await store.unreadNotificationCounts(userId: user.id) }

    /// The id of `user`'s newest notification (0 without any).
    public func newestNotification(of user: User) async throws -> Int64 { try await store.newestNotificationId(userId: user.id) }

    public func markRead(_ ids: [Int64]?, of user: User) async throws -> Int {
        try await store.markNotificationsRead(userId: user.id, ids: ids, at: clock())
    }

    public func delete(_ id: Int64, of user: User) async throws -> Bool { try await store.deleteNotification(userId: user.id, id: id) }

    /// Deletes notifications read longer ago than `retention`; how many.
    public func purgeRead(olderThan retention: Duration) async throws -> Int {
        try await store.purgeReadNotifications(readBefore: clock().addingTimeInterval(-Double(retention.components.seconds)))
    }
}
