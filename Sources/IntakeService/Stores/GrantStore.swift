import Foundation

/// Access to one record beyond its team: to read or edit it, given to a user or a team until
/// a time, and revocable. The store checks what it refers to in the same transaction it writes.
public protocol GrantStore: Sendable {
    /// Stores a grant on a live record of `grant.fromTeamId` to an existing user or team, with
    /// `grant.create` on the audit trail.
    func createGrant(_ grant: NewGrant) async throws -> GrantOutcome
    /// Every grant on a record, newest first, revoked and expired ones too.
    func grants(recordId: UUID) async throws -> [RecordGrant]
    /// Revokes a grant of the record (with `grant.revoke` on the audit trail); nil when there is none.
    func revokeGrant(id: UUID, recordId: UUID, by user: String, at time: Date) async throws -> RecordGrant?
    /// What unexpired, unrevoked grants give `username` (or their team) on a record at `now`.
    func grantAccess(recordId: UUID, username: String, teamId: Int64?, now: Date) async throws -> (read: Bool, edit: Bool)
    /// The unexpired, unrevoked grants to `username` or their team at `now`, newest first.
    func grantsReceived(username: String, teamId: Int64?, now: Date) async throws -> [RecordGrant]
}

public enum GrantAccess: String, Sendable, Codable, CaseIterable {
    case read, edit
}

public struct NewGrant: Sendable {
    public var id: UUID
    public var recordId: UUID
    public var fromTeamId: Int64
    /// Exactly one of a user and a team.
    public var toUser: String?
    public var toTeam: String?
    public var access: GrantAccess
    public var expiresAt: Date
    public var grantedBy: String
    public var grantedAt: Date

    public init(
        id: UUID = UUID(), recordId: UUID, fromTeamId: Int64, toUser: String?, toTeam: String?, access: GrantAccess, expiresAt: Date,
        grantedBy: String, grantedAt: Date
    ) {
        self.id = id
        self.recordId = recordId
        self.fromTeamId = fromTeamId
        self.toUser = toUser
        self.toTeam = toTeam
        self.access = access
        self.expiresAt = expiresAt
        self.grantedBy = grantedBy
        self.grantedAt = grantedAt
    }
}

public struct RecordGrant: Sendable, Hashable {
    public var id: UUID
    public var recordId: UUID
    public var toUser: String?
    public var toTeamId: Int64?
    public var toTeam: String?
    public var access: GrantAccess
    public var expiresAt: Date
    public var grantedBy: String
    public var grantedAt: Date
    public var revokedAt: Date?
    public var revokedBy: String?

    package init(
        id: UUID, recordId: UUID, toUser: String?, toTeamId: Int64?, toTeam: String?, access: GrantAccess, expiresAt: Date,
        grantedBy: String,
        grantedAt: Date, revokedAt: Date?, revokedBy: String?
    ) {
        self.id = id
        self.recordId = recordId
        self.toUser = toUser
        self.toTeamId = toTeamId
        self.toTeam = toTeam
        self.access = access
        self.expiresAt = expiresAt
        self.grantedBy = grantedBy
        self.grantedAt = grantedAt
        self.revokedAt = revokedAt
        self.revokedBy = revokedBy
    }

    /// Whether it gives access at `now`.
    public func isActive(at now: Date) -> Bool { revokedAt == nil && now < expiresAt }
}

public enum GrantOutcome: Sendable, Equatable {
    case created(RecordGrant)
    /// No live record of the granting team has this id.
    case recordNotFound
    case unknownUser(String)
    case unknownTeam(String)
    /// The user to grant to already sees the team's records (a member of the record's team).
    case alreadyInTeam(String)
}
