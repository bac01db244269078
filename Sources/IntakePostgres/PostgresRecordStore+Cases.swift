import Foundation
import IntakeCore
import IntakeService
import PostgresNIO

/// Case writers take the case lock: one at a time across servers, so a case's change sequence
/// follows commit order (a reader following it never passes a case written after it read).
extension PostgresRecordStore {
    static let caseLock = "intake-case"

    public func caseCursor(teamId: Int64) async throws -> Int64 {
        try await client.query("SELECT cursor FROM caseCursor WHERE teamId = \(teamId)", logger: Self.logger).collect().first?
            .decode(Int64.self) ?? 0
    }

    public func caseFeed(teamId: Int64, after: Int64, limit: Int) async throws -> [CaseFeedEntry] {
        try await client.withConnection { connection in
            // Up to the cursor every change below which has committed, as the change feed reads
            // (PostgresChangeCursors.swift); the record's columns but its body (nor its patient's).
            let upTo = try await Self.changeHorizon(teamId: teamId, connection)
            let rows = try await connection.query(
                """
                SELECT teamSeq, id, exitOf, deletedAt IS NOT NULL, caseWork, followsCase FROM record
                WHERE teamId = \(teamId) AND teamSeq > \(after) AND teamSeq <= \(upTo) ORDER BY teamSeq LIMIT \(limit)
                """, logger: Self.logger)
            var entries: [CaseFeedEntry] = []
            for try await (cursor, id, exitOf, deleted, caseWork, followsCase) in rows.decode(
                (Int64, String, String?, Bool, String?, String?).self)
            {
                let followed = followsCase.flatMap(UUID.init(uuidString:))
                if let exitOf {
                    if let recordId = UUID(uuidString: exitOf) {
                        entries.append(CaseFeedEntry(cursor: cursor, recordId: recordId, kind: .transferred(followedCase: followed)))
                    }
                    continue
                }
                guard let recordId = UUID(uuidString: id) else { continue }
                entries.append(
                    CaseFeedEntry(
                        cursor: cursor, recordId: recordId, kind: deleted ? .deleted(followedCase: followed) : .saved(caseWork: caseWork)))
            }
            return entries
        }
    }

    public func advanceCases(
        teamId: Int64, from: Int64, to: Int64, reading ids: Set<UUID>, at time: Date,
        _ decide: @Sendable ([UUID: StoredCase]) -> [StoredCase]
    ) async throws -> Bool {
        try await transaction { connection in
            try await Self.lock(Self.caseLock, connection)
            let cursor =
                try await connection.query("SELECT cursor FROM caseCursor WHERE teamId = \(teamId)", logger: Self.logger).collect().first?
                .decode(Int64.self) ?? 0
            guard cursor == from else { return false }
            var current: [UUID: StoredCase] = [:]
            if !ids.isEmpty {
                let keys = ids.map(Self.key)
                for row in try await connection.query("\(unescaped: Self.caseSelect) WHERE id = ANY(\(keys))", logger: Self.logger)
                    .collect()
                {
                    let stored = try Self.storedCase(row)
                    current[stored.id] = stored
                }
            }
            for stored in decide(current) { try await Self.write(stored, at: time, connection) }
            try await connection.query(
                """
                INSERT INTO caseCursor (teamId, cursor) VALUES (\(teamId), \(to))
                ON CONFLICT (teamId) DO UPDATE SET cursor = EXCLUDED.cursor
                """, logger: Self.logger)
            return true
        }
    }

    public func insertCase(_ stored: StoredCase, at time: Date) async throws -> Bool {
        try await transaction { connection in
            try await Self.lock(Self.caseLock, connection)
            guard
                try await connection.query("SELECT 1 FROM intakeCase WHERE id = \(Self.key(stored.id))", logger: Self.logger).collect()
                    .isEmpty
            else { return false }
            try await Self.write(stored, at: time, connection)
            return true
        }
    }

    public func storedCase(id: UUID) async throws -> StoredCase? {
        try await client.query("\(unescaped: Self.caseSelect) WHERE id = \(Self.key(id))", logger: Self.logger).collect().first.map(
            Self.storedCase)
    }

    public func changeCase(id: UUID, teamId: Int64, at time: Date, _ decide: @Sendable (StoredCase) -> StoredCase?) async throws
        -> StoredCase?
    {
        try await transaction { connection in
            try await Self.lock(Self.caseLock, connection)
            guard
                let current = try await connection.query("\(unescaped: Self.caseSelect) WHERE id = \(Self.key(id))", logger: Self.logger)
                    .collect().first.map(Self.storedCase), current.teamId == teamId
            else { return nil }
            guard let changed = decide(current) else { return current }
            try await Self.write(changed, at: time, connection)
            return try await connection.query("\(unescaped: Self.caseSelect) WHERE id = \(Self.key(id))", logger: Self.logger).collect()
                .first.map(Self.storedCase)
        }
    }

    public func openCases(teamId: Int64, visibleTo username: String?, changedAfter: Int64, limit: Int) async throws -> [StoredCase] {
        guard let username else {
            return try await client.query(
                "\(unescaped: Self.caseSelect) WHERE teamId = \(teamId) AND status = 'open' AND changeSeq > \(changedAfter) ORDER BY changeSeq LIMIT \(limit)",
                logger: Self.logger
            ).collect().map(Self.storedCase)
        }
        // The account's cases and the team's, each a range of the assignee index in change order,
        // merged: a page reads no more than it sends, however many cases others have.
        return try await client.query(
            """
            SELECT * FROM ((\(unescaped: Self.caseSelect) WHERE teamId = \(teamId) AND status = 'open' AND assignee = \(username)
                AND changeSeq > \(changedAfter) ORDER BY changeSeq LIMIT \(limit))
            UNION ALL
            (\(unescaped: Self.caseSelect) WHERE teamId = \(teamId) AND status = 'open' AND assignee IS NULL
                AND changeSeq > \(changedAfter) ORDER BY changeSeq LIMIT \(limit))) AS visible
            ORDER BY changeSeq LIMIT \(limit)
            """, logger: Self.logger
        ).collect().map(Self.storedCase)
    }

    public func openCaseIds(teamId: Int64, visibleTo username: String?) async throws -> [UUID] {
        var binds = PostgresBindings()
        binds.append(teamId)
        var sql = "SELECT id FROM intakeCase WHERE teamId = $1 AND status = 'open'"
        if let username {
            binds.append(username)
            sql += " AND (assignee = $2 OR assignee IS NULL)"
        }
        sql += " ORDER BY changeSeq"
        return try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().compactMap {
            UUID(uuidString: try $0.decode(String.self))
        }
    }

    public func teamCases(teamId: Int64, changedAfter: Int64, limit: Int) async throws -> [StoredCase] {
        try await client.query(
            "\(unescaped: Self.caseSelect) WHERE teamId = \(teamId) AND changeSeq > \(changedAfter) ORDER BY changeSeq LIMIT \(limit)",
            logger: Self.logger
        ).collect().map(Self.storedCase)
    }

    public func openCasesByDue(teamId: Int64, visibleTo username: String?, limit: Int) async throws -> [StoredCase] {
        // Those with a due date by it (the due index), then those without, in change order.
        func page(dated: Bool, limit: Int) async throws -> [StoredCase] {
            var binds = PostgresBindings()
            binds.append(teamId)
            var sql = "\(Self.caseSelect) WHERE teamId = $1 AND status = 'open' AND due IS \(dated ? "NOT NULL" : "NULL")"
            if let username {
                binds.append(username)
                sql += " AND (assignee = $2 OR assignee IS NULL)"
            }
            binds.append(limit)
            sql += " ORDER BY \(dated ? "due, " : "")changeSeq LIMIT $\(binds.count)"
            return try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().map(Self.storedCase)
        }
        let dated = try await page(dated: true, limit: limit)
        guard dated.count < limit else { return dated }
        return dated + (try await page(dated: false, limit: limit - dated.count))
    }

    public func notifyAboutCases(_ notices: [CaseNotice], at time: Date) async throws -> Int {
        guard !notices.isEmpty else { return 0 }
        return try await transaction { connection in
            // Their ids are a cursor webhooks and streams follow (PostgresChangeCursors.swift).
            try await Self.mark([Self.notificationSequence], connection)
            let rows = try await connection.query(
                """
                INSERT INTO notification (userId, type, eventKey, subject, createdAt)
                SELECT a.id, q.type, q.eventKey, q.subject, \(Self.timestamp(time))
                FROM unnest(\(notices.map(\.username))::text[], \(notices.map(\.type))::text[], \(notices.map(\.eventKey))::text[],
                            \(notices.map { NotificationSubject.encode($0.subject) })::text[]) WITH ORDINALITY AS q(username, type, eventKey, subject, n)
                JOIN account a ON a.username = q.username
                ORDER BY q.n
                ON CONFLICT (userId, eventKey) DO NOTHING
                RETURNING 1
                """, logger: Self.logger
            ).collect()
            return rows.count
        }
    }

    public func caseCounts(teamId: Int64, visibleTo username: String?, today: LocalDate) async throws -> CaseCounts {
        var binds = PostgresBindings()
        binds.append(today.description)
        binds.append(teamId)
        var sql = """
            SELECT COUNT(*), COUNT(*) FILTER (WHERE due < $1), COUNT(*) FILTER (WHERE due = $1), COUNT(*) FILTER (WHERE assignee IS NULL)
            FROM intakeCase WHERE teamId = $2 AND status = 'open'
            """
        if let username {
            binds.append(username)
            sql += " AND (assignee = $3 OR assignee IS NULL)"
        }
        let row = try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().first
        let (open, overdue, dueToday, unassigned) = try row?.decode((Int, Int, Int, Int).self) ?? (0, 0, 0, 0)
        return CaseCounts(open: open, overdue: overdue, dueToday: dueToday, unassigned: unassigned)
    }

    private static let caseSelect =
        "SELECT id, teamId, list, patientId, assignee, status, due, revision, changeSeq, updatedAt, body FROM intakeCase"

    private static func storedCase(_ row: PostgresRow) throws -> StoredCase {
        let (id, teamId, list, patientId, assignee, status, due, revision, changeSeq, updatedAt, body) = try row.decode(
            (String, Int64, String, String?, String?, String, String?, Int64, Int64, Double, String).self)
        var stored = StoredCase(
            id: UUID(uuidString: id)!, list: list, teamId: teamId, patientId: patientId.flatMap(UUID.init(uuidString:)),
            opening: CaseOpeningFacts(recordId: UUID(), at: Date(timeIntervalSince1970: 0), collector: "", properties: [:], due: nil),
            assignee: assignee, status: CaseStatus(rawValue: status) ?? .open, revision: Int(revision), changeSeq: changeSeq,
            updatedAt: date(updatedAt))
        stored.due = due.flatMap(LocalDate.init(iso:))
        try CaseBody.decode(body, into: &stored)
        return stored
    }

    /// Writes the case with the next change sequence (the case lock is held: commit order).
    private static func write(_ stored: StoredCase, at time: Date, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO intakeCase (id, teamId, list, patientId, assignee, status, due, revision, changeSeq, updatedAt, body)
            VALUES (\(key(stored.id)), \(stored.teamId), \(stored.list), \(stored.patientId.map(key)), \(stored.assignee),
                \(stored.status.rawValue), \(stored.due?.description), \(Int64(stored.revision)), nextval('intake_case_seq'),
                \(timestamp(time)), \(CaseBody.encode(stored)))
            ON CONFLICT (id) DO UPDATE SET teamId = EXCLUDED.teamId, list = EXCLUDED.list, patientId = EXCLUDED.patientId,
                assignee = EXCLUDED.assignee, status = EXCLUDED.status, due = EXCLUDED.due, revision = EXCLUDED.revision,
                changeSeq = EXCLUDED.changeSeq, updatedAt = EXCLUDED.updatedAt, body = EXCLUDED.body
            """, logger: logger)
    }
}
