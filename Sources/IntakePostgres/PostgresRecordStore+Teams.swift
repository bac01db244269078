import Foundation
import IntakeService
import PostgresNIO

/// Team changes take one advisory lock per transaction: they are rare, and in one order they
/// check what they change (the last coordinator, an invitation's tries) without races, and their
/// notifications get ids in the order they commit.
extension PostgresRecordStore {
    static let teamLock = "intake-team"

    // MARK: Members

    public func members(teamId: Int64) async throws -> [Member] {
        try await client.withConnection { try await Self.members($0, teamId: teamId) }
    }

    static func members(_ connection: PostgresConnection, teamId: Int64) async throws -> [Member] {
        try await connection.query(
            """
            SELECT username, role, COALESCE(teamSince, createdAt) FROM account
            WHERE teamId = \(teamId) ORDER BY role = 'coordinator' DESC, username COLLATE "C"
            """, logger: Self.logger
        ).collect().map(Self.member)
    }

    public func isOrWasMember(username: String, teamId: Int64) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT EXISTS (SELECT 1 FROM account WHERE teamId = \(teamId) AND username = \(username))
                OR EXISTS (SELECT 1 FROM membershipEvent WHERE teamId = \(teamId) AND username = \(username))
            """, logger: Self.logger
        ).collect()
        return try rows.first?.decode(Bool.self) ?? false
    }

    public func membershipHistory(teamId: Int64) async throws -> [MembershipEvent] {
        try await client.query(
            "SELECT teamId, username, kind, role, actor, at FROM membershipEvent WHERE teamId = \(teamId) ORDER BY id", logger: Self.logger
        ).collect().map { row in
            let (team, username, kind, role, actor, at) = try row.decode((Int64, String, String, String?, String, Double).self)
            return MembershipEvent(
                teamId: team, username: username, kind: MembershipEvent.Kind(rawValue: kind) ?? .joined, role: role.flatMap(Role.init),
                by: actor, at: Self.date(at))
        }
    }

    public func changeMembership(
        teamId: Int64, username: String, by actor: String, at time: Date, _ decide: @Sendable (Member?, Int) -> MembershipDecision
    ) async throws -> MembershipOutcome {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            let member = try await Self.member(connection, teamId: teamId, username: username)
            switch decide(member, try await Self.coordinatorCount(connection, teamId: teamId)) {
            case .refuse(let outcome): return outcome
            case .unchanged: return .changed(member)
            case .apply(.role(let role)):
                try await connection.query("UPDATE account SET role = \(role.rawValue) WHERE username = \(username)", logger: Self.logger)
                let event = try await Self.recordMembership(
                    connection, teamId: teamId, username: username, kind: .roleChanged, role: role, by: actor, at: time)
                try await Self.notify(
                    connection, username: username, type: NotificationType.membershipChanged, eventKey: NotificationEvent.membership(event),
                    subject: ["team": try await Self.teamName(connection, teamId), "change": "role", "role": role.rawValue, "by": actor],
                    at: time)
                return .changed(try await Self.member(connection, teamId: teamId, username: username))
            case .apply(.remove):
                let team = try await Self.teamName(connection, teamId)
                try await connection.query(
                    "UPDATE account SET teamId = NULL, teamSince = NULL WHERE username = \(username)", logger: Self.logger)
                // What they held for the team goes back to its coordinators (no longer counting them).
                try await Self.handBackReferrals(connection, teamId: teamId, username: username, by: actor, at: time)
                let event = try await Self.recordMembership(
                    connection, teamId: teamId, username: username, kind: .left, role: nil, by: actor, at: time)
                try await Self.notify(
                    connection, username: username, type: NotificationType.membershipChanged, eventKey: NotificationEvent.membership(event),
                    subject: ["team": team, "change": "removed", "by": actor], at: time)
                return .changed(nil)
            }
        }
    }

    private static func member(_ row: PostgresRow) throws -> Member {
        let (username, role, since) = try row.decode((String, String, Double).self)
        return Member(username: username, role: Role(rawValue: role) ?? .fieldworker, since: date(since))
    }

    static func member(_ connection: PostgresConnection, teamId: Int64, username: String) async throws -> Member? {
        try await connection.query(
            "SELECT username, role, COALESCE(teamSince, createdAt) FROM account WHERE teamId = \(teamId) AND username = \(username)",
            logger: logger
        ).collect().first.map(member)
    }

    private static func coordinatorCount(_ connection: PostgresConnection, teamId: Int64) async throws -> Int {
        try await connection.query(
            "SELECT COUNT(*) FROM account WHERE teamId = \(teamId) AND role = 'coordinator'", logger: logger
        ).collect().first?.decode(Int.self) ?? 0
    }

    static func teamName(_ connection: PostgresConnection, _ teamId: Int64) async throws -> String {
        try await connection.query("SELECT name FROM team WHERE id = \(teamId)", logger: logger).collect().first?.decode(String.self) ?? ""
    }

    /// Adds an event to the team's history; its id.
    @discardableResult
    static func recordMembership(
        _ connection: PostgresConnection, teamId: Int64, username: String, kind: MembershipEvent.Kind, role: Role?, by actor: String,
        at time: Date
    ) async throws -> Int64 {
        try await connection.query(
            """
            INSERT INTO membershipEvent (teamId, username, kind, role, actor, at)
            VALUES (\(teamId), \(username), \(kind.rawValue), \(role?.rawValue), \(actor), \(timestamp(time))) RETURNING id
            """, logger: logger
        ).collect().first?.decode(Int64.self) ?? 0
    }

    // MARK: Invitations

    public func createInvitation(_ invitation: NewInvitation) async throws -> InvitationOutcome {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            let invitee = try await connection.query(
                "SELECT id, role, teamId FROM account WHERE username = \(invitation.invitee)", logger: Self.logger
            ).collect().first?.decode((Int64, String, Int64?).self)
            var theirs: [Invitation] = []
            if let (inviteeId, _, _) = invitee {
                var binds = PostgresBindings()
                binds.append(invitation.teamId)
                binds.append(inviteeId)
                theirs = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: Self.invitationSelect + " WHERE i.teamId = $1 AND i.inviteeId = $2 ORDER BY i.createdAt DESC, i.id",
                        binds: binds),
                    logger: Self.logger
                ).collect().map { try Self.invitation($0).invitation }
            }
            let facts = invitee.map { Invitee(role: Role(rawValue: $0.1), teamId: $0.2) }
            if case .refuse(let outcome) = InvitationRules.invite(facts, theirs: theirs, at: invitation.createdAt) { return outcome }
            guard let (inviteeId, _, _) = invitee else { return .unknownUser }
            let created = Self.timestamp(invitation.createdAt)
            try await connection.query(
                """
                INSERT INTO invitation (id, teamId, inviteeId, role, invitedBy, passcodeHash, state, createdAt, expiresAt, updatedAt, message)
                VALUES (\(Self.key(invitation.id)), \(invitation.teamId), \(inviteeId), \(invitation.role.rawValue), \(invitation.invitedBy),
                        \(invitation.passcodeHash), 'pending', \(created), \(Self.timestamp(invitation.expiresAt)), \(created), \(invitation.message))
                """, logger: Self.logger)
            let stored = try await Self.invitation(connection, id: invitation.id)!.invitation
            try await Self.notify(
                connection, username: invitation.invitee, type: NotificationType.invited,
                eventKey: NotificationEvent.invitation(invitation.id, "created"), subject: NotificationEvent.subject(stored),
                at: invitation.createdAt)
            return .invitation(stored)
        }
    }

    public func invitation(id: UUID) async throws -> Invitation? {
        try await client.withConnection { connection in try await Self.invitation(connection, id: id)?.invitation }
    }

    public func invitations(invitee: String?, teamId: Int64?) async throws -> [Invitation] {
        var conditions: [String] = []
        var binds = PostgresBindings()
        if let invitee {
            binds.append(invitee)
            conditions.append("u.username = $\(binds.count)")
        }
        if let teamId {
            binds.append(teamId)
            conditions.append("i.teamId = $\(binds.count)")
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " OR ")
        return try await client.query(
            PostgresQuery(unsafeSQL: Self.invitationSelect + filter + " ORDER BY i.createdAt DESC, i.id", binds: binds), logger: Self.logger
        ).collect().map { try Self.invitation($0).invitation }
    }

    public func acceptInvitation(
        id: UUID, invitee: String, at time: Date, lockAfter: Int, matches: @escaping @Sendable (String) -> Bool
    ) async throws -> InvitationOutcome {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            guard let (current, hash) = try await Self.invitation(connection, id: id) else { return .notFound }
            switch InvitationRules.accept(current, invitee: invitee, passcodeMatches: matches(hash), lockAfter: lockAfter, at: time) {
            case .refuse(let outcome): return outcome
            case .wrongPasscode(let failures, let locked, let outcome):
                try await connection.query(
                    """
                    UPDATE invitation SET failedAttempts = \(failures), state = \(locked ? "locked" : "pending"),
                        updatedAt = \(Self.timestamp(time)) WHERE id = \(Self.key(id))
                    """, logger: Self.logger)
                return outcome
            case .accept: break
            }
            try await connection.query(
                "UPDATE invitation SET state = 'accepted', updatedAt = \(Self.timestamp(time)) WHERE id = \(Self.key(id))",
                logger: Self.logger)
            let accepted = try await Self.invitation(connection, id: id)!.invitation
            let members = try await Self.members(connection, teamId: current.teamId)
            for coordinator in InvitationRules.toldOfAcceptance(members: members) {
                try await Self.notify(
                    connection, username: coordinator, type: NotificationType.invitationAccepted,
                    eventKey: NotificationEvent.invitation(id, "accepted"), subject: NotificationEvent.subject(accepted), at: time)
            }
            return .invitation(accepted)
        }
    }

    public func decideInvitation(id: UUID, _ decision: InvitationDecision, by actor: String, at time: Date) async throws
        -> InvitationOutcome
    {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            guard let (current, _) = try await Self.invitation(connection, id: id) else { return .notFound }
            if let refusal = decision.refusal(of: current, by: actor, at: time) { return refusal }
            if decision == .confirm {
                // The invitee may have joined another team meanwhile (an admin put them there).
                let team = try await connection.query(
                    "SELECT teamId FROM account WHERE username = \(current.invitee)", logger: Self.logger
                ).collect().first?.decode(Int64?.self)
                guard team == nil else { return .alreadyInTeam }
                try await connection.query(
                    """
                    UPDATE account SET teamId = \(current.teamId), role = \(current.role.rawValue), teamSince = \(Self.timestamp(time))
                    WHERE username = \(current.invitee)
                    """, logger: Self.logger)
                try await Self.recordMembership(
                    connection, teamId: current.teamId, username: current.invitee, kind: .joined, role: current.role, by: actor, at: time)
            }
            try await connection.query(
                """
                UPDATE invitation SET state = \(decision.resultingState.rawValue), updatedAt = \(Self.timestamp(time))
                WHERE id = \(Self.key(id))
                """, logger: Self.logger)
            let updated = try await Self.invitation(connection, id: id)!.invitation
            let (recipient, type) = decision.notification(for: current)
            try await Self.notify(
                connection, username: recipient, type: type, eventKey: NotificationEvent.invitation(id, decision.resultingState.rawValue),
                subject: NotificationEvent.subject(updated), at: time)
            return .invitation(updated)
        }
    }

    private static let invitationSelect = """
        SELECT i.id, i.teamId, t.name, u.username, i.role, i.invitedBy, i.state, i.createdAt, i.expiresAt, i.updatedAt,
               i.failedAttempts, i.passcodeHash, i.message
        FROM invitation i JOIN account u ON u.id = i.inviteeId JOIN team t ON t.id = i.teamId
        """

    private static func invitation(_ connection: PostgresConnection, id: UUID) async throws -> (invitation: Invitation, hash: String)? {
        var binds = PostgresBindings()
        binds.append(key(id))
        return try await connection.query(PostgresQuery(unsafeSQL: invitationSelect + " WHERE i.id = $1", binds: binds), logger: logger)
            .collect().first.map(invitation)
    }

    private static func invitation(_ row: PostgresRow) throws -> (invitation: Invitation, hash: String) {
        let (id, teamId, teamName, invitee, role, invitedBy, state, createdAt, expiresAt, updatedAt, failures, hash, message) =
            try row.decode(
                (String, Int64, String, String, String, String, String, Double, Double, Double, Int, String, String?).self)
        return (
            Invitation(
                id: UUID(uuidString: id) ?? UUID(), teamId: teamId, teamName: teamName, invitee: invitee,
                role: Role(rawValue: role) ?? .fieldworker, invitedBy: invitedBy, storedState: InvitationState(rawValue: state) ?? .revoked,
                createdAt: date(createdAt), expiresAt: date(expiresAt), updatedAt: date(updatedAt), failedAttempts: failures,
                message: message),
            hash
        )
    }

    // MARK: Announcements

    public func announce(teamId: Int64?, author: String, text: String, at time: Date) async throws -> Announcement {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            let id =
                try await connection.query(
                    """
                    INSERT INTO announcement (teamId, author, text, createdAt, recipients)
                    VALUES (\(teamId), \(author), \(text), \(Self.timestamp(time)), 0) RETURNING id
                    """, logger: Self.logger
                ).collect().first?.decode(Int64.self) ?? 0
            var subject = ["announcement": String(id), "by": author, "text": text]
            if let teamId { subject["team"] = try await Self.teamName(connection, teamId) }
            // One statement for every recipient: an announcement to ten thousand users is one insert.
            try await Self.mark([Self.notificationSequence], connection)
            let recipients =
                try await connection.query(
                    """
                    WITH inserted AS (
                        INSERT INTO notification (userId, type, eventKey, subject, createdAt)
                        SELECT id, \(NotificationType.announcement), \(NotificationEvent.announcement(id)), \(NotificationSubject.encode(subject)), \(Self.timestamp(time))
                        FROM account WHERE NOT disabled AND username <> \(author) AND (\(teamId)::BIGINT IS NULL OR teamId = \(teamId))
                        ON CONFLICT (userId, eventKey) DO NOTHING RETURNING 1
                    )
                    SELECT COUNT(*) FROM inserted
                    """, logger: Self.logger
                ).collect().first?.decode(Int.self) ?? 0
            try await connection.query("UPDATE announcement SET recipients = \(recipients) WHERE id = \(id)", logger: Self.logger)
            return Announcement(id: id, teamId: teamId, author: author, text: text, createdAt: time, recipients: recipients)
        }
    }

    // MARK: Notifications

    /// Stores a notification for `username`, once per `eventKey`.
    static func notify(
        _ connection: PostgresConnection, username: String, type: String, eventKey: String, subject: [String: String], at time: Date
    ) async throws {
        // Their ids are a cursor webhooks and streams follow (PostgresChangeCursors.swift).
        try await mark([notificationSequence], connection)
        try await connection.query(
            """
            INSERT INTO notification (userId, type, eventKey, subject, createdAt)
            SELECT id, \(type), \(eventKey), \(NotificationSubject.encode(subject)), \(timestamp(time)) FROM account WHERE username = \(username)
            ON CONFLICT (userId, eventKey) DO NOTHING
            """, logger: logger)
    }

    /// The newest, below any notification still being written (a stream that starts here
    /// passes none of those).
    public func newestNotificationId(userId: Int64) async throws -> Int64 {
        try await client.withConnection { connection in
            let horizon = try await Self.horizon(of: Self.notificationSequence, alwaysThere: true, connection)
            return try await connection.query(
                "SELECT COALESCE(MAX(id), 0)::bigint FROM notification WHERE userId = \(userId) AND id <= \(horizon)", logger: Self.logger
            ).collect().first?.decode(Int64.self) ?? 0
        }
    }

    public func notifications(_ query: NotificationQuery) async throws -> [UserNotification] {
        try await client.withConnection { connection in try await Self.notifications(query, connection) }
    }

    private static func notifications(_ query: NotificationQuery, _ connection: PostgresConnection) async throws -> [UserNotification] {
        var binds = PostgresBindings()
        binds.append(query.userId)
        binds.append(query.after)
        var sql = "SELECT id, userId, type, createdAt, readAt, subject FROM notification WHERE userId = $1 AND id > $2"
        if !query.newestFirst {
            // Read oldest first, they are followed as a cursor: none is passed that is still
            // being written (PostgresChangeCursors.swift).
            binds.append(try await horizon(of: notificationSequence, alwaysThere: true, connection))
            sql += " AND id <= $\(binds.count)"
        }
        if query.unreadOnly { sql += " AND readAt IS NULL" }
        if !query.types.isEmpty {
            binds.append(query.types)
            sql += " AND type = ANY($\(binds.count))"
        }
        if let before = query.before {
            binds.append(before)
            sql += " AND id < $\(binds.count)"
        }
        binds.append(query.limit)
        sql += (query.newestFirst ? " ORDER BY id DESC LIMIT $" : " ORDER BY id LIMIT $") + "\(binds.count)"
        return try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect().map { row in
            let (id, userId, type, createdAt, readAt, subject) = try row.decode((Int64, Int64, String, Double, Double?, String).self)
            return UserNotification(
                id: id, userId: userId, type: type, createdAt: Self.date(createdAt), readAt: readAt.map(Self.date),
                subject: NotificationSubject.decode(subject))
        }
    }

    public func unreadNotificationCounts(userId: Int64) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await client.query(
            "SELECT type, COUNT(*) FROM notification WHERE userId = \(userId) AND readAt IS NULL GROUP BY type", logger: Self.logger
        ).collect() {
            let (type, count) = try row.decode((String, Int).self)
            counts[type] = count
        }
        return counts
    }

    public func markNotificationsRead(userId: Int64, eventPrefix: String, at time: Date) async throws -> Int {
        try await client.query(
            """
            UPDATE notification SET readAt = \(Self.timestamp(time))
            WHERE userId = \(userId) AND readAt IS NULL AND substr(eventKey, 1, length(\(eventPrefix))) = \(eventPrefix) RETURNING id
            """, logger: Self.logger
        ).collect().count
    }

    public func markNotificationsRead(userId: Int64, ids: [Int64]?, at time: Date) async throws -> Int {
        if let ids, ids.isEmpty { return 0 }
        let rows: [PostgresRow]
        if let ids {
            rows = try await client.query(
                """
                UPDATE notification SET readAt = \(Self.timestamp(time))
                WHERE userId = \(userId) AND readAt IS NULL AND id = ANY(\(ids)) RETURNING id
                """, logger: Self.logger
            ).collect()
        } else {
            rows = try await client.query(
                "UPDATE notification SET readAt = \(Self.timestamp(time)) WHERE userId = \(userId) AND readAt IS NULL RETURNING id",
                logger: Self.logger
            ).collect()
        }
        return rows.count
    }

    public func purgeReadNotifications(readBefore time: Date) async throws -> Int {
        try await client.query(
            """
            WITH deleted AS (DELETE FROM notification WHERE readAt IS NOT NULL AND readAt < \(Self.timestamp(time)) RETURNING 1)
            SELECT COUNT(*) FROM deleted
            """, logger: Self.logger
        ).collect().first?.decode(Int.self) ?? 0
    }

    public func deleteNotification(userId: Int64, id: Int64) async throws -> Bool {
        try await !client.query("DELETE FROM notification WHERE userId = \(userId) AND id = \(id) RETURNING id", logger: Self.logger)
            .collect().isEmpty
    }
}
