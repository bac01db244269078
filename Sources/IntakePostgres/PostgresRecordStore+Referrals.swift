import Foundation
import IntakeServer
import PostgresNIO

/// Referral changes take the team lock (``PostgresRecordStore/teamLock``): checks and changes of
/// one referral happen in one order across servers, and their notifications get ids in commit order.
extension PostgresRecordStore {
    public func createReferral(_ referral: NewReferral) async throws -> ReferralOutcome {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            let owner = try await connection.query(
                "SELECT teamId FROM record WHERE id = \(Self.key(referral.recordId)) AND deletedAt IS NULL", logger: Self.logger
            ).collect().first?.decode(Int64.self)
            guard owner == referral.fromTeamId else { return .recordNotFound }
            if let assignee = referral.assignee, try await Self.member(connection, teamId: referral.toTeamId, username: assignee) == nil {
                return .notAMember(assignee)
            }
            let at = Self.timestamp(referral.createdAt)
            try await connection.query(
                """
                INSERT INTO referral (id, recordId, fromTeamId, referrer, toTeamId, assignee, reason, priority, allowEdit, state, createdAt, updatedAt)
                VALUES (\(Self.key(referral.id)), \(Self.key(referral.recordId)), \(referral.fromTeamId), \(referral.referrer),
                        \(referral.toTeamId), \(referral.assignee), \(referral.reason), \(referral.priority.rawValue), \(referral.allowEdit),
                        'open', \(at), \(at))
                """, logger: Self.logger)
            let stored = try await Self.referral(connection, id: referral.id)!
            try await Self.notifyReferee(connection, stored, type: NotificationType.referralReceived, event: "created", at: referral.createdAt)
            return .referral(stored)
        }
    }

    public func referral(id: UUID) async throws -> Referral? {
        try await client.withConnection { connection in try await Self.referral(connection, id: id) }
    }

    public func referrals(_ filter: ReferralFilter) async throws -> [Referral] {
        var any: [String] = []
        var binds = PostgresBindings()
        if let team = filter.fromTeamId {
            binds.append(team)
            any.append("r.fromTeamId = $\(binds.count)")
        }
        if let team = filter.toTeamId {
            binds.append(team)
            any.append("r.toTeamId = $\(binds.count)")
        }
        if let assignee = filter.assignee {
            binds.append(assignee)
            any.append("r.assignee = $\(binds.count)")
        }
        var sql = Self.referralSelect + " WHERE (" + (any.isEmpty ? "TRUE" : any.joined(separator: " OR ")) + ")"
        if let state = filter.state {
            binds.append(state.rawValue)
            sql += " AND r.state = $\(binds.count)"
        }
        return try await client.query(PostgresQuery(unsafeSQL: sql + " ORDER BY r.createdAt DESC, r.id", binds: binds), logger: Self.logger)
            .collect().map(Self.referral)
    }

    public func actOnReferral(id: UUID, _ action: ReferralAction, by actor: String, at time: Date) async throws -> ReferralOutcome {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            guard let current = try await Self.referral(connection, id: id) else { return .notFound }
            let (from, to) = action.transition
            guard from.contains(current.state) else { return .notAllowed(current.state) }
            try await connection.query(
                "UPDATE referral SET state = \(to.rawValue), updatedAt = \(Self.timestamp(time)) WHERE id = \(Self.key(id))", logger: Self.logger)
            let updated = try await Self.referral(connection, id: id)!
            if action == .withdraw {
                try await Self.notifyReferee(connection, updated, type: action.notificationType, event: to.rawValue, at: time)
            } else {
                try await Self.notify(
                    connection, username: updated.referrer, type: action.notificationType, eventKey: "referral:\(Self.key(id)):\(to.rawValue)",
                    subject: Self.subject(updated, by: actor), at: time)
            }
            return .referral(updated)
        }
    }

    public func reassignReferral(id: UUID, to assignee: String, by actor: String, at time: Date) async throws -> ReferralOutcome {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            guard let current = try await Self.referral(connection, id: id) else { return .notFound }
            guard current.state.isActive else { return .notAllowed(current.state) }
            guard try await Self.member(connection, teamId: current.toTeamId, username: assignee) != nil else { return .notAMember(assignee) }
            try await connection.query(
                "UPDATE referral SET assignee = \(assignee), updatedAt = \(Self.timestamp(time)) WHERE id = \(Self.key(id))", logger: Self.logger)
            let updated = try await Self.referral(connection, id: id)!
            try await Self.notify(
                connection, username: assignee, type: NotificationType.referralReassigned,
                eventKey: "referral:\(Self.key(id)):assigned:\(Self.timestamp(time)):\(assignee)", subject: Self.subject(updated, by: actor), at: time)
            return .referral(updated)
        }
    }

    public func addReferralMessage(id: UUID, author: String, text: String, at time: Date) async throws -> ReferralMessage? {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            guard let current = try await Self.referral(connection, id: id) else { return nil }
            let messageId = try await connection.query(
                """
                INSERT INTO referralMessage (referralId, author, text, at) VALUES (\(Self.key(id)), \(author), \(text), \(Self.timestamp(time)))
                RETURNING id
                """, logger: Self.logger
            ).collect().first?.decode(Int64.self) ?? 0
            let subject = Self.subject(current, by: author).merging(["message": String(messageId)]) { $1 }
            // The other side: the referrer hears from the receiving team, and the referee from the referring one.
            let inReceivingTeam = try await Self.member(connection, teamId: current.toTeamId, username: author) != nil
            let fromReferee = author != current.referrer && (author == current.assignee || inReceivingTeam)
            if fromReferee {
                try await Self.notify(
                    connection, username: current.referrer, type: NotificationType.referralMessage,
                    eventKey: "referral:\(Self.key(id)):message:\(messageId)", subject: subject, at: time)
            } else {
                try await Self.notifyReferee(
                    connection, current, type: NotificationType.referralMessage, event: "message:\(messageId)", at: time, subject: subject)
            }
            return ReferralMessage(id: messageId, referralId: id, author: author, text: text, at: time)
        }
    }

    public func referralMessages(id: UUID) async throws -> [ReferralMessage] {
        try await client.query(
            "SELECT id, author, text, at FROM referralMessage WHERE referralId = \(Self.key(id)) ORDER BY id", logger: Self.logger
        ).collect().map { row in
            let (messageId, author, text, at) = try row.decode((Int64, String, String, Double).self)
            return ReferralMessage(id: messageId, referralId: id, author: author, text: text, at: Self.date(at))
        }
    }

    public func referralAccess(recordId: UUID, username: String, teamId: Int64, role: Role) async throws -> (read: Bool, edit: Bool) {
        let rows = try await client.query(
            """
            SELECT allowEdit FROM referral WHERE recordId = \(Self.key(recordId)) AND state IN ('open', 'accepted') AND toTeamId = \(teamId)
            AND (assignee = \(username) OR (assignee IS NULL AND \(role.rawValue) = 'coordinator'))
            """, logger: Self.logger
        ).collect()
        return (!rows.isEmpty, try rows.contains { try $0.decode(Bool.self) })
    }

    private static let referralSelect = """
        SELECT r.id, r.recordId, r.fromTeamId, f.name, r.referrer, r.toTeamId, t.name, r.assignee, r.reason, r.priority, r.allowEdit,
               r.state, r.createdAt, r.updatedAt
        FROM referral r JOIN team f ON f.id = r.fromTeamId JOIN team t ON t.id = r.toTeamId
        """

    private static func referral(_ connection: PostgresConnection, id: UUID) async throws -> Referral? {
        var binds = PostgresBindings()
        binds.append(key(id))
        return try await connection.query(PostgresQuery(unsafeSQL: referralSelect + " WHERE r.id = $1", binds: binds), logger: logger)
            .collect().first.map(referral)
    }

    private static func referral(_ row: PostgresRow) throws -> Referral {
        let (id, recordId, fromTeamId, fromTeam, referrer, toTeamId, toTeam, assignee, reason, priority, allowEdit, state, createdAt, updatedAt) =
            try row.decode((String, String, Int64, String, String, Int64, String, String?, String, String, Bool, String, Double, Double).self)
        return Referral(
            id: UUID(uuidString: id) ?? UUID(), recordId: UUID(uuidString: recordId) ?? UUID(), fromTeamId: fromTeamId, fromTeam: fromTeam,
            referrer: referrer, toTeamId: toTeamId, toTeam: toTeam, assignee: assignee, reason: reason,
            priority: ReferralPriority(rawValue: priority) ?? .routine, allowEdit: allowEdit, state: ReferralState(rawValue: state) ?? .withdrawn,
            createdAt: date(createdAt), updatedAt: date(updatedAt))
    }

    /// Ids and names only: never the reason (it may describe the patient) or the record's content.
    private static func subject(_ referral: Referral, by actor: String) -> [String: String] {
        [
            "referral": key(referral.id), "record": key(referral.recordId), "fromTeam": referral.fromTeam, "toTeam": referral.toTeam,
            "priority": referral.priority.rawValue, "by": actor,
        ]
    }

    /// The assignee, or the receiving team's coordinators while nobody is assigned.
    private static func notifyReferee(
        _ connection: PostgresConnection, _ referral: Referral, type: String, event: String, at time: Date, subject: [String: String]? = nil
    ) async throws {
        var recipients: [String]
        if let assignee = referral.assignee {
            recipients = [assignee]
        } else {
            recipients = try await connection.query(
                "SELECT username FROM account WHERE teamId = \(referral.toTeamId) AND role = 'coordinator'", logger: logger
            ).collect().map { try $0.decode(String.self) }
        }
        for recipient in recipients {
            try await notify(
                connection, username: recipient, type: type, eventKey: "referral:\(key(referral.id)):\(event)",
                subject: subject ?? Self.subject(referral, by: referral.referrer), at: time)
        }
    }
}
