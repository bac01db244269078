import Foundation
import GRDB
import IntakeService

extension SQLiteRecordStore {
    public func createGrant(_ grant: NewGrant) async throws -> GrantOutcome {
        try await database.write { db in
            let owner = try Int64.fetchOne(
                db, sql: "SELECT teamId FROM record WHERE id = ? AND deletedAt IS NULL", arguments: [Self.key(grant.recordId)])
            var recipient: GrantRecipient?
            if let name = grant.toUser {
                let user = try Row.fetchOne(db, sql: "SELECT teamId FROM user WHERE username = ?", arguments: [name])
                recipient = user.map { .user(name, teamId: $0["teamId"]) } ?? .unknownUser(name)
            } else if let name = grant.toTeam {
                let team = try Int64.fetchOne(db, sql: "SELECT id FROM team WHERE name = ?", arguments: [name])
                recipient = team.map { .team(name, id: $0) } ?? .unknownTeam(name)
            }
            let toTeamId: Int64?
            switch GrantRules.create(grant, recordTeamId: owner, recipient: recipient) {
            case .refuse(let outcome): return outcome
            case .create(let team): toTeamId = team
            }
            try db.execute(
                sql: """
                    INSERT INTO recordGrant (id, recordId, toUser, toTeamId, access, expiresAt, grantedBy, grantedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Self.key(grant.id), Self.key(grant.recordId), grant.toUser, toTeamId, grant.access.rawValue,
                    Self.timestamp(grant.expiresAt),
                    grant.grantedBy, Self.timestamp(grant.grantedAt),
                ])
            guard let stored = try Self.grant(db, id: grant.id) else { return .recordNotFound }
            _ = try Self.appendAudit([AuditEntry.grant(stored, revoked: false, by: grant.grantedBy, at: grant.grantedAt)], db)
            return .created(stored)
        }
    }

    public func grants(recordId: UUID) async throws -> [RecordGrant] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: Self.grantSelect + " WHERE g.recordId = ? ORDER BY g.grantedAt DESC, g.id", arguments: [Self.key(recordId)]
            )
            .map(Self.grant)
        }
    }

    public func revokeGrant(id: UUID, recordId: UUID, by user: String, at time: Date) async throws -> RecordGrant? {
        try await database.write { db in
            guard let existing = try Self.grant(db, id: id), existing.recordId == recordId else { return nil }
            guard existing.revokedAt == nil else { return existing }
            try db.execute(
                sql: "UPDATE recordGrant SET revokedAt = ?, revokedBy = ? WHERE id = ?",
                arguments: [Self.timestamp(time), user, Self.key(id)])
            let revoked = try Self.grant(db, id: id) ?? existing
            _ = try Self.appendAudit([AuditEntry.grant(revoked, revoked: true, by: user, at: time)], db)
            return revoked
        }
    }

    public func grantAccess(recordId: UUID, username: String, teamId: Int64?, now: Date) async throws -> (read: Bool, edit: Bool) {
        try await database.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT access FROM recordGrant WHERE recordId = ? AND revokedAt IS NULL AND expiresAt > ?
                    AND (toUser = ? OR toTeamId = ?)
                    """,
                arguments: [Self.key(recordId), Self.timestamp(now), username, teamId])
            return (!rows.isEmpty, rows.contains { $0["access"] == "edit" })
        }
    }

    public func grantsReceived(username: String, teamId: Int64?, now: Date) async throws -> [RecordGrant] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: Self.grantSelect + """
                     JOIN record r ON r.id = g.recordId
                     WHERE g.revokedAt IS NULL AND g.expiresAt > ? AND (g.toUser = ? OR g.toTeamId = ?) AND r.deletedAt IS NULL
                     ORDER BY g.grantedAt DESC, g.id
                    """,
                arguments: [Self.timestamp(now), username, teamId]
            ).map(Self.grant)
        }
    }

    private static let grantSelect = "SELECT g.*, t.name AS toTeam FROM recordGrant g LEFT JOIN team t ON t.id = g.toTeamId"

    private static func grant(_ db: Database, id: UUID) throws -> RecordGrant? {
        try Row.fetchOne(db, sql: grantSelect + " WHERE g.id = ?", arguments: [key(id)]).map(grant)
    }

    private static func grant(_ row: Row) -> RecordGrant {
        RecordGrant(
            id: UUID(uuidString: row["id"]) ?? UUID(), recordId: UUID(uuidString: row["recordId"]) ?? UUID(), toUser: row["toUser"],
            toTeamId: row["toTeamId"], toTeam: row["toTeam"], access: GrantAccess(rawValue: row["access"]) ?? .read,
            expiresAt: date(row["expiresAt"]), grantedBy: row["grantedBy"], grantedAt: date(row["grantedAt"]),
            revokedAt: (row["revokedAt"] as Double?).map(date), revokedBy: row["revokedBy"])
    }
}
