import Foundation
import IntakeService
import PostgresNIO

/// Review changes take the change lock, as edits do (an edit and a lock of one record take turns
/// across servers), then the team lock (their notifications get ids in commit order).
extension PostgresRecordStore {
    public func review(recordId: UUID) async throws -> RecordReview? {
        try await client.withConnection { connection in try await Self.review(connection, id: Self.key(recordId)) }
    }

    public func reviewEntries(recordId: UUID) async throws -> [ReviewEntry] {
        try await client.query(
            "SELECT id, author, state, locked, text, at FROM reviewEntry WHERE recordId = \(Self.key(recordId)) ORDER BY id",
            logger: Self.logger
        ).collect().map { row in
            let (id, author, state, locked, text, at) = try row.decode((Int64, String, String?, Bool?, String, Double).self)
            return ReviewEntry(
                id: id, recordId: recordId, author: author, state: state.flatMap(ReviewState.init(rawValue:)), locked: locked, text: text,
                at: Self.date(at))
        }
    }

    public func changeReview(recordId: UUID, at time: Date, _ decide: @Sendable (RecordReview) -> ReviewDecision) async throws
        -> ReviewOutcome
    {
        try await transaction { connection in
            try await Self.lock(Self.changeLock, connection)
            guard let current = try await Self.review(connection, id: Self.key(recordId)) else { return .notFound }
            switch decide(current) {
            case .refuse(let outcome): return outcome
            case .change(let change):
                let entry = try await Self.apply(change, to: current, at: time, counted: true, connection)
                return .reviewed(try await Self.review(connection, id: Self.key(recordId))!, entry)
            }
        }
    }

    public func reviews(_ filter: ReviewFilter) async throws -> [RecordReview] {
        var (sql, binds) = Self.reviewWhere(filter)
        binds.append(filter.limit)
        sql = Self.reviewSelect + sql + " ORDER BY updatedAt DESC, id LIMIT $\(binds.count)"
        binds.append(filter.offset)
        sql += " OFFSET $\(binds.count)"
        return try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().map(Self.review)
    }

    public func reviewCount(_ filter: ReviewFilter) async throws -> Int {
        let (sql, binds) = Self.reviewWhere(filter)
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: "SELECT COUNT(*)::bigint FROM record" + sql, binds: binds), logger: Self.logger
        ).collect()
        return try Int(rows.first?.decode(Int64.self) ?? 0)
    }

    /// The filter as a WHERE clause over live records, and its bindings.
    private static func reviewWhere(_ filter: ReviewFilter) -> (String, PostgresBindings) {
        var binds = PostgresBindings()
        var sql = " WHERE deletedAt IS NULL"
        if let team = filter.teamId {
            binds.append(team)
            sql += " AND teamId = $\(binds.count)"
        }
        if !filter.states.isEmpty {
            binds.append(filter.states.map(\.rawValue))
            sql += " AND reviewState = ANY($\(binds.count))"
        }
        if let questionnaire = filter.questionnaireId {
            binds.append(questionnaire)
            sql += " AND questionnaireId = $\(binds.count)"
        }
        if let collector = filter.collector {
            binds.append(collector)
            sql += " AND collector = $\(binds.count)"
        }
        if let version = filter.questionnaireVersion {
            binds.append(version)
            sql += " AND questionnaireVersion = $\(binds.count)"
        }
        if let from = filter.changedFrom {
            binds.append(timestamp(from))
            sql += " AND updatedAt >= $\(binds.count)"
        }
        if let before = filter.changedBefore {
            binds.append(timestamp(before))
            sql += " AND updatedAt < $\(binds.count)"
        }
        if let patient = filter.patientId {
            binds.append(key(patient))
            sql += " AND patientId = $\(binds.count)"
        }
        return (sql, binds)
    }

    public func recordActivity(teamId: Int64?, since: Date) async throws -> [RecordActivity] {
        var binds = PostgresBindings()
        binds.append(Self.timestamp(since))
        var sql = """
            SELECT to_char(to_timestamp(receivedAt) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, questionnaireId, collector, COUNT(*)::bigint
            FROM record WHERE deletedAt IS NULL AND receivedAt >= $1
            """
        if let teamId {
            binds.append(teamId)
            sql += " AND teamId = $2"
        }
        sql += " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        return try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().map { row in
            let (day, questionnaireId, collector, count) = try row.decode((String, String, String, Int64).self)
            return RecordActivity(day: day, questionnaireId: questionnaireId, collector: collector, count: Int(count))
        }
    }

    /// Writes a review change decided on `current` (the change lock held): the record's state and
    /// lock, the thread entry, the audit event and the notifications. Also what an edit of a
    /// reviewed record does. `counted`: the change takes a new change cursor (exports since a
    /// cursor carry the record again, with its new state); an edit has taken one already.
    static func apply(
        _ change: ReviewChange, to current: RecordReview, at time: Date, counted: Bool, _ connection: PostgresConnection
    ) async throws -> ReviewEntry {
        let key = Self.key(current.recordId)
        let at = timestamp(time)
        var binds = PostgresBindings()
        binds.append(change.state.rawValue)
        binds.append(change.locked)
        var set = "reviewState = $1, reviewLocked = $2"
        if change.decided {
            binds.append(at)
            binds.append(change.actor)
            set += ", reviewedAt = $3, reviewedBy = $4"
        }
        if counted {
            try await markChanges(teams: [current.teamId], connection)
            binds.append(teamSequence(current.teamId))
            set += ", changeSeq = nextval('record_change'), teamSeq = nextval($\(binds.count)::regclass)"
        }
        binds.append(key)
        try await connection.query(
            PostgresQuery(unsafeSQL: "UPDATE record SET \(set) WHERE id = $\(binds.count)", binds: binds), logger: logger)
        let id =
            try await connection.query(
                """
                INSERT INTO reviewEntry (recordId, author, state, locked, text, at)
                VALUES (\(key), \(change.actor), \(change.entryState?.rawValue), \(change.entryLocked), \(change.text), \(at)) RETURNING id
                """, logger: logger
            ).collect().first?.decode(Int64.self) ?? 0
        let entry = ReviewEntry(
            id: id, recordId: current.recordId, author: change.actor, state: change.entryState, locked: change.entryLocked,
            text: change.text,
            at: date(at))
        var after = current
        after.state = change.state
        after.locked = change.locked
        let subject = NotificationEvent.subject(after, by: change.actor)
        let notices = change.notices.filter { $0.to != change.actor }
        if !notices.isEmpty { try await lock(teamLock, connection) }
        for notice in notices {
            try await notify(
                connection, username: notice.to, type: notice.type, eventKey: NotificationEvent.review(current.recordId, notice.event),
                subject: subject, at: time)
        }
        _ = try await appendAudit([AuditEntry.review(current, change, at: time)], connection)
        return entry
    }

    /// What an edit saved does to the record's review (``ReviewRules/edited(_:by:at:)``), in the
    /// edit's transaction (the change lock held).
    static func reviewEdited(_ standing: RecordStanding, id: String, by editor: String, at time: Date, _ connection: PostgresConnection)
        async throws
    {
        guard let change = ReviewRules.edited(standing, by: editor, at: time), let current = try await review(connection, id: id) else {
            return
        }
        _ = try await apply(change, to: current, at: time, counted: false, connection)
    }

    private static let reviewSelect = """
        SELECT id, teamId, questionnaireId, questionnaireVersion, collector, reviewState, reviewLocked, reviewedAt, reviewedBy, updatedAt,
            deletedAt IS NOT NULL FROM record
        """

    private static func review(_ connection: PostgresConnection, id: String) async throws -> RecordReview? {
        try await connection.query(PostgresQuery(unsafeSQL: reviewSelect + " WHERE id = $1", binds: binds(id)), logger: logger).collect()
            .first
            .map(review)
    }

    private static func binds(_ value: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(value)
        return binds
    }

    private static func review(_ row: PostgresRow) throws -> RecordReview {
        let (id, teamId, questionnaireId, version, collector, state, locked, reviewedAt, reviewedBy, updatedAt, deleted) = try row.decode(
            (String, Int64, String, String, String, String, Bool, Double?, String?, Double, Bool).self)
        return RecordReview(
            recordId: UUID(uuidString: id) ?? UUID(), teamId: teamId, questionnaireId: questionnaireId, questionnaireVersion: version,
            collector: collector, state: ReviewState(rawValue: state) ?? .received, locked: locked, reviewedAt: reviewedAt.map(date),
            reviewedBy: reviewedBy, updatedAt: date(updatedAt), deleted: deleted)
    }
}
