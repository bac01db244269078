import Foundation
import GRDB
import IntakeService

extension SQLiteRecordStore {
    public func review(recordId: UUID) async throws -> RecordReview? {
        try await database.read { db in try Self.review(db, id: Self.key(recordId)) }
    }

    public func reviewEntries(recordId: UUID) async throws -> [ReviewEntry] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM reviewEntry WHERE recordId = ? ORDER BY id", arguments: [Self.key(recordId)]).map {
                row in
                ReviewEntry(
                    id: row["id"], recordId: recordId, author: row["author"],
                    state: (row["state"] as String?).flatMap(ReviewState.init(rawValue:)),
                    locked: row["locked"], text: row["text"], at: Self.date(row["at"]))
            }
        }
    }

    public func changeReview(recordId: UUID, at time: Date, _ decide: @Sendable (RecordReview) -> ReviewDecision) async throws
        -> ReviewOutcome
    {
        try await database.write { db in
            guard let current = try Self.review(db, id: Self.key(recordId)) else { return .notFound }
            switch decide(current) {
            case .refuse(let outcome): return outcome
            case .change(let change):
                let entry = try Self.apply(change, to: current, at: time, counted: true, db)
                return .reviewed(try Self.review(db, id: Self.key(recordId))!, entry)
            }
        }
    }

    public func reviews(_ filter: ReviewFilter) async throws -> [RecordReview] {
        try await database.read { db in
            var (sql, arguments) = Self.reviewWhere(filter)
            sql = Self.reviewSelect + sql + " ORDER BY updatedAt DESC, id LIMIT ? OFFSET ?"
            arguments += [filter.limit, filter.offset]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.review)
        }
    }

    public func reviewCount(_ filter: ReviewFilter) async throws -> Int {
        try await database.read { db in
            let (sql, arguments) = Self.reviewWhere(filter)
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record" + sql, arguments: arguments) ?? 0
        }
    }

    /// The filter as a WHERE clause over live records, and its arguments.
    private static func reviewWhere(_ filter: ReviewFilter) -> (String, StatementArguments) {
        var sql = " WHERE deletedAt IS NULL"
        var arguments: StatementArguments = []
        if let team = filter.teamId {
            sql += " AND teamId = ?"
            arguments += [team]
        }
        if !filter.states.isEmpty {
            sql += " AND reviewState IN (" + filter.states.map { _ in "?" }.joined(separator: ", ") + ")"
            arguments += StatementArguments(filter.states.map(\.rawValue))
        }
        if let questionnaire = filter.questionnaireId {
            sql += " AND questionnaireId = ?"
            arguments += [questionnaire]
        }
        if let collector = filter.collector {
            sql += " AND collector = ?"
            arguments += [collector]
        }
        if let version = filter.questionnaireVersion {
            sql += " AND questionnaireVersion = ?"
            arguments += [version]
        }
        if let from = filter.changedFrom {
            sql += " AND updatedAt >= ?"
            arguments += [timestamp(from)]
        }
        if let before = filter.changedBefore {
            sql += " AND updatedAt < ?"
            arguments += [timestamp(before)]
        }
        if let patient = filter.patientId {
            sql += " AND patientId = ?"
            arguments += [key(patient)]
        }
        return (sql, arguments)
    }

    public func recordActivity(teamId: Int64?, since: Date) async throws -> [RecordActivity] {
        try await database.read { db in
            var sql = """
                SELECT strftime('%Y-%m-%d', receivedAt, 'unixepoch') AS day, questionnaireId, collector, COUNT(*) AS n
                FROM record WHERE deletedAt IS NULL AND receivedAt >= ?
                """
            var arguments: StatementArguments = [Self.timestamp(since)]
            if let teamId {
                sql += " AND teamId = ?"
                arguments += [teamId]
            }
            return try Row.fetchAll(
                db, sql: sql + " GROUP BY day, questionnaireId, collector ORDER BY day, questionnaireId, collector", arguments: arguments
            )
            .map { RecordActivity(day: $0["day"], questionnaireId: $0["questionnaireId"], collector: $0["collector"], count: $0["n"]) }
        }
    }

    /// Writes a review change decided on `current`: the record's state and lock, the thread entry,
    /// the audit event and the notifications. Also what an edit of a reviewed record does.
    /// `counted`: the change takes a new change cursor (exports since a cursor carry the record
    /// again, with its new state); an edit has taken one already.
    static func apply(_ change: ReviewChange, to current: RecordReview, at time: Date, counted: Bool, _ db: Database) throws -> ReviewEntry
    {
        let key = Self.key(current.recordId)
        var set = "reviewState = ?, reviewLocked = ?"
        var arguments: StatementArguments = [change.state.rawValue, change.locked]
        if change.decided {
            set += ", reviewedAt = ?, reviewedBy = ?"
            arguments += [timestamp(time), change.actor]
        }
        if counted {
            set += """
                , changeSeq = (SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record),
                teamSeq = (SELECT COALESCE(MAX(teamSeq), 0) + 1 FROM record WHERE teamId = ?)
                """
            arguments += [current.teamId]
        }
        try db.execute(sql: "UPDATE record SET \(set) WHERE id = ?", arguments: arguments + [key])
        try db.execute(
            sql: "INSERT INTO reviewEntry (recordId, author, state, locked, text, at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [key, change.actor, change.entryState?.rawValue, change.entryLocked, change.text, timestamp(time)])
        let entry = ReviewEntry(
            id: db.lastInsertedRowID, recordId: current.recordId, author: change.actor, state: change.entryState,
            locked: change.entryLocked,
            text: change.text, at: date(timestamp(time)))
        _ = try appendAudit([AuditEntry.review(current, change, at: time)], db)
        var after = current
        after.state = change.state
        after.locked = change.locked
        let subject = NotificationEvent.subject(after, by: change.actor)
        for notice in change.notices where notice.to != change.actor {
            try notify(
                db, username: notice.to, type: notice.type, eventKey: NotificationEvent.review(current.recordId, notice.event),
                subject: subject,
                at: time)
        }
        return entry
    }

    /// What an edit saved does to the record's review (``ReviewRules/edited(_:by:at:)``), in the edit's transaction.
    static func reviewEdited(_ standing: RecordStanding, id: String, by editor: String, at time: Date, _ db: Database) throws {
        guard let change = ReviewRules.edited(standing, by: editor, at: time), let current = try review(db, id: id) else { return }
        _ = try apply(change, to: current, at: time, counted: false, db)
    }

    private static let reviewSelect = """
        SELECT id, teamId, questionnaireId, questionnaireVersion, collector, reviewState, reviewLocked, reviewedAt, reviewedBy, updatedAt,
            deletedAt IS NOT NULL AS deleted FROM record
        """

    private static func review(_ db: Database, id: String) throws -> RecordReview? {
        try Row.fetchOne(db, sql: reviewSelect + " WHERE id = ?", arguments: [id]).map(review)
    }

    private static func review(_ row: Row) -> RecordReview {
        RecordReview(
            recordId: UUID(uuidString: row["id"]) ?? UUID(), teamId: row["teamId"], questionnaireId: row["questionnaireId"],
            questionnaireVersion: row["questionnaireVersion"], collector: row["collector"],
            state: ReviewState(rawValue: row["reviewState"]) ?? .received, locked: row["reviewLocked"],
            reviewedAt: (row["reviewedAt"] as Double?).map(date), reviewedBy: row["reviewedBy"], updatedAt: date(row["updatedAt"]),
            deleted: row["deleted"])
    }
}
