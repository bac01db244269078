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
