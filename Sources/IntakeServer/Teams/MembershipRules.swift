import Foundation

/// A change to a team's membership, as ``MembershipRules`` decides it.
public enum MembershipChange: Sendable, Equatable {
    case role(Role)
    case remove
}

/// What the store does: refuse with an outcome, leave the member as they are, or apply a change
/// (recorded in the team's history, and the member told).
public enum MembershipDecision: Sendable, Equatable {
    case refuse(MembershipOutcome)
    case unchanged
    case apply(MembershipChange)
}

/// A team's membership rules, decided once for every store: a team always keeps a coordinator.
/// The store reads the member and how many coordinators the team has in its transaction, asks
/// here, and writes what it says.
public enum MembershipRules {
    public static func changeRole(of member: Member?, to role: Role, coordinators: Int) -> MembershipDecision {
        guard let member else { return .refuse(.notMember) }
        if member.role == .coordinator, role != .coordinator, coordinators <= 1 { return .refuse(.lastCoordinator) }
        return member.role == role ? .unchanged : .apply(.role(role))
    }

    public static func remove(_ member: Member?, coordinators: Int) -> MembershipDecision {
        guard let member else { return .refuse(.notMember) }
        if member.role == .coordinator, coordinators <= 1 { return .refuse(.lastCoordinator) }
        return .apply(.remove)
    }
}

extension TeamStore {
    /// Makes a member a field worker or a coordinator, as ``MembershipRules`` decides.
    public func changeMemberRole(teamId: Int64, username: String, to role: Role, by actor: String, at time: Date) async throws
        -> MembershipOutcome
    {
        try await changeMembership(teamId: teamId, username: username, by: actor, at: time) {
            MembershipRules.changeRole(of: $0, to: role, coordinators: $1)
        }
    }

    /// Takes a member out of the team (their records stay the team's), as ``MembershipRules`` decides.
    public func removeMember(teamId: Int64, username: String, by actor: String, at time: Date) async throws -> MembershipOutcome {
        try await changeMembership(teamId: teamId, username: username, by: actor, at: time) { MembershipRules.remove($0, coordinators: $1) }
    }
}

/// What accepting an invitation with a passcode does, as ``InvitationRules/accept(_:invitee:passcodeMatches:lockAfter:at:)`` decides.
public enum InvitationAcceptance: Sendable, Equatable {
    case refuse(InvitationOutcome)
    /// A wrong passcode: count it (`failures` in all) and lock the invitation when `locked`.
    case wrongPasscode(failures: Int, locked: Bool, outcome: InvitationOutcome)
    /// The right passcode: accepted, and the team's coordinators are told.
    case accept
}

/// The invitation rules, decided once for every store (the store counts a wrong passcode
/// atomically, so two tries at once are both counted).
public enum InvitationRules {
    public static func accept(_ current: Invitation, invitee: String, passcodeMatches: Bool, lockAfter: Int, at time: Date) -> InvitationAcceptance {
        guard current.invitee == invitee else { return .refuse(.notFound) }
        let state = current.state(at: time)
        guard state == .pending else { return .refuse(.notAllowed(state)) }
        guard passcodeMatches else {
            let failures = current.failedAttempts + 1
            let locked = failures >= lockAfter
            return .wrongPasscode(failures: failures, locked: locked, outcome: locked ? .notAllowed(.locked) : .wrongPasscode(remaining: lockAfter - failures))
        }
        return .accept
    }
}
