import Foundation

/// A member of a team: a field worker or a coordinator (the team's leads). A user belongs to at
/// most one team; the records they send are collected for it.
public struct Member: Sendable, Hashable {
    public var username: String
    public var role: Role
    /// When they joined the team.
    public var since: Date

    package init(username: String, role: Role, since: Date) {
        self.username = username
        self.role = role
        self.since = since
    }
}

/// One change to a team's membership, kept for good.
public struct MembershipEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Codable {
        case joined, left, roleChanged = "role_changed"
    }

    public var teamId: Int64
    public var username: String
    public var kind: Kind
    /// The role after the change (nil when they left).
    public var role: Role?
    /// Who made the change.
    public var by: String
    public var at: Date

    package init(teamId: Int64, username: String, kind: Kind, role: Role?, by: String, at: Date) {
        self.teamId = teamId
        self.username = username
        self.kind = kind
        self.role = role
        self.by = by
        self.at = at
    }
}

/// What became of a change to a team's membership.
public enum MembershipOutcome: Sendable, Equatable {
    case changed(Member?)
    /// The user is not a member of the team.
    case notMember
    /// The change would leave the team without a coordinator.
    case lastCoordinator
}

/// Where an invitation stands. Pending → accepted (the invitee, with the passcode) → confirmed
/// (a coordinator): then the invitee is a member. Or declined (invitee), revoked (coordinator),
/// expired (not confirmed in time) or locked (too many wrong passcodes).
public enum InvitationState: String, Sendable, Codable, CaseIterable {
    case pending, accepted, confirmed, declined, revoked, expired, locked

    /// States an invitation can still move on from.
    public var isOpen: Bool { self == .pending || self == .accepted }
}

public struct Invitation: Sendable, Hashable {
    public var id: UUID
    public var teamId: Int64
    public var teamName: String
    public var invitee: String
    /// The role the invitee will have in the team.
    public var role: Role
    public var invitedBy: String
    /// As stored; ``state(at:)`` also tells an open invitation that ran out of time.
    public var storedState: InvitationState
    public var createdAt: Date
    public var expiresAt: Date
    public var updatedAt: Date
    public var failedAttempts: Int
    /// What the inviter wrote to the invitee, if anything.
    public var message: String?

    package init(
        id: UUID, teamId: Int64, teamName: String, invitee: String, role: Role, invitedBy: String, storedState: InvitationState,
        createdAt: Date, expiresAt: Date, updatedAt: Date, failedAttempts: Int, message: String? = nil
    ) {
        self.message = message
        self.id = id
        self.teamId = teamId
        self.teamName = teamName
        self.invitee = invitee
        self.role = role
        self.invitedBy = invitedBy
        self.storedState = storedState
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.updatedAt = updatedAt
        self.failedAttempts = failedAttempts
    }

    /// The state at `now`: an open invitation past its expiry is expired.
    public func state(at now: Date) -> InvitationState {
        storedState.isOpen && now >= expiresAt ? .expired : storedState
    }
}

public struct NewInvitation: Sendable {
    public var id: UUID
    public var teamId: Int64
    public var invitee: String
    public var role: Role
    public var invitedBy: String
    /// The passcode as ``PasscodeHash`` keeps it, never the passcode itself.
    public var passcodeHash: String
    public var createdAt: Date
    public var expiresAt: Date
    /// What the inviter writes to the invitee (at most ``TeamService/maxMessageLength`` characters).
    public var message: String?

    public init(
        id: UUID = UUID(), teamId: Int64, invitee: String, role: Role, invitedBy: String, passcodeHash: String, createdAt: Date,
        expiresAt: Date, message: String? = nil
    ) {
        self.message = message
        self.id = id
        self.teamId = teamId
        self.invitee = invitee
        self.role = role
        self.invitedBy = invitedBy
        self.passcodeHash = passcodeHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What a coordinator or the invitee does with an open invitation, besides accepting it.
public enum InvitationDecision: String, Sendable {
    /// The invitee says no.
    case decline
    /// A coordinator takes it back.
    case revoke
    /// A coordinator lets an accepted invitee in.
    case confirm
}

extension InvitationDecision {
    /// The state the decision moves an invitation to.
    public var resultingState: InvitationState {
        switch self {
        case .decline: .declined
        case .revoke: .revoked
        case .confirm: .confirmed
        }
    }

    /// Why `actor` may not make this decision on `invitation` at `now`; nil when they may. (That
    /// a coordinator manages the invitation's team is the caller's to check.)
    public func refusal(of invitation: Invitation, by actor: String, at now: Date) -> InvitationOutcome? {
        let state = invitation.state(at: now)
        switch self {
        case .decline:
            guard actor == invitation.invitee else { return .notFound }
            return state.isOpen ? nil : .notAllowed(state)
        case .revoke: return state.isOpen ? nil : .notAllowed(state)
        case .confirm: return state == .accepted ? nil : .notAllowed(state)
        }
    }

    /// Who is told, and how: the inviter of a decline, the invitee of a revocation or confirmation.
    public func notification(for invitation: Invitation) -> (recipient: String, type: String) {
        switch self {
        case .decline: (invitation.invitedBy, NotificationType.invitationDeclined)
        case .revoke: (invitation.invitee, NotificationType.invitationRevoked)
        case .confirm: (invitation.invitee, NotificationType.invitationConfirmed)
        }
    }
}

/// What became of an invitation request.
public enum InvitationOutcome: Sendable, Equatable {
    case invitation(Invitation)
    case notFound
    /// The invitee is not a user of this server.
    case unknownUser
    /// Only field workers and coordinators belong to teams.
    case notInvitable(Role)
    /// The invitee already belongs to a team (this one, or another: they must leave it first).
    case alreadyInTeam
    /// An open invitation of this team to this user exists.
    case alreadyInvited(UUID)
    /// The passcode is wrong; `remaining` more tries before the invitation locks.
    case wrongPasscode(remaining: Int)
    /// The invitation is not in a state that allows this (it was declined, revoked, expired,
    /// locked, confirmed, or is not yet accepted).
    case notAllowed(InvitationState)
}

/// A notification for one user: what happened, when, and the ids it points to. Never a patient's
/// name or answers.
public struct UserNotification: Sendable, Hashable {
    /// Increases with every notification stored, in the order they were committed.
    public var id: Int64
    public var userId: Int64
    public var type: String
    public var createdAt: Date
    public var readAt: Date?
    /// Ids and names of what it is about (an invitation id, a team name, a user name).
    public var subject: [String: String]

    package init(id: Int64, userId: Int64, type: String, createdAt: Date, readAt: Date?, subject: [String: String]) {
        self.id = id
        self.userId = userId
        self.type = type
        self.createdAt = createdAt
        self.readAt = readAt
        self.subject = subject
    }
}

/// A message from a coordinator to their team, or from an admin to a team or to everyone.
public struct Announcement: Sendable, Hashable {
    public var id: Int64
    /// nil: to everyone.
    public var teamId: Int64?
    public var author: String
    public var text: String
    public var createdAt: Date
    /// How many users were notified.
    public var recipients: Int

    package init(id: Int64, teamId: Int64?, author: String, text: String, createdAt: Date, recipients: Int) {
        self.id = id
        self.teamId = teamId
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.recipients = recipients
    }
}

/// Which notifications to read.
public struct NotificationQuery: Sendable {
    public var userId: Int64
    public var unreadOnly: Bool
    public var types: [String]
    /// Only those after this id (a page's last, or an event stream's Last-Event-ID).
    public var after: Int64
    /// Only those before this id (a newest-first page's last).
    public var before: Int64?
    /// The newest first (an inbox read by a person), rather than the oldest (a client catching up).
    public var newestFirst: Bool
    public var limit: Int

    public init(
        userId: Int64, unreadOnly: Bool = false, types: [String] = [], after: Int64 = 0, before: Int64? = nil, newestFirst: Bool = false,
        limit: Int = 50
    ) {
        self.userId = userId
        self.unreadOnly = unreadOnly
        self.types = types
        self.after = after
        self.before = before
        self.newestFirst = newestFirst
        self.limit = limit
    }
}

/// The notification types, and who gets each.
public enum NotificationType {
    /// To the invitee.
    public static let invited = "invitation_received"
    /// To the team's coordinators.
    public static let invitationAccepted = "invitation_accepted"
    /// To the invitee.
    public static let invitationConfirmed = "invitation_confirmed"
    /// To the inviter.
    public static let invitationDeclined = "invitation_declined"
    /// To the invitee.
    public static let invitationRevoked = "invitation_revoked"
    /// To the member whose role changed, or who was removed.
    public static let membershipChanged = "membership_changed"
    /// To every member of a team, or to everyone.
    public static let announcement = "announcement"
    /// To the referee (the assignee, or the receiving team's coordinators while nobody is assigned).
    public static let referralReceived = "referral_received"
    /// To the referrer.
    public static let referralAccepted = "referral_accepted"
    /// To the referrer.
    public static let referralDeclined = "referral_declined"
    /// To the referrer.
    public static let referralCompleted = "referral_completed"
    /// To the referee.
    public static let referralWithdrawn = "referral_withdrawn"
    /// To the new assignee.
    public static let referralReassigned = "referral_reassigned"
    /// To the previous assignee of a reassigned referral.
    public static let referralUnassigned = "referral_unassigned"
    /// To the previous referee of a referral the referrer sent elsewhere.
    public static let referralRetargeted = "referral_retargeted"
    /// To the other side of the thread.
    public static let referralMessage = "referral_message"
    /// To the coordinators of both teams.
    public static let recordsTransferred = "records_transferred"
    /// To the referee and the referrer: the referred record was deleted, so the referral is closed.
    public static let referralClosed = "referral_closed"
    /// To the receiving team's coordinators and the referrer: the member the referral was assigned
    /// to left the team, so it is back with the coordinators, open.
    public static let referralReturned = "referral_returned"

    /// To the coordinators of the record's team: a stored record meets an alert of its
    /// questionnaire (`alert if`). The subject names the record, the questionnaire version and the
    /// alert's number among the questionnaire's alerts: never an answer, nor the question.
    public static let recordAlert = "record_alert"

    /// To the record's collector: a reviewer says it has issues (the thread says which).
    public static let reviewHasIssues = "review_has_issues"
    /// To the record's collector.
    public static let reviewRejected = "review_rejected"
    /// To the record's collector: the approved record was unlocked and can be edited again.
    public static let reviewReopened = "review_reopened"
    /// To the other side of a review thread: the collector, or the last reviewer.
    public static let reviewComment = "review_comment"
    /// To the last reviewer: a record they reviewed was edited since.
    public static let reviewEdited = "review_edited"

    /// To a case's assignee: it is open past its due date (once per case and due date). The
    /// subject names the case, its list and due date: never the patient.
    public static let caseOverdue = "case_overdue"
    /// To a team's coordinators, once a day while any is: how many of the team's open cases are overdue.
    public static let casesOverdue = "cases_overdue"

    public static let all = [
        invited, invitationAccepted, invitationConfirmed, invitationDeclined, invitationRevoked, membershipChanged, announcement,
        referralReceived, referralAccepted, referralDeclined, referralCompleted, referralWithdrawn, referralReassigned, referralMessage,
        recordsTransferred, referralUnassigned, referralRetargeted, recordAlert, reviewHasIssues, reviewRejected, reviewReopened,
        reviewComment, reviewEdited, referralClosed, referralReturned, caseOverdue, casesOverdue,
    ]
}
