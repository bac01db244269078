import Foundation

/// What accepting an invitation with a passcode does, as ``InvitationRules/accept(_:invitee:passcodeMatches:lockAfter:at:)`` decides.
public enum InvitationAcceptance: Sendable, Equatable {
    case refuse(InvitationOutcome)
    /// A wrong passcode: count it (`failures` in all) and lock the invitation when `locked`.
    case wrongPasscode(failures: Int, locked: Bool, outcome: InvitationOutcome)
    /// The right passcode: accepted, and the team's coordinators are told.
    case accept
}

/// Whether an invitation may be made, as ``InvitationRules/invite(_:theirs:at:)`` decides.
public enum InvitationCreation: Sendable, Equatable {
    case refuse(InvitationOutcome)
    case create
}

/// The one an invitation is for, as the store finds them: nil when no user has the name.
public struct Invitee: Sendable, Equatable {
    /// Their role; nil when the stored role is none Intake knows.
    public var role: Role?
    /// Their team, if they belong to one.
    public var teamId: Int64?

    public init(role: Role?, teamId: Int64?) {
        self.role = role
        self.teamId = teamId
    }
}

/// The invitation rules, decided once for every store: who may be invited, what counts as
/// already invited, the passcode and its lockout, and who is told of an acceptance. Each store
/// reads the facts in its transaction (under the team lock on PostgreSQL), asks here, and writes
/// what the rule says; the store counts a wrong passcode atomically, so two tries at once are
/// both counted.
public enum InvitationRules {
    /// Whether a team may invite `invitee`: only field workers and coordinators belong to teams,
    /// and only when they belong to none; and not while one of the team's invitations to them is
    /// still open (pending or accepted, and not expired at `time`). `theirs`: the team's
    /// invitations to the invitee, in any state.
    public static func invite(_ invitee: Invitee?, theirs: [Invitation], at time: Date) -> InvitationCreation {
        guard let invitee else { return .refuse(.unknownUser) }
        guard let role = invitee.role, role == .fieldworker || role == .coordinator else {
            return .refuse(.notInvitable(invitee.role ?? .researcher))
        }
        guard invitee.teamId == nil else { return .refuse(.alreadyInTeam) }
        if let open = theirs.first(where: { $0.state(at: time).isOpen }) { return .refuse(.alreadyInvited(open.id)) }
        return .create
    }

    public static func accept(_ current: Invitation, invitee: String, passcodeMatches: Bool, lockAfter: Int, at time: Date)
        -> InvitationAcceptance
    {
        guard current.invitee == invitee else { return .refuse(.notFound) }
        let state = current.state(at: time)
        guard state == .pending else { return .refuse(.notAllowed(state)) }
        guard passcodeMatches else {
            let failures = current.failedAttempts + 1
            let locked = failures >= lockAfter
            return .wrongPasscode(
                failures: failures, locked: locked, outcome: locked ? .notAllowed(.locked) : .wrongPasscode(remaining: lockAfter - failures)
            )
        }
        return .accept
    }

    /// Who is told that an invitation was accepted (and waits for a confirmation): the team's
    /// coordinators, of its `members` as they are when it is accepted.
    public static func toldOfAcceptance(members: [Member]) -> [String] {
        members.filter { $0.role == .coordinator }.map(\.username)
    }
}
