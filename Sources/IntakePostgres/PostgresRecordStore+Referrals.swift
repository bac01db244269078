import Foundation
import IntakeService
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
            try await Self.deliver(
                connection, ReferralRules.created(stored), of: stored.id, subject: NotificationEvent.subject(stored, by: referral.referrer),
                except: referral.referrer, at: referral.createdAt)
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
        if let record = filter.recordId {
            binds.append(Self.key(record))
            sql += " AND r.recordId = $\(binds.count)"
        }
        if let patient = filter.patientId {
            binds.append(Self.key(patient))
            sql += " AND r.recordId IN (SELECT id FROM record WHERE patientId = $\(binds.count))"
        }
        return try await client.query(PostgresQuery(unsafeSQL: sql + " ORDER BY r.createdAt DESC, r.id", binds: binds), logger: Self.logger)
            .collect().map(Self.referral)
    }

    public func changeReferral(id: UUID, at time: Date, _ decide: @Sendable (Referral) -> ReferralDecision) async throws -> ReferralOutcome
    {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            return try await Self.changeReferral(connection, id: id, at: time, decide)
        }
    }

    /// Reads the referral, asks `decide`, and writes what it says with its notifications, in the
    /// transaction of `connection`, whose caller holds the team lock.
    static func changeReferral(
        _ connection: PostgresConnection, id: UUID, at time: Date, _ decide: (Referral) -> ReferralDecision
    ) async throws -> ReferralOutcome {
        guard let current = try await Self.referral(connection, id: id) else { return .notFound }
        let change: ReferralChange
        switch decide(current) {
        case .refuse(let outcome): return outcome
        case .unchanged: return .referral(current)
        case .change(let decided): change = decided
        }
        if let member = change.mustBeMember, try await Self.member(connection, teamId: change.toTeamId, username: member) == nil {
            return .notAMember(member)
        }
        try await connection.query(
            """
            UPDATE referral SET state = \(change.state.rawValue), toTeamId = \(change.toTeamId), assignee = \(change.assignee),
                acceptedAt = \(change.acceptedAt.map(Self.timestamp)), acceptedBy = \(change.acceptedBy), updatedAt = \(Self.timestamp(time))
            WHERE id = \(Self.key(id))
            """, logger: Self.logger)
        let updated = try await Self.referral(connection, id: id)!
        for notice in change.notices {
            try await Self.deliver(
                connection, notice, of: id, subject: NotificationEvent.subject(updated, by: change.actor), except: change.actor, at: time)
        }
        return .referral(updated)
    }

    /// The referrals of a record being deleted, as ``ReferralRules/recordDeleted(_:by:at:)`` decides
    /// (the caller holds the team lock).
    static func closeReferrals(_ connection: PostgresConnection, recordId: UUID, by actor: String, at time: Date) async throws {
        let ids = try await connection.query(
            "SELECT id FROM referral WHERE recordId = \(Self.key(recordId)) ORDER BY id", logger: Self.logger
        )
        .collect().map { try $0.decode(String.self) }
        for id in ids.compactMap(UUID.init(uuidString:)) {
            _ = try await changeReferral(connection, id: id, at: time) { ReferralRules.recordDeleted($0, by: actor, at: time) }
        }
    }

    /// The referrals assigned to a member leaving a team, as
    /// ``ReferralRules/memberLeft(_:member:teamId:by:at:)`` decides (the caller holds the team lock).
    static func handBackReferrals(_ connection: PostgresConnection, teamId: Int64, username: String, by actor: String, at time: Date)
        async throws
    {
        let ids = try await connection.query(
            "SELECT id FROM referral WHERE toTeamId = \(teamId) AND assignee = \(username) ORDER BY id", logger: Self.logger
        ).collect().map { try $0.decode(String.self) }
        for id in ids.compactMap(UUID.init(uuidString:)) {
            _ = try await changeReferral(connection, id: id, at: time) {
                ReferralRules.memberLeft($0, member: username, teamId: teamId, by: actor, at: time)
            }
        }
    }

    /// Who a notice goes to: the user, or the referee (the assignee, else the team's coordinators).
    private static func recipients(_ connection: PostgresConnection, _ recipient: ReferralRecipient) async throws -> [String] {
        switch recipient {
        case .user(let name): return [name]
        case .referee(let assignee?, _): return [assignee]
        case .referee(nil, let teamId):
            return try await connection.query(
                "SELECT username FROM account WHERE teamId = \(teamId) AND role = 'coordinator'", logger: logger
            )
            .collect().map { try $0.decode(String.self) }
        }
    }

    public func addReferralMessage(id: UUID, author: String, text: String, at time: Date) async throws -> ReferralMessage? {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            guard let current = try await Self.referral(connection, id: id) else { return nil }
            let messageId =
                try await connection.query(
                    """
                    INSERT INTO referralMessage (referralId, author, text, at) VALUES (\(Self.key(id)), \(author), \(text), \(Self.timestamp(time)))
                    RETURNING id
                    """, logger: Self.logger
                ).collect().first?.decode(Int64.self) ?? 0
            let subject = NotificationEvent.subject(current, by: author).merging(["message": String(messageId)]) { $1 }
            let inReceivingTeam = try await Self.member(connection, teamId: current.toTeamId, username: author) != nil
            let notice = ReferralRules.message(messageId, on: current, by: author, authorInReceivingTeam: inReceivingTeam)
            try await Self.deliver(connection, notice, of: id, subject: subject, except: author, at: time)
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

    public func referrals(recordId: UUID) async throws -> [Referral] {
        var binds = PostgresBindings()
        binds.append(Self.key(recordId))
        return try await client.query(
            PostgresQuery(unsafeSQL: Self.referralSelect + " WHERE r.recordId = $1 ORDER BY r.createdAt, r.id", binds: binds),
            logger: Self.logger
        ).collect().map(Self.referral)
    }

    private static let referralSelect = """
        SELECT r.id, r.recordId, r.fromTeamId, f.name, r.referrer, r.toTeamId, t.name, r.assignee, r.reason, r.priority, r.allowEdit,
               r.state, r.createdAt, r.updatedAt, r.acceptedAt, r.acceptedBy
        FROM referral r JOIN team f ON f.id = r.fromTeamId JOIN team t ON t.id = r.toTeamId
        """

    private static func referral(_ connection: PostgresConnection, id: UUID) async throws -> Referral? {
        var binds = PostgresBindings()
        binds.append(key(id))
        return try await connection.query(PostgresQuery(unsafeSQL: referralSelect + " WHERE r.id = $1", binds: binds), logger: logger)
            .collect().first.map(referral)
    }

    private static func referral(_ row: PostgresRow) throws -> Referral {
        let (
            id, recordId, fromTeamId, fromTeam, referrer, toTeamId, toTeam, assignee, reason, priority, allowEdit, state, createdAt,
            updatedAt, acceptedAt, acceptedBy
        ) =
            try row.decode(
                (
                    String, String, Int64, String, String, Int64, String, String?, String, String, Bool, String, Double, Double, Double?,
                    String?
                ).self)
        return Referral(
            id: UUID(uuidString: id) ?? UUID(), recordId: UUID(uuidString: recordId) ?? UUID(), fromTeamId: fromTeamId, fromTeam: fromTeam,
            referrer: referrer, toTeamId: toTeamId, toTeam: toTeam, assignee: assignee, reason: reason,
            priority: ReferralPriority(rawValue: priority) ?? .routine, allowEdit: allowEdit,
            state: ReferralState(rawValue: state) ?? .withdrawn,
            createdAt: date(createdAt), updatedAt: date(updatedAt), acceptedAt: acceptedAt.map(date), acceptedBy: acceptedBy)
    }

    /// Stores a notice's notifications: one for each of its recipients except the one who acted.
    private static func deliver(
        _ connection: PostgresConnection, _ notice: ReferralNotice, of referral: UUID, subject: [String: String], except actor: String,
        at time: Date
    ) async throws {
        for recipient in try await recipients(connection, notice.to) where recipient != actor {
            try await notify(
                connection, username: recipient, type: notice.type, eventKey: NotificationEvent.referral(referral, notice.event),
                subject: subject,
                at: time)
        }
    }
}
