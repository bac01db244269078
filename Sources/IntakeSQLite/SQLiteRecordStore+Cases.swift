import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    public func caseCursor(teamId: Int64) async throws -> Int64 {
        try await database.read { db in
            try Int64.fetchOne(db, sql: "SELECT cursor FROM caseCursor WHERE teamId = ?", arguments: [teamId]) ?? 0
        }
    }

    public func caseFeed(teamId: Int64, after: Int64, limit: Int) async throws -> [CaseFeedEntry] {
        try await database.read { db in
            // The record's columns but its body (nor its patient's).
            try Row.fetchAll(
                db.cachedStatement(
                    sql:
                        "SELECT teamSeq, id, exitOf, deletedAt, caseWork, followsCase FROM record WHERE teamId = ? AND teamSeq > ? ORDER BY teamSeq LIMIT ?"
                ),
                arguments: [teamId, after, limit]
            ).compactMap { row -> CaseFeedEntry? in
                let cursor: Int64 = row["teamSeq"]
                let followed = (row["followsCase"] as String?).flatMap(UUID.init(uuidString:))
                if let exitOf = row["exitOf"] as String? {
                    return UUID(uuidString: exitOf).map {
                        CaseFeedEntry(cursor: cursor, recordId: $0, kind: .transferred(followedCase: followed))
                    }
                }
                guard let id = UUID(uuidString: row["id"]) else { return nil }
                let deleted = row["deletedAt"] as Double? != nil
                return CaseFeedEntry(
                    cursor: cursor, recordId: id, kind: deleted ? .deleted(followedCase: followed) : .saved(caseWork: row["caseWork"]))
            }
        }
    }

    public func advanceCases(
        teamId: Int64, from: Int64, to: Int64, reading ids: Set<UUID>, at time: Date,
        _ decide: @Sendable ([UUID: StoredCase]) -> [StoredCase]
    ) async throws -> Bool {
        try await database.write { db in
            let cursor = try Int64.fetchOne(db, sql: "SELECT cursor FROM caseCursor WHERE teamId = ?", arguments: [teamId]) ?? 0
            guard cursor == from else { return false }
            var current: [UUID: StoredCase] = [:]
            for id in ids {
                if let found = try Self.storedCase(db, id: id) { current[id] = found }
            }
            for stored in decide(current) { try Self.write(stored, at: time, db) }
            try db.execute(
                sql: "INSERT INTO caseCursor (teamId, cursor) VALUES (?, ?) ON CONFLICT (teamId) DO UPDATE SET cursor = excluded.cursor",
                arguments: [teamId, to])
            return true
        }
    }

    public func insertCase(_ stored: StoredCase, at time: Date) async throws -> Bool {
        try await database.write { db in
            guard try Self.storedCase(db, id: stored.id) == nil else { return false }
            try Self.write(stored, at: time, db)
            return true
        }
    }

    public func storedCase(id: UUID) async throws -> StoredCase? {
        try await database.read { db in try Self.storedCase(db, id: id) }
    }

    public func changeCase(id: UUID, teamId: Int64, at time: Date, _ decide: @Sendable (StoredCase) -> StoredCase?) async throws
        -> StoredCase?
    {
        try await database.write { db in
            guard let current = try Self.storedCase(db, id: id), current.teamId == teamId else { return nil }
            guard let changed = decide(current) else { return current }
            try Self.write(changed, at: time, db)
            return try Self.storedCase(db, id: id)
        }
    }

    public func openCases(teamId: Int64, visibleTo username: String?, changedAfter: Int64, limit: Int) async throws -> [StoredCase] {
        try await database.read { db in
            guard let username else {
                return try Row.fetchAll(
                    db, sql: "SELECT * FROM intakeCase WHERE teamId = ? AND status = 'open' AND changeSeq > ? ORDER BY changeSeq LIMIT ?",
                    arguments: [teamId, changedAfter, limit]
                ).map(Self.storedCase)
            }
            // The account's cases and the team's, each a range of the assignee index in change
            // order, merged: a page reads no more than it sends, however many cases others have.
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM (SELECT * FROM intakeCase WHERE teamId = ? AND status = 'open' AND assignee = ? AND changeSeq > ?
                                   ORDER BY changeSeq LIMIT ?)
                    UNION ALL
                    SELECT * FROM (SELECT * FROM intakeCase WHERE teamId = ? AND status = 'open' AND assignee IS NULL AND changeSeq > ?
                                   ORDER BY changeSeq LIMIT ?)
                    ORDER BY changeSeq LIMIT ?
                    """,
                arguments: [teamId, username, changedAfter, limit, teamId, changedAfter, limit, limit]
            ).map(Self.storedCase)
        }
    }

    public func openCasesByDue(teamId: Int64, visibleTo username: String?, limit: Int) async throws -> [StoredCase] {
        try await database.read { db in
            // Those with a due date by it (the due index), then those without, in change order.
            let whose = username == nil ? "" : "AND (assignee = ? OR assignee IS NULL)"
            var arguments: StatementArguments = [teamId]
            if let username { arguments += [username] }
            let dated = try Row.fetchAll(
                db,
                sql:
                    "SELECT * FROM intakeCase WHERE teamId = ? AND status = 'open' AND due IS NOT NULL \(whose) ORDER BY due, changeSeq LIMIT ?",
                arguments: arguments + [limit]
            ).map(Self.storedCase)
            guard dated.count < limit else { return dated }
            let undated = try Row.fetchAll(
                db,
                sql: "SELECT * FROM intakeCase WHERE teamId = ? AND status = 'open' AND due IS NULL \(whose) ORDER BY changeSeq LIMIT ?",
                arguments: arguments + [limit - dated.count]
            ).map(Self.storedCase)
            return dated + undated
        }
    }

    public func notifyAboutCases(_ notices: [CaseNotice], at time: Date) async throws -> Int {
        try await database.write { db in
            var made = 0
            for notice in notices {
                try Self.notify(
                    db, username: notice.username, type: notice.type, eventKey: notice.eventKey, subject: notice.subject, at: time)
                made += db.changesCount
            }
            return made
        }
    }

    public func caseCounts(teamId: Int64, visibleTo username: String?, today: LocalDate) async throws -> CaseCounts {
        try await database.read { db in
            let whose = username == nil ? "" : "AND (assignee = ? OR assignee IS NULL)"
            var arguments: StatementArguments = [today.description, today.description, teamId]
            if let username { arguments += [username] }
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS open, COALESCE(SUM(due < ?), 0) AS overdue, COALESCE(SUM(due = ?), 0) AS dueToday,
                        COALESCE(SUM(assignee IS NULL), 0) AS unassigned
                    FROM intakeCase WHERE teamId = ? AND status = 'open' \(whose)
                    """, arguments: arguments)
            return CaseCounts(
                open: row?["open"] ?? 0, overdue: row?["overdue"] ?? 0, dueToday: row?["dueToday"] ?? 0, unassigned: row?["unassigned"] ?? 0
            )
        }
    }

    public func openCaseIds(teamId: Int64, visibleTo username: String?) async throws -> [UUID] {
        try await database.read { db in
            let (visible, arguments) = Self.visible(username)
            return try String.fetchAll(
                db, sql: "SELECT id FROM intakeCase WHERE teamId = ? AND status = 'open'\(visible) ORDER BY changeSeq",
                arguments: [teamId] + arguments
            ).compactMap(UUID.init(uuidString:))
        }
    }

    public func teamCases(teamId: Int64, changedAfter: Int64, limit: Int) async throws -> [StoredCase] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM intakeCase WHERE teamId = ? AND changeSeq > ? ORDER BY changeSeq LIMIT ?",
                arguments: [teamId, changedAfter, limit]
            ).map(Self.storedCase)
        }
    }

    /// `AND (assignee = ? OR assignee IS NULL)` for a field worker: theirs and the team's.
    private static func visible(_ username: String?) -> (String, StatementArguments) {
        guard let username else { return ("", []) }
        return (" AND (assignee = ? OR assignee IS NULL)", [username])
    }

    private static func storedCase(_ db: Database, id: UUID) throws -> StoredCase? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM intakeCase WHERE id = ?"), arguments: [key(id)]).map(storedCase)
    }

    private static func storedCase(_ row: Row) throws -> StoredCase {
        var stored = StoredCase(
            id: UUID(uuidString: row["id"])!, list: row["list"], teamId: row["teamId"],
            patientId: (row["patientId"] as String?).flatMap(UUID.init(uuidString:)),
            opening: CaseOpeningFacts(recordId: UUID(), at: Date(timeIntervalSince1970: 0), collector: "", properties: [:], due: nil),
            assignee: row["assignee"], status: CaseStatus(rawValue: row["status"]) ?? .open, revision: row["revision"],
            changeSeq: row["changeSeq"], updatedAt: date(row["updatedAt"]))
        stored.due = (row["due"] as String?).flatMap(LocalDate.init(iso:))
        try CaseBody.decode(row["body"], into: &stored)
        return stored
    }

    /// Writes the case with the next change sequence (the one writer takes it: commit order).
    private static func write(_ stored: StoredCase, at time: Date, _ db: Database) throws {
        let next = (try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(changeSeq) FROM intakeCase")) ?? 0) + 1
        try db.cachedStatement(
            sql: """
                INSERT INTO intakeCase (id, teamId, list, patientId, assignee, status, due, revision, changeSeq, updatedAt, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET teamId = excluded.teamId, list = excluded.list, patientId = excluded.patientId,
                    assignee = excluded.assignee, status = excluded.status, due = excluded.due, revision = excluded.revision,
                    changeSeq = excluded.changeSeq, updatedAt = excluded.updatedAt, body = excluded.body
                """
        ).execute(
            arguments: [
                key(stored.id), stored.teamId, stored.list, stored.patientId.map(key), stored.assignee, stored.status.rawValue,
                stored.due?.description, stored.revision, next, timestamp(time), CaseBody.encode(stored),
            ])
    }
}
