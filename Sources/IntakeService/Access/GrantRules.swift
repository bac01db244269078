import Foundation

/// The one a grant would go to, as the store finds them in its transaction.
public enum GrantRecipient: Sendable, Equatable {
    /// A user of this server, and the team they belong to now (if any).
    case user(String, teamId: Int64?)
    /// A team of this server.
    case team(String, id: Int64)
    /// No user has this name.
    case unknownUser(String)
    /// No team has this name.
    case unknownTeam(String)
}

/// What the store does with a new grant, as ``GrantRules/create(_:recordTeamId:recipient:)`` decides.
public enum GrantDecision: Sendable, Equatable {
    case refuse(GrantOutcome)
    /// Store it, for the team `toTeamId` when it goes to a team.
    case create(toTeamId: Int64?)
}

/// The grant rules, decided once for every store: a grant is given by the team that holds the
/// live record, to a known user or team; a user of the record's own team needs none (they see
/// its records already). The store reads the record's team (locking its row where it can) and the
/// recipient in its transaction, asks here, and writes what the rule says.
public enum GrantRules {
    /// `recordTeamId`: the team of the live record (nil when there is none: unknown or deleted).
    public static func create(_ grant: NewGrant, recordTeamId: Int64?, recipient: GrantRecipient?) -> GrantDecision {
        guard recordTeamId == grant.fromTeamId else { return .refuse(.recordNotFound) }
        switch recipient {
        case .unknownUser(let name): return .refuse(.unknownUser(name))
        case .unknownTeam(let name): return .refuse(.unknownTeam(name))
        case .user(let name, let teamId): return teamId == grant.fromTeamId ? .refuse(.alreadyInTeam(name)) : .create(toTeamId: nil)
        case .team(_, let id): return .create(toTeamId: id)
        case nil: return .create(toTeamId: nil)
        }
    }
}
