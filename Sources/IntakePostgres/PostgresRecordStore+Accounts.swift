import Foundation
import IntakeService
import PostgresNIO

extension PostgresRecordStore {
    public func createTeam(name: String, at time: Date) async throws -> Team {
        let rows = try await client.query(
            "INSERT INTO team (name, createdAt) VALUES (\(name), \(Self.timestamp(time))) ON CONFLICT (name) DO NOTHING RETURNING id",
            logger: Self.logger
        ).collect()
        guard let row = rows.first else { throw RecordStoreError.alreadyExists("team '\(name)'") }
        return Team(id: try row.decode(Int64.self), name: name, createdAt: time)
    }

    public func formTeam(name: String, leader: String, at time: Date) async throws -> TeamFormation {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            let rows = try await connection.query(
                "SELECT t.name FROM account a LEFT JOIN team t ON t.id = a.teamId WHERE a.username = \(leader) FOR UPDATE OF a",
                logger: Self.logger
            ).collect()
            guard let row = rows.first else { return .noSuchUser }
            if let current = try row.decode(String?.self) { return .alreadyInTeam(current) }
            let at = Self.timestamp(time)
            let created = try await connection.query(
                "INSERT INTO team (name, createdAt) VALUES (\(name), \(at)) ON CONFLICT (name) DO NOTHING RETURNING id", logger: Self.logger
            ).collect()
            guard let id = try created.first?.decode(Int64.self) else { return .nameTaken }
            try await connection.query(
                "UPDATE account SET teamId = \(id), role = \(Role.coordinator.rawValue), teamSince = \(at) WHERE username = \(leader)",
                logger: Self.logger)
            _ = try await Self.recordMembership(
                connection, teamId: id, username: leader, kind: .joined, role: .coordinator, by: leader, at: time)
            return .formed(Team(id: id, name: name, createdAt: time))
        }
    }

    public func teams() async throws -> [Team] {
        try await client.query("SELECT id, name, createdAt, timeZone FROM team ORDER BY name", logger: Self.logger).collect().map(Self.team)
    }

    public func team(named name: String) async throws -> Team? {
        try await client.query("SELECT id, name, createdAt, timeZone FROM team WHERE name = \(name)", logger: Self.logger).collect().first
            .map(Self.team)
    }

    public func setTeamTimeZone(teamId: Int64, _ timeZone: String?) async throws -> Team? {
        try await client.query(
            "UPDATE team SET timeZone = \(timeZone) WHERE id = \(teamId) RETURNING id, name, createdAt, timeZone", logger: Self.logger
        ).collect().first.map(Self.team)
    }

    public func createUser(_ user: NewUser, at time: Date) async throws -> User {
        let created = try await transaction { connection in
            let rows = try await connection.query(
                """
                INSERT INTO account (username, passwordHash, role, teamId, createdAt, teamSince)
                VALUES (\(user.username), \(user.passwordHash), \(user.role.rawValue), \(user.teamId), \(Self.timestamp(time)),
                        \(user.teamId.map { _ in Self.timestamp(time) }))
                ON CONFLICT (username) DO NOTHING RETURNING id
                """, logger: Self.logger
            ).collect()
            if !rows.isEmpty, let team = user.teamId {
                try await Self.recordMembership(
                    connection, teamId: team, username: user.username, kind: .joined, role: user.role, by: "admin", at: time)
            }
            return !rows.isEmpty
        }
        guard created else { throw RecordStoreError.alreadyExists("user '\(user.username)'") }
        guard let created = try await credentials(username: user.username) else {
            throw RecordStoreError.notFound("user '\(user.username)'")
        }
        return created.user
    }

    public func users() async throws -> [User] {
        try await client.query(Self.userSelect(where: "TRUE ORDER BY u.username", PostgresBindings()), logger: Self.logger).collect()
            .map { try Self.credentials($0).user }
    }

    public func credentials(username: String) async throws -> UserCredentials? {
        var binds = PostgresBindings()
        binds.append(username)
        return try await client.query(Self.userSelect(where: "u.username = $1", binds), logger: Self.logger).collect().first
            .map(Self.credentials)
    }

    public func updateUser(username: String, _ change: UserChange) async throws -> User? {
        let changed = try await transaction { connection in
            // A move between teams hands back the referrals held in the old one: the team lock
            // first, as every change of membership takes it, then the row.
            if change.teamId != nil { try await Self.lock(Self.teamLock, connection) }
            let rows = try await connection.query(
                "SELECT role, teamId FROM account WHERE username = \(username) FOR UPDATE", logger: Self.logger
            ).collect()
            guard let row = rows.first else { return false }
            let (roleBefore, teamBefore) = try row.decode((String, Int64?).self)
            let now = Date()
            if let role = change.role {
                try await connection.query("UPDATE account SET role = \(role.rawValue) WHERE username = \(username)", logger: Self.logger)
                if let team = teamBefore, role.rawValue != roleBefore, change.teamId == nil {
                    try await Self.recordMembership(
                        connection, teamId: team, username: username, kind: .roleChanged, role: role, by: "admin", at: now)
                }
            }
            if let teamId = change.teamId, teamId != teamBefore {
                try await connection.query(
                    "UPDATE account SET teamId = \(teamId), teamSince = \(teamId.map { _ in Self.timestamp(now) }) WHERE username = \(username)",
                    logger: Self.logger)
                if let old = teamBefore {
                    try await Self.handBackReferrals(connection, teamId: old, username: username, by: "admin", at: now)
                    try await Self.recordMembership(
                        connection, teamId: old, username: username, kind: .left, role: nil, by: "admin", at: now)
                }
                if let new = teamId {
                    try await Self.recordMembership(
                        connection, teamId: new, username: username, kind: .joined, role: change.role ?? Role(rawValue: roleBefore),
                        by: "admin", at: now)
                }
            }
            if let hash = change.passwordHash {
                try await connection.query("UPDATE account SET passwordHash = \(hash) WHERE username = \(username)", logger: Self.logger)
            }
            if let disabled = change.disabled {
                try await connection.query("UPDATE account SET disabled = \(disabled) WHERE username = \(username)", logger: Self.logger)
            }
            if let access = change.researchAccess {
                try await connection.query(
                    "UPDATE account SET researchAccess = \(access.rawValue) WHERE username = \(username)", logger: Self.logger)
            }
            if let language = change.language {
                try await connection.query("UPDATE account SET language = \(language) WHERE username = \(username)", logger: Self.logger)
            }
            if change.unlock {
                try await connection.query(
                    "UPDATE account SET lockedAt = NULL, failedSignIns = 0, lastFailedSignInAt = NULL WHERE username = \(username)",
                    logger: Self.logger)
            }
            return true
        }
        return changed ? try await credentials(username: username)?.user : nil
    }

    public func recordSignInFailure(username: String, at time: Date, lockAfter: Int) async throws -> SignInFailures? {
        let at = Self.timestamp(time)
        // One statement: the row lock orders two servers counting at once.
        return try await client.query(
            """
            UPDATE account SET failedSignIns = failedSignIns + 1, lastFailedSignInAt = \(at),
                lockedAt = CASE WHEN lockedAt IS NULL AND failedSignIns + 1 >= \(lockAfter) THEN \(at) ELSE lockedAt END
            WHERE username = \(username) RETURNING failedSignIns, lockedAt
            """, logger: Self.logger
        ).collect().first.map { row in
            let (count, lockedAt) = try row.decode((Int, Double?).self)
            return SignInFailures(count: count, lockedAt: lockedAt.map(Self.date))
        }
    }

    public func clearSignInFailures(username: String) async throws {
        try await client.query(
            "UPDATE account SET failedSignIns = 0, lastFailedSignInAt = NULL WHERE username = \(username) AND failedSignIns > 0",
            logger: Self.logger)
    }

    public func userCount() async throws -> Int {
        try await client.query("SELECT COUNT(*) FROM account", logger: Self.logger).collect().first?.decode(Int.self) ?? 0
    }

    public func createToken(_ token: NewToken, at time: Date) async throws {
        try await client.query(
            """
            INSERT INTO token (hash, userId, name, createdAt, expiresAt)
            VALUES (\(token.hash), \(token.userId), \(token.name), \(Self.timestamp(time)), \(token.expiresAt.map(Self.timestamp)))
            """, logger: Self.logger)
    }

    public func user(tokenHash: String, now: Date) async throws -> User? {
        var binds = PostgresBindings()
        binds.append(tokenHash)
        binds.append(Self.timestamp(now))
        return try await client.query(
            Self.userSelect(
                where: "u.id IN (SELECT userId FROM token WHERE hash = $1 AND (expiresAt IS NULL OR expiresAt > $2)) AND NOT u.disabled",
                binds),
            logger: Self.logger
        ).collect().first.map { try Self.credentials($0).user }
    }

    public func revokeToken(hash: String) async throws {
        try await client.query("DELETE FROM token WHERE hash = \(hash)", logger: Self.logger)
    }

    public func tokens(userId: Int64) async throws -> [TokenSummary] {
        try await client.query(
            "SELECT hash, name, createdAt, expiresAt FROM token WHERE userId = \(userId) ORDER BY createdAt DESC, hash", logger: Self.logger
        ).collect().map { row in
            let (hash, name, createdAt, expiresAt) = try row.decode((String, String, Double, Double?).self)
            return TokenSummary(
                id: String(hash.prefix(TokenSummary.idLength)), name: name, createdAt: Self.date(createdAt),
                expiresAt: expiresAt.map(Self.date))
        }
    }

    public func revokeToken(userId: Int64, id: String) async throws -> Bool {
        let prefix = id.lowercased()
        guard prefix.count == TokenSummary.idLength else { return false }
        return try await !client.query(
            "DELETE FROM token WHERE userId = \(userId) AND starts_with(hash, \(prefix)) RETURNING 1", logger: Self.logger
        ).collect().isEmpty
    }

    public func revokeSessions(userId: Int64) async throws -> Int {
        try await client.query("DELETE FROM token WHERE userId = \(userId) AND name = 'session' RETURNING 1", logger: Self.logger).collect()
            .count
    }

    private static func userSelect(where condition: String, _ binds: PostgresBindings) -> PostgresQuery {
        PostgresQuery(
            unsafeSQL: """
                SELECT u.id, u.username, u.role, u.teamId, tm.name, u.disabled, u.createdAt, u.passwordHash,
                    u.failedSignIns, u.lastFailedSignInAt, u.lockedAt, u.researchAccess, u.language
                FROM account u LEFT JOIN team tm ON tm.id = u.teamId WHERE \(condition)
                """, binds: binds)
    }

    private static func credentials(_ row: PostgresRow) throws -> UserCredentials {
        let (
            id, username, roleName, teamId, teamName, disabled, createdAt, passwordHash, failures, lastFailure, lockedAt, access, language
        ) =
            try row.decode((Int64, String, String, Int64?, String?, Bool, Double, String, Int, Double?, Double?, String?, String?).self)
        guard let role = Role(rawValue: roleName) else { throw RecordStoreError.notFound("role") }
        return UserCredentials(
            user: User(
                id: id, username: username, role: role, teamId: teamId, teamName: teamName, disabled: disabled, createdAt: date(createdAt),
                lockedAt: lockedAt.map(date), researchAccess: access.flatMap(ResearchAccess.init(rawValue:)), language: language),
            passwordHash: passwordHash, failedSignIns: failures, lastFailedSignInAt: lastFailure.map(date))
    }

    private static func team(_ row: PostgresRow) throws -> Team {
        let (id, name, createdAt, timeZone) = try row.decode((Int64, String, Double, String?).self)
        return Team(id: id, name: name, createdAt: date(createdAt), timeZone: timeZone)
    }
}
