import Foundation
import IntakeCore

public enum Role: String, Sendable, Codable, CaseIterable {
    case fieldworker, coordinator, researcher, admin
}

public struct Team: Sendable, Codable, Hashable {
    public var id: Int64
    public var name: String
    public var createdAt: Date
    /// The time zone its pages show times in (an IANA name, `Asia/Amman`); nil for UTC.
    public var timeZone: String?

    package init(id: Int64, name: String, createdAt: Date, timeZone: String? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.timeZone = timeZone
    }
}

public struct User: Sendable, Hashable {
    public var id: Int64
    public var username: String
    public var role: Role
    public var teamId: Int64?
    public var teamName: String?
    public var disabled: Bool
    public var createdAt: Date
    /// When repeated failed sign-ins locked the account; nil while it is not locked. Only an
    /// admin lifts a lock (``UserChange/unlock``).
    public var lockedAt: Date?
    /// A researcher's access level (nil: not set, which exports treat as `external`, the narrowest).
    public var researchAccess: ResearchAccess?
    /// The language the user chose for the web console (`en`, `ar`); nil until they choose.
    public var language: String?

    package init(
        id: Int64, username: String, role: Role, teamId: Int64?, teamName: String?, disabled: Bool, createdAt: Date, lockedAt: Date? = nil,
        researchAccess: ResearchAccess? = nil, language: String? = nil
    ) {
        self.researchAccess = researchAccess
        self.language = language
        self.id = id
        self.username = username
        self.role = role
        self.teamId = teamId
        self.teamName = teamName
        self.disabled = disabled
        self.createdAt = createdAt
        self.lockedAt = lockedAt
    }
}

public struct UserCredentials: Sendable {
    public var user: User
    public var passwordHash: String
    /// Failed sign-ins since the last one that succeeded (or the last unlock).
    public var failedSignIns: Int
    public var lastFailedSignInAt: Date?

    package init(user: User, passwordHash: String, failedSignIns: Int = 0, lastFailedSignInAt: Date? = nil) {
        self.user = user
        self.passwordHash = passwordHash
        self.failedSignIns = failedSignIns
        self.lastFailedSignInAt = lastFailedSignInAt
    }
}

/// An account's failed sign-ins after one more was counted.
public struct SignInFailures: Sendable, Equatable {
    public var count: Int
    /// Set once `count` reached the lock threshold (and kept until an admin unlocks).
    public var lockedAt: Date?

    package init(count: Int, lockedAt: Date?) {
        self.count = count
        self.lockedAt = lockedAt
    }
}

public struct NewUser: Sendable {
    public var username: String
    public var passwordHash: String
    public var role: Role
    public var teamId: Int64?

    public init(username: String, passwordHash: String, role: Role, teamId: Int64?) {
        self.username = username
        self.passwordHash = passwordHash
        self.role = role
        self.teamId = teamId
    }
}

public struct UserChange: Sendable {
    public var role: Role?
    public var teamId: Int64??
    public var passwordHash: String?
    public var disabled: Bool?
    /// Lifts a lock from failed sign-ins and forgets the failures.
    public var unlock: Bool
    public var researchAccess: ResearchAccess?
    public var language: String?

    public init(
        role: Role? = nil, teamId: Int64?? = nil, passwordHash: String? = nil, disabled: Bool? = nil, unlock: Bool = false,
        researchAccess: ResearchAccess? = nil, language: String? = nil
    ) {
        self.researchAccess = researchAccess
        self.language = language
        self.role = role
        self.teamId = teamId
        self.passwordHash = passwordHash
        self.disabled = disabled
        self.unlock = unlock
    }
}

/// A token as it may be listed: named by the start of its hash (the token itself is never kept).
public struct TokenSummary: Sendable, Equatable {
    /// The first 12 hex digits of the token's SHA-256: enough to tell a user's tokens apart.
    public var id: String
    public var name: String
    public var createdAt: Date
    public var expiresAt: Date?

    public init(id: String, name: String, createdAt: Date, expiresAt: Date?) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// How many hex digits of the hash name a token.
    public static let idLength = 12
}

public struct NewToken: Sendable {
    public var userId: Int64
    public var hash: String
    public var name: String
    public var expiresAt: Date?

    public init(userId: Int64, hash: String, name: String, expiresAt: Date?) {
        self.userId = userId
        self.hash = hash
        self.name = name
        self.expiresAt = expiresAt
    }
}
