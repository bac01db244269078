import Foundation
import IntakeService
import PostgresNIO

extension PostgresRecordStore {
    public func createGrant(_ grant: NewGrant) async throws -> GrantOutcome {
        try await transaction { connection in
            // The record's row, locked: a deletion waits for the grant, or the grant sees the deletion.
            let owner = try await connection.query(
                "SELECT teamId FROM record WHERE id = \(Self.key(grant.recordId)) AND deletedAt IS NULL FOR UPDATE", logger: Self.logger
            ).collect().first?.decode(Int64.self)
            var recipient: GrantRecipient?
            if let name = grant.toUser {
                let rows = try await connection.query("SELECT teamId FROM account WHERE username = \(name)", logger: Self.logger).collect()
                recipient = try rows.first.map { .user(name, teamId: try $0.decode(Int64?.self)) } ?? .unknownUser(name)
            } else if let name = grant.toTeam {
                let team = try await connection.query("SELECT id FROM team WHERE name = \(name)", logger: Self.logger).collect().first?
                    .decode(Int64.self)
                recipient = team.map { .team(name, id: $0) } ?? .unknownTeam(name)
            }
            let toTeamId: Int64?
            switch GrantRules.create(grant, recordTeamId: owner, recipient: recipient) {
            case .refuse(let outcome): return outcome
            case .create(let team): toTeamId = team
            }
            try await connection.query(
                """
                INSERT INTO recordGrant (id, recordId, toUser, toTeamId, access, expiresAt, grantedBy, grantedAt)
                VALUES (\(Self.key(grant.id)), \(Self.key(grant.recordId)), \(grant.toUser), \(toTeamId), \(grant.access.rawValue),
                        \(Self.timestamp(grant.expiresAt)), \(grant.grantedBy), \(Self.timestamp(grant.grantedAt)))
                """, logger: Self.logger)
            guard let stored = try await Self.grants(connection, where: "g.id = $1", Self.key(grant.id)).first else {
                return .recordNotFound
            }
            _ = try await Self.appendAudit([AuditEntry.grant(stored, revoked: false, by: grant.grantedBy, at: grant.grantedAt)], connection)
            return .created(stored)
        }
    }

    public func grants(recordId: UUID) async throws -> [RecordGrant] {
        try await transaction { connection in try await Self.grants(connection, where: "g.recordId = $1", Self.key(recordId)) }
    }

    public func revokeGrant(id: UUID, recordId: UUID, by user: String, at time: Date) async throws -> RecordGrant? {
        try await transaction { connection in
            guard let existing = try await Self.grants(connection, where: "g.id = $1", Self.key(id), lock: true).first,
                existing.recordId == recordId
            else { return nil }
            guard existing.revokedAt == nil else { return existing }
            try await connection.query(
                "UPDATE recordGrant SET revokedAt = \(Self.timestamp(time)), revokedBy = \(user) WHERE id = \(Self.key(id))",
                logger: Self.logger)
            let revoked = try await Self.grants(connection, where: "g.id = $1", Self.key(id)).first ?? existing
            _ = try await Self.appendAudit([AuditEntry.grant(revoked, revoked: true, by: user, at: time)], connection)
            return revoked
        }
    }

    public func grantAccess(recordId: UUID, username: String, teamId: Int64?, now: Date) async throws -> (read: Bool, edit: Bool) {
        let rows = try await client.query(
            """
            SELECT access FROM recordGrant WHERE recordId = \(Self.key(recordId)) AND revokedAt IS NULL AND expiresAt > \(Self.timestamp(now))
            AND (toUser = \(username) OR toTeamId = \(teamId))
            """, logger: Self.logger
        ).collect()
        let access = try rows.map { try $0.decode(String.self) }
        return (!access.isEmpty, access.contains("edit"))
    }

    public func grantsReceived(username: String, teamId: Int64?, now: Date) async throws -> [RecordGrant] {
        try await transaction { connection in
            try await Self.grants(
                connection,
                where: """
                    g.revokedAt IS NULL AND g.expiresAt > $1 AND (g.toUser = $2 OR g.toTeamId = $3)
                    AND EXISTS (SELECT 1 FROM record r WHERE r.id = g.recordId AND r.deletedAt IS NULL)
                    """,
                Self.timestamp(now), username, teamId ?? -1)
        }
    }

    private static func grants(
        _ connection: PostgresConnection, where condition: String, _ values: any PostgresThrowingDynamicTypeEncodable..., lock: Bool = false
    ) async throws -> [RecordGrant] {
        var binds = PostgresBindings()
        for value in values { try binds.append(value) }
        let sql = """
            SELECT g.id, g.recordId, g.toUser, g.toTeamId, t.name, g.access, g.expiresAt, g.grantedBy, g.grantedAt, g.revokedAt, g.revokedBy
            FROM recordGrant g LEFT JOIN team t ON t.id = g.toTeamId WHERE \(condition) ORDER BY g.grantedAt DESC, g.id\(lock ? " FOR UPDATE OF g" : "")
            """
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect()
        return try rows.map { row in
            let (id, recordId, toUser, toTeamId, toTeam, access, expiresAt, grantedBy, grantedAt, revokedAt, revokedBy) = try row.decode(
                (String, String, String?, Int64?, String?, String, Double, String, Double, Double?, String?).self)
            return RecordGrant(
                id: UUID(uuidString: id) ?? UUID(), recordId: UUID(uuidString: recordId) ?? UUID(), toUser: toUser, toTeamId: toTeamId,
                toTeam: toTeam,
                access: GrantAccess(rawValue: access) ?? .read, expiresAt: date(expiresAt), grantedBy: grantedBy,
                grantedAt: date(grantedAt),
                revokedAt: revokedAt.map(date), revokedBy: revokedBy)
        }
    }
}
