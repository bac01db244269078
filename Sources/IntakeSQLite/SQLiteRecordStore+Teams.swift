import Foundation
import GRDB
import IntakeService

extension SQLiteRecordStore {
    // MARK: Members

    public func members(teamId: Int64) async throws -> [Member] {
        try await database.read { db in try Self.members(db, teamId: teamId) }
    }

    static func members(_ db: Database, teamId: Int64) throws -> [Member] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT username, role, COALESCE(teamSince, createdAt) AS since FROM user
                WHERE teamId = ? ORDER BY role = 'coordinator' DESC, username
                """,
            arguments: [teamId]
        ).map { Member(username: $0["username"], role: Role(rawValue: $0["role"]) ?? .fieldworker, since: Self.date($0["since"])) }
    }

    public func isOrWasMember(username: String, teamId: Int64) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM user WHERE teamId = ? AND username = ?)
                        OR EXISTS (SELECT 1 FROM membershipEvent WHERE teamId = ? AND username = ?)
                    """,
                arguments: [teamId, username, teamId, username]) ?? false
        }
    }

    public func membershipHistory(teamId: Int64) async throws -> [MembershipEvent] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM membershipEvent WHERE teamId = ? ORDER BY id", arguments: [teamId]).map { row in
                MembershipEvent(
                    teamId: row["teamId"], username: row["username"], kind: MembershipEvent.Kind(rawValue: row["kind"]) ?? .joined,
                    role: (row["role"] as String?).flatMap(Role.init), by: row["actor"], at: Self.date(row["at"]))
            }
        }
    }

    public func changeMembership(
        teamId: Int64, username: String, by actor: String, at time: Date, _ decide: @Sendable (Member?, Int) -> MembershipDecision
    ) async throws -> MembershipOutcome {
        try await database.write { db in
            let member = try Self.member(db, teamId: teamId, username: username)
            switch decide(member, try Self.coordinatorCount(db, teamId: teamId)) {
            case .refuse(let outcome): return outcome
            case .unchanged: return .changed(member)
            case .apply(.role(let role)):
                try db.execute(sql: "UPDATE user SET role = ? WHERE username = ?", arguments: [role.rawValue, username])
                let event = try Self.recordMembership(
                    db, teamId: teamId, username: username, kind: .roleChanged, role: role, by: actor, at: time)
                try Self.notify(
                    db, username: username, type: NotificationType.membershipChanged, eventKey: NotificationEvent.membership(event),
                    subject: ["team": try Self.teamName(db, teamId), "change": "role", "role": role.rawValue, "by": actor], at: time)
                return .changed(try Self.member(db, teamId: teamId, username: username))
            case .apply(.remove):
                let team = try Self.teamName(db, teamId)
                try db.execute(sql: "UPDATE user SET teamId = NULL, teamSince = NULL WHERE username = ?", arguments: [username])
                // What they held for the team goes back to its coordinators (no longer counting them).
                try Self.handBackReferrals(db, teamId: teamId, username: username, by: actor, at: time)
                let event = try Self.recordMembership(db, teamId: teamId, username: username, kind: .left, role: nil, by: actor, at: time)
                try Self.notify(
                    db, username: username, type: NotificationType.membershipChanged, eventKey: NotificationEvent.membership(event),
                    subject: ["team": team, "change": "removed", "by": actor], at: time)
                return .changed(nil)
            }
        }
    }

    static func member(_ db: Database, teamId: Int64, username: String) throws -> Member? {
        try Row.fetchOne(
            db, sql: "SELECT username, role, COALESCE(teamSince, createdAt) AS since FROM user WHERE teamId = ? AND username = ?",
            arguments: [teamId, username]
        ).map { Member(username: $0["username"], role: Role(rawValue: $0["role"]) ?? .fieldworker, since: Self.date($0["since"])) }
    }

    private static func coordinatorCount(_ db: Database, teamId: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user WHERE teamId = ? AND role = 'coordinator'", arguments: [teamId]) ?? 0
    }

    static func teamName(_ db: Database, _ teamId: Int64) throws -> String {
        try String.fetchOne(db, sql: "SELECT name FROM team WHERE id = ?", arguments: [teamId]) ?? ""
    }

    /// Adds an event to the team's history; its id.
    @discardableResult
    static func recordMembership(
        _ db: Database, teamId: Int64, username: String, kind: MembershipEvent.Kind, role: Role?, by actor: String, at time: Date
    ) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO membershipEvent (teamId, username, kind, role, actor, at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [teamId, username, kind.rawValue, role?.rawValue, actor, timestamp(time)])
        return db.lastInsertedRowID
    }

    // MARK: Invitations

    public func createInvitation(_ invitation: NewInvitation) async throws -> InvitationOutcome {
        try await database.write { db in
            let invitee = try Row.fetchOne(db, sql: "SELECT id, role, teamId FROM user WHERE username = ?", arguments: [invitation.invitee])
            let theirs =
                try invitee.map {
                    try Row.fetchAll(
                        db, sql: Self.invitationSelect + " WHERE i.teamId = ? AND i.inviteeId = ? ORDER BY i.createdAt DESC, i.id",
                        arguments: [invitation.teamId, $0["id"] as Int64]
                    ).map(Self.invitation)
                } ?? []
            let facts = invitee.map { Invitee(role: Role(rawValue: $0["role"]), teamId: $0["teamId"]) }
            if case .refuse(let outcome) = InvitationRules.invite(facts, theirs: theirs, at: invitation.createdAt) { return outcome }
            guard let invitee else { return .unknownUser }
            try db.execute(
                sql: """
                    INSERT INTO invitation (id, teamId, inviteeId, role, invitedBy, passcodeHash, state, createdAt, expiresAt, updatedAt, message)
                    VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)
                    """,
                arguments: [
                    Self.key(invitation.id), invitation.teamId, invitee["id"] as Int64, invitation.role.rawValue, invitation.invitedBy,
                    invitation.passcodeHash, Self.timestamp(invitation.createdAt), Self.timestamp(invitation.expiresAt),
                    Self.timestamp(invitation.createdAt), invitation.message,
                ])
            let stored = try Self.invitation(db, id: invitation.id)!
            try Self.notify(
                db, username: invitation.invitee, type: NotificationType.invited,
                eventKey: NotificationEvent.invitation(invitation.id, "created"),
                subject: NotificationEvent.subject(stored), at: invitation.createdAt)
            return .invitation(stored)
        }
    }

    public func invitation(id: UUID) async throws -> Invitation? {
        try await database.read { db in try Self.invitation(db, id: id) }
    }

    public func invitations(invitee: String?, teamId: Int64?) async throws -> [Invitation] {
        try await database.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let invitee {
                conditions.append("u.username = ?")
                arguments += [invitee]
            }
            if let teamId {
                conditions.append("i.teamId = ?")
                arguments += [teamId]
            }
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " OR ")
            return try Row.fetchAll(db, sql: Self.invitationSelect + filter + " ORDER BY i.createdAt DESC, i.id", arguments: arguments)
                .map(Self.invitation)
        }
    }

    public func acceptInvitation(
        id: UUID, invitee: String, at time: Date, lockAfter: Int, matches: @escaping @Sendable (String) -> Bool
    ) async throws -> InvitationOutcome {
        try await database.write { db in
            guard let row = try Row.fetchOne(db, sql: Self.invitationSelect + " WHERE i.id = ?", arguments: [Self.key(id)]) else {
                return .notFound
            }
            let current = try Self.invitation(row)
            switch InvitationRules.accept(
                current, invitee: invitee, passcodeMatches: matches(row["passcodeHash"]), lockAfter: lockAfter, at: time)
            {
            case .refuse(let outcome): return outcome
            case .wrongPasscode(let failures, let locked, let outcome):
                try db.execute(
                    sql: "UPDATE invitation SET failedAttempts = ?, state = ?, updatedAt = ? WHERE id = ?",
                    arguments: [failures, locked ? "locked" : "pending", Self.timestamp(time), Self.key(id)])
                return outcome
            case .accept: break
            }
            try db.execute(
                sql: "UPDATE invitation SET state = 'accepted', updatedAt = ? WHERE id = ?",
                arguments: [Self.timestamp(time), Self.key(id)])
            let accepted = try Self.invitation(db, id: id)!
            for coordinator in InvitationRules.toldOfAcceptance(members: try Self.members(db, teamId: current.teamId)) {
                try Self.notify(
                    db, username: coordinator, type: NotificationType.invitationAccepted,
                    eventKey: NotificationEvent.invitation(id, "accepted"), subject: NotificationEvent.subject(accepted), at: time)
            }
            return .invitation(accepted)
        }
    }

    public func decideInvitation(id: UUID, _ decision: InvitationDecision, by actor: String, at time: Date) async throws
        -> InvitationOutcome
    {
        try await database.write { db in
            guard let current = try Self.invitation(db, id: id) else { return .notFound }
            if let refusal = decision.refusal(of: current, by: actor, at: time) { return refusal }
            if decision == .confirm {
                // The invitee may have joined another team meanwhile (an admin put them there).
                guard try Int64.fetchOne(db, sql: "SELECT teamId FROM user WHERE username = ?", arguments: [current.invitee]) == nil
                else { return .alreadyInTeam }
                try db.execute(
                    sql: "UPDATE user SET teamId = ?, role = ?, teamSince = ? WHERE username = ?",
                    arguments: [current.teamId, current.role.rawValue, Self.timestamp(time), current.invitee])
                try Self.recordMembership(
                    db, teamId: current.teamId, username: current.invitee, kind: .joined, role: current.role, by: actor, at: time)
            }
            try db.execute(
                sql: "UPDATE invitation SET state = ?, updatedAt = ? WHERE id = ?",
                arguments: [decision.resultingState.rawValue, Self.timestamp(time), Self.key(id)])
            let updated = try Self.invitation(db, id: id)!
            let (recipient, type) = decision.notification(for: current)
            try Self.notify(
                db, username: recipient, type: type, eventKey: NotificationEvent.invitation(id, decision.resultingState.rawValue),
                subject: NotificationEvent.subject(updated), at: time)
            return .invitation(updated)
        }
    }

    private static let invitationSelect = """
        SELECT i.*, u.username AS invitee, t.name AS teamName FROM invitation i
        JOIN user u ON u.id = i.inviteeId JOIN team t ON t.id = i.teamId
        """

    private static func invitation(_ db: Database, id: UUID) throws -> Invitation? {
        try Row.fetchOne(db, sql: invitationSelect + " WHERE i.id = ?", arguments: [key(id)]).map(invitation)
    }

    private static func invitation(_ row: Row) throws -> Invitation {
        Invitation(
            id: UUID(uuidString: row["id"]) ?? UUID(), teamId: row["teamId"], teamName: row["teamName"], invitee: row["invitee"],
            role: Role(rawValue: row["role"]) ?? .fieldworker, invitedBy: row["invitedBy"],
            storedState: InvitationState(rawValue: row["state"]) ?? .revoked, createdAt: date(row["createdAt"]),
            expiresAt: date(row["expiresAt"]), updatedAt: date(row["updatedAt"]), failedAttempts: row["failedAttempts"],
            message: row["message"])
    }

    // MARK: Announcements

    public func announce(teamId: Int64?, author: String, text: String, at time: Date) async throws -> Announcement {
        try await database.write { db in
            try db.execute(
                sql: "INSERT INTO announcement (teamId, author, text, createdAt, recipients) VALUES (?, ?, ?, ?, 0)",
                arguments: [teamId, author, text, Self.timestamp(time)])
            let id = db.lastInsertedRowID
            var subject = ["announcement": String(id), "by": author, "text": text]
            if let teamId { subject["team"] = try Self.teamName(db, teamId) }
            // One statement for every recipient: an announcement to ten thousand users is one insert.
            try db.execute(
                sql: """
                    INSERT INTO notification (userId, type, eventKey, subject, createdAt)
                    SELECT id, ?, ?, ?, ? FROM user
                    WHERE disabled = 0 AND username <> ? AND (? IS NULL OR teamId = ?)
                    ON CONFLICT (userId, eventKey) DO NOTHING
                    """,
                arguments: [
                    NotificationType.announcement, NotificationEvent.announcement(id), NotificationSubject.encode(subject),
                    Self.timestamp(time), author,
                    teamId, teamId,
                ])
            let recipients = db.changesCount
            try db.execute(sql: "UPDATE announcement SET recipients = ? WHERE id = ?", arguments: [recipients, id])
            return Announcement(id: id, teamId: teamId, author: author, text: text, createdAt: time, recipients: recipients)
        }
    }

    // MARK: Notifications

    /// Stores a notification for `username`, once per `eventKey`.
    static func notify(_ db: Database, username: String, type: String, eventKey: String, subject: [String: String], at time: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO notification (userId, type, eventKey, subject, createdAt)
                SELECT id, ?, ?, ?, ? FROM user WHERE username = ?
                ON CONFLICT (userId, eventKey) DO NOTHING
                """,
            arguments: [type, eventKey, NotificationSubject.encode(subject), timestamp(time), username])
    }

    public func newestNotificationId(userId: Int64) async throws -> Int64 {
        try await database.read { db in
            try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM notification WHERE userId = ?", arguments: [userId]) ?? 0
        }
    }

    public func notifications(_ query: NotificationQuery) async throws -> [UserNotification] {
        try await database.read { db in
            var sql = "SELECT * FROM notification WHERE userId = ? AND id > ?"
            var arguments: StatementArguments = [query.userId, query.after]
            if query.unreadOnly { sql += " AND readAt IS NULL" }
            if !query.types.isEmpty {
                sql += " AND type IN (" + query.types.map { _ in "?" }.joined(separator: ", ") + ")"
                arguments += StatementArguments(query.types)
            }
            if let before = query.before {
                sql += " AND id < ?"
                arguments += [before]
            }
            sql += query.newestFirst ? " ORDER BY id DESC LIMIT ?" : " ORDER BY id LIMIT ?"
            arguments += [query.limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                UserNotification(
                    id: row["id"], userId: row["userId"], type: row["type"], createdAt: Self.date(row["createdAt"]),
                    readAt: (row["readAt"] as Double?).map(Self.date), subject: NotificationSubject.decode(row["subject"]))
            }
        }
    }

    public func unreadNotificationCounts(userId: Int64) async throws -> [String: Int] {
        try await database.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT type, COUNT(*) AS n FROM notification WHERE userId = ? AND readAt IS NULL GROUP BY type",
                arguments: [userId])
            {
                counts[row["type"]] = row["n"]
            }
            return counts
        }
    }

    public func markNotificationsRead(userId: Int64, ids: [Int64]?, at time: Date) async throws -> Int {
        try await database.write { db in
            var sql = "UPDATE notification SET readAt = ? WHERE userId = ? AND readAt IS NULL"
            var arguments: StatementArguments = [Self.timestamp(time), userId]
            if let ids {
                guard !ids.isEmpty else { return 0 }
                sql += " AND id IN (" + ids.map { _ in "?" }.joined(separator: ", ") + ")"
                arguments += StatementArguments(ids)
            }
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }

    public func markNotificationsRead(userId: Int64, eventPrefix: String, at time: Date) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE notification SET readAt = ? WHERE userId = ? AND readAt IS NULL AND substr(eventKey, 1, ?) = ?",
                arguments: [Self.timestamp(time), userId, eventPrefix.count, eventPrefix])
            return db.changesCount
        }
    }

    public func purgeReadNotifications(readBefore time: Date) async throws -> Int {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM notification WHERE readAt IS NOT NULL AND readAt < ?", arguments: [Self.timestamp(time)])
            return db.changesCount
        }
    }

    public func deleteNotification(userId: Int64, id: Int64) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM notification WHERE userId = ? AND id = ?", arguments: [userId, id])
            return db.changesCount > 0
        }
    }
}
