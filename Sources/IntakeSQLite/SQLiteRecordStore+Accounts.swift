import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    public func createTeam(name: String, at time: Date) async throws -> Team {
        try await database.write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM team WHERE name = ?", arguments: [name]) == nil else {
                throw RecordStoreError.alreadyExists("team '\(name)'")
            }
            try db.execute(sql: "INSERT INTO team (name, createdAt) VALUES (?, ?)", arguments: [name, Self.timestamp(time)])
            return Team(id: db.lastInsertedRowID, name: name, createdAt: time)
        }
    }

    public func formTeam(name: String, leader: String, at time: Date) async throws -> TeamFormation {
        try await database.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT t.name FROM user u LEFT JOIN team t ON t.id = u.teamId WHERE u.username = ?", arguments: [leader])
            else { return .noSuchUser }
            if let current = row["name"] as String? { return .alreadyInTeam(current) }
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM team WHERE name = ?", arguments: [name]) == nil else { return .nameTaken }
            try db.execute(sql: "INSERT INTO team (name, createdAt) VALUES (?, ?)", arguments: [name, Self.timestamp(time)])
            let team = Team(id: db.lastInsertedRowID, name: name, createdAt: time)
            try db.execute(
                sql: "UPDATE user SET teamId = ?, role = ?, teamSince = ? WHERE username = ?",
                arguments: [team.id, Role.coordinator.rawValue, Self.timestamp(time), leader])
            try Self.recordMembership(db, teamId: team.id, username: leader, kind: .joined, role: .coordinator, by: leader, at: time)
            return .formed(team)
        }
    }

    public func teams() async throws -> [Team] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM team ORDER BY name").map(Self.team)
        }
    }

    public func team(named name: String) async throws -> Team? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM team WHERE name = ?", arguments: [name]).map(Self.team)
        }
    }

    public func setTeamTimeZone(teamId: Int64, _ timeZone: String?) async throws -> Team? {
        try await database.write { db in
            try db.execute(sql: "UPDATE team SET timeZone = ? WHERE id = ?", arguments: [timeZone, teamId])
            return try Row.fetchOne(db, sql: "SELECT * FROM team WHERE id = ?", arguments: [teamId]).map(Self.team)
        }
    }

    public func createUser(_ user: NewUser, at time: Date) async throws -> User {
        try await database.write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM user WHERE username = ?", arguments: [user.username]) == nil else {
                throw RecordStoreError.alreadyExists("user '\(user.username)'")
            }
            try db.execute(
                sql: "INSERT INTO user (username, passwordHash, role, teamId, createdAt, teamSince) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    user.username, user.passwordHash, user.role.rawValue, user.teamId, Self.timestamp(time),
                    user.teamId.map { _ in Self.timestamp(time) },
                ])
            let id = db.lastInsertedRowID
            if let team = user.teamId {
                try Self.recordMembership(db, teamId: team, username: user.username, kind: .joined, role: user.role, by: "admin", at: time)
            }
            return try Self.fetchUser(db, where: "u.id = ?", id)!.user
        }
    }

    public func users() async throws -> [User] {
        try await database.read { db in
            try Row.fetchAll(db, sql: Self.userSelect + " ORDER BY u.username").map { try Self.credentials($0).user }
        }
    }

    public func credentials(username: String) async throws -> UserCredentials? {
        try await database.read { db in try Self.fetchUser(db, where: "u.username = ?", username) }
    }

    public func updateUser(username: String, _ change: UserChange) async throws -> User? {
        try await database.write { db in
            guard let before = try Self.fetchUser(db, where: "u.username = ?", username)?.user else { return nil }
            let now = Date()
            if let role = change.role {
                try db.execute(sql: "UPDATE user SET role = ? WHERE username = ?", arguments: [role.rawValue, username])
                if let team = before.teamId, role != before.role, change.teamId == nil {
                    try Self.recordMembership(db, teamId: team, username: username, kind: .roleChanged, role: role, by: "admin", at: now)
                }
            }
            if let teamId = change.teamId, teamId != before.teamId {
                try db.execute(
                    sql: "UPDATE user SET teamId = ?, teamSince = ? WHERE username = ?",
                    arguments: [teamId, teamId.map { _ in Self.timestamp(now) }, username])
                if let old = before.teamId {
                    try Self.handBackReferrals(db, teamId: old, username: username, by: "admin", at: now)
                    try Self.recordMembership(db, teamId: old, username: username, kind: .left, role: nil, by: "admin", at: now)
                }
                if let new = teamId {
                    try Self.recordMembership(
                        db, teamId: new, username: username, kind: .joined, role: change.role ?? before.role, by: "admin", at: now)
                }
            }
            if let hash = change.passwordHash {
                try db.execute(sql: "UPDATE user SET passwordHash = ? WHERE username = ?", arguments: [hash, username])
            }
            if let disabled = change.disabled {
                try db.execute(sql: "UPDATE user SET disabled = ? WHERE username = ?", arguments: [disabled, username])
            }
            if let access = change.researchAccess {
                try db.execute(sql: "UPDATE user SET researchAccess = ? WHERE username = ?", arguments: [access.rawValue, username])
            }
            if let language = change.language {
                try db.execute(sql: "UPDATE user SET language = ? WHERE username = ?", arguments: [language, username])
            }
            if change.unlock {
                try db.execute(
                    sql: "UPDATE user SET lockedAt = NULL, failedSignIns = 0, lastFailedSignInAt = NULL WHERE username = ?",
                    arguments: [username])
            }
            return try Self.fetchUser(db, where: "u.username = ?", username)?.user
        }
    }

    public func recordSignInFailure(username: String, at time: Date, lockAfter: Int) async throws -> SignInFailures? {
        try await database.write { db in
            try Row.fetchOne(
                db,
                sql: """
                    UPDATE user SET failedSignIns = failedSignIns + 1, lastFailedSignInAt = ?,
                        lockedAt = CASE WHEN lockedAt IS NULL AND failedSignIns + 1 >= ? THEN ? ELSE lockedAt END
                    WHERE username = ? RETURNING failedSignIns, lockedAt
                    """,
                arguments: [Self.timestamp(time), lockAfter, Self.timestamp(time), username]
            ).map { SignInFailures(count: $0["failedSignIns"], lockedAt: ($0["lockedAt"] as Double?).map(Self.date)) }
        }
    }

    public func clearSignInFailures(username: String) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE user SET failedSignIns = 0, lastFailedSignInAt = NULL WHERE username = ? AND failedSignIns > 0",
                arguments: [username])
        }
    }

    public func userCount() async throws -> Int {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user") ?? 0 }
    }

    public func createToken(_ token: NewToken, at time: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT INTO token (hash, userId, name, createdAt, expiresAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [token.hash, token.userId, token.name, Self.timestamp(time), token.expiresAt.map(Self.timestamp)])
        }
    }

    public func user(tokenHash: String, now: Date) async throws -> User? {
        try await database.read { db in
            try Row.fetchOne(
                db,
                sql: Self.userSelect + """
                     JOIN token t ON t.userId = u.id
                    WHERE t.hash = ? AND (t.expiresAt IS NULL OR t.expiresAt > ?) AND u.disabled = 0
                    """,
                arguments: [tokenHash, Self.timestamp(now)]
            ).map { try Self.credentials($0).user }
        }
    }

    public func revokeToken(hash: String) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM token WHERE hash = ?", arguments: [hash])
        }
    }

    public func tokens(userId: Int64) async throws -> [TokenSummary] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT hash, name, createdAt, expiresAt FROM token WHERE userId = ? ORDER BY createdAt DESC, hash",
                arguments: [userId]
            ).map { row in
                TokenSummary(
                    id: String((row["hash"] as String).prefix(TokenSummary.idLength)), name: row["name"],
                    createdAt: Self.date(row["createdAt"]),
                    expiresAt: (row["expiresAt"] as Double?).map(Self.date))
            }
        }
    }

    public func revokeToken(userId: Int64, id: String) async throws -> Bool {
        guard id.count == TokenSummary.idLength else { return false }
        return try await database.write { db in
            try db.execute(
                sql: "DELETE FROM token WHERE userId = ? AND substr(hash, 1, ?) = ?",
                arguments: [userId, TokenSummary.idLength, id.lowercased()])
            return db.changesCount > 0
        }
    }

    public func revokeSessions(userId: Int64) async throws -> Int {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM token WHERE userId = ? AND name = 'session'", arguments: [userId])
            return db.changesCount
        }
    }

    static let userSelect = "SELECT u.*, tm.name AS teamName FROM user u LEFT JOIN team tm ON tm.id = u.teamId"

    private static func fetchUser(_ db: Database, where condition: String, _ argument: some DatabaseValueConvertible) throws
        -> UserCredentials?
    {
        try Row.fetchOne(db, sql: userSelect + " WHERE " + condition, arguments: [argument]).map(credentials)
    }

    static func credentials(_ row: Row) throws -> UserCredentials {
        guard let role = Role(rawValue: row["role"]) else { throw RecordStoreError.notFound("role") }
        return UserCredentials(
            user: User(
                id: row["id"], username: row["username"], role: role, teamId: row["teamId"], teamName: row["teamName"],
                disabled: row["disabled"], createdAt: date(row["createdAt"]), lockedAt: (row["lockedAt"] as Double?).map(date),
                researchAccess: (row["researchAccess"] as String?).flatMap(ResearchAccess.init(rawValue:)), language: row["language"]),
            passwordHash: row["passwordHash"], failedSignIns: row["failedSignIns"],
            lastFailedSignInAt: (row["lastFailedSignInAt"] as Double?).map(date))
    }

    private static func team(_ row: Row) -> Team {
        Team(id: row["id"], name: row["name"], createdAt: date(row["createdAt"]), timeZone: row["timeZone"])
    }
}
