import Foundation
import GRDB
import IntakeService

extension SQLiteRecordStore {
    public func createReferral(_ referral: NewReferral) async throws -> ReferralOutcome {
        try await database.write { db in
            guard
                try Int64.fetchOne(
                    db, sql: "SELECT teamId FROM record WHERE id = ? AND deletedAt IS NULL", arguments: [Self.key(referral.recordId)])
                    == referral.fromTeamId
            else { return .recordNotFound }
            if let assignee = referral.assignee, try Self.member(db, teamId: referral.toTeamId, username: assignee) == nil {
                return .notAMember(assignee)
            }
            try db.execute(
                sql: """
                    INSERT INTO referral (id, recordId, fromTeamId, referrer, toTeamId, assignee, reason, priority, allowEdit, state, createdAt, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)
                    """,
                arguments: [
                    Self.key(referral.id), Self.key(referral.recordId), referral.fromTeamId, referral.referrer, referral.toTeamId,
                    referral.assignee, referral.reason, referral.priority.rawValue, referral.allowEdit, Self.timestamp(referral.createdAt),
                    Self.timestamp(referral.createdAt),
                ])
            let stored = try Self.referral(db, id: referral.id)!
            try Self.deliver(
                db, ReferralRules.created(stored), of: stored.id, subject: NotificationEvent.subject(stored, by: referral.referrer),
                except: referral.referrer, at: referral.createdAt)
            return .referral(stored)
        }
    }

    public func referral(id: UUID) async throws -> Referral? {
        try await database.read { db in try Self.referral(db, id: id) }
    }

    public func referrals(_ filter: ReferralFilter) async throws -> [Referral] {
        try await database.read { db in
            var any: [String] = []
            var arguments: StatementArguments = []
            if let team = filter.fromTeamId {
                any.append("r.fromTeamId = ?")
                arguments += [team]
            }
            if let team = filter.toTeamId {
                any.append("r.toTeamId = ?")
                arguments += [team]
            }
            if let assignee = filter.assignee {
                any.append("r.assignee = ?")
                arguments += [assignee]
            }
            var sql = Self.referralSelect + " WHERE (" + (any.isEmpty ? "1" : any.joined(separator: " OR ")) + ")"
            if let state = filter.state {
                sql += " AND r.state = ?"
                arguments += [state.rawValue]
            }
            if let record = filter.recordId {
                sql += " AND r.recordId = ?"
                arguments += [Self.key(record)]
            }
            if let patient = filter.patientId {
                sql += " AND r.recordId IN (SELECT id FROM record WHERE patientId = ?)"
                arguments += [Self.key(patient)]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY r.createdAt DESC, r.id", arguments: arguments).map(Self.referral)
        }
    }

    public func changeReferral(id: UUID, at time: Date, _ decide: @Sendable (Referral) -> ReferralDecision) async throws -> ReferralOutcome
    {
        try await database.write { db in try Self.changeReferral(db, id: id, at: time, decide) }
    }

    /// Reads the referral, asks `decide`, and writes what it says with its notifications, in the
    /// transaction of `db`.
    static func changeReferral(_ db: Database, id: UUID, at time: Date, _ decide: (Referral) -> ReferralDecision) throws -> ReferralOutcome
    {
        guard let current = try Self.referral(db, id: id) else { return .notFound }
        let change: ReferralChange
        switch decide(current) {
        case .refuse(let outcome): return outcome
        case .unchanged: return .referral(current)
        case .change(let decided): change = decided
        }
        if let member = change.mustBeMember, try Self.member(db, teamId: change.toTeamId, username: member) == nil {
            return .notAMember(member)
        }
        try db.execute(
            sql: "UPDATE referral SET state = ?, toTeamId = ?, assignee = ?, acceptedAt = ?, acceptedBy = ?, updatedAt = ? WHERE id = ?",
            arguments: [
                change.state.rawValue, change.toTeamId, change.assignee, change.acceptedAt.map(Self.timestamp), change.acceptedBy,
                Self.timestamp(time), Self.key(id),
            ])
        let updated = try Self.referral(db, id: id)!
        for notice in change.notices {
            try Self.deliver(
                db, notice, of: id, subject: NotificationEvent.subject(updated, by: change.actor), except: change.actor, at: time)
        }
        return .referral(updated)
    }

    /// The referrals of a record being deleted, as ``ReferralRules/recordDeleted(_:by:at:)`` decides.
    static func closeReferrals(_ db: Database, recordId: UUID, by actor: String, at time: Date) throws {
        for id in try String.fetchAll(db, sql: "SELECT id FROM referral WHERE recordId = ?", arguments: [Self.key(recordId)]) {
            guard let uuid = UUID(uuidString: id) else { continue }
            _ = try changeReferral(db, id: uuid, at: time) { ReferralRules.recordDeleted($0, by: actor, at: time) }
        }
    }

    /// The referrals assigned to a member leaving a team, as ``ReferralRules/memberLeft(_:member:teamId:by:at:)`` decides.
    static func handBackReferrals(_ db: Database, teamId: Int64, username: String, by actor: String, at time: Date) throws {
        for id in try String.fetchAll(
            db, sql: "SELECT id FROM referral WHERE toTeamId = ? AND assignee = ?", arguments: [teamId, username])
        {
            guard let uuid = UUID(uuidString: id) else { continue }
            _ = try changeReferral(db, id: uuid, at: time) {
                ReferralRules.memberLeft($0, member: username, teamId: teamId, by: actor, at: time)
            }
        }
    }

    /// Who a notice goes to: the user, or the referee (the assignee, else the team's coordinators).
    private static func recipients(_ db: Database, _ recipient: ReferralRecipient) throws -> [String] {
        switch recipient {
        case .user(let name): [name]
        case .referee(let assignee?, _): [assignee]
        case .referee(nil, let teamId):
            try String.fetchAll(db, sql: "SELECT username FROM user WHERE teamId = ? AND role = 'coordinator'", arguments: [teamId])
        }
    }

    public func addReferralMessage(id: UUID, author: String, text: String, at time: Date) async throws -> ReferralMessage? {
        try await database.write { db in
            guard let current = try Self.referral(db, id: id) else { return nil }
            try db.execute(
                sql: "INSERT INTO referralMessage (referralId, author, text, at) VALUES (?, ?, ?, ?)",
                arguments: [Self.key(id), author, text, Self.timestamp(time)])
            let message = ReferralMessage(id: db.lastInsertedRowID, referralId: id, author: author, text: text, at: time)
            let subject = NotificationEvent.subject(current, by: author).merging(["message": String(message.id)]) { $1 }
            let inReceivingTeam = try Self.member(db, teamId: current.toTeamId, username: author) != nil
            let notice = ReferralRules.message(message.id, on: current, by: author, authorInReceivingTeam: inReceivingTeam)
            try Self.deliver(db, notice, of: id, subject: subject, except: author, at: time)
            return message
        }
    }

    public func referralMessages(id: UUID) async throws -> [ReferralMessage] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM referralMessage WHERE referralId = ? ORDER BY id", arguments: [Self.key(id)]).map {
                row in
                ReferralMessage(id: row["id"], referralId: id, author: row["author"], text: row["text"], at: Self.date(row["at"]))
            }
        }
    }

    public func referrals(recordId: UUID) async throws -> [Referral] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: Self.referralSelect + " WHERE r.recordId = ? ORDER BY r.createdAt, r.id", arguments: [Self.key(recordId)]
            )
            .map(Self.referral)
        }
    }

    private static let referralSelect = """
        SELECT r.*, f.name AS fromTeam, t.name AS toTeam FROM referral r
        JOIN team f ON f.id = r.fromTeamId JOIN team t ON t.id = r.toTeamId
        """

    private static func referral(_ db: Database, id: UUID) throws -> Referral? {
        try Row.fetchOne(db, sql: referralSelect + " WHERE r.id = ?", arguments: [key(id)]).map(referral)
    }

    private static func referral(_ row: Row) throws -> Referral {
        Referral(
            id: UUID(uuidString: row["id"]) ?? UUID(), recordId: UUID(uuidString: row["recordId"]) ?? UUID(), fromTeamId: row["fromTeamId"],
            fromTeam: row["fromTeam"], referrer: row["referrer"], toTeamId: row["toTeamId"], toTeam: row["toTeam"],
            assignee: row["assignee"],
            reason: row["reason"], priority: ReferralPriority(rawValue: row["priority"]) ?? .routine, allowEdit: row["allowEdit"],
            state: ReferralState(rawValue: row["state"]) ?? .withdrawn, createdAt: date(row["createdAt"]),
            updatedAt: date(row["updatedAt"]),
            acceptedAt: (row["acceptedAt"] as Double?).map(date), acceptedBy: row["acceptedBy"])
    }

    /// Stores a notice's notifications: one for each of its recipients except the one who acted.
    private static func deliver(
        _ db: Database, _ notice: ReferralNotice, of referral: UUID, subject: [String: String], except actor: String, at time: Date
    ) throws {
        for recipient in try recipients(db, notice.to) where recipient != actor {
            try notify(
                db, username: recipient, type: notice.type, eventKey: NotificationEvent.referral(referral, notice.event), subject: subject,
                at: time)
        }
    }
}
