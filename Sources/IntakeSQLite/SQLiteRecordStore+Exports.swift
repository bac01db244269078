import Foundation
import GRDB
import IntakeCore
import IntakeExport
import IntakeService

extension SQLiteRecordStore {
    public func exportSnapshot(teamId: Int64?) async throws -> any ExportSnapshot {
        // A snapshot is a read-only connection held in one read transaction; writers go on.
        let snapshot = try database.makeSnapshot()
        let cursor = try await snapshot.read { db in
            if let teamId {
                return try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(teamSeq), 0) FROM record WHERE teamId = ?", arguments: [teamId])
                    ?? 0
            }
            return try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(changeSeq), 0) FROM record") ?? 0
        }
        return SQLiteExportSnapshot(snapshot: snapshot, cursor: cursor)
    }

    public func secret(named name: String) async throws -> Data {
        try await database.write { db in
            if let existing = try Data.fetchOne(db, sql: "SELECT value FROM serverSecret WHERE name = ?", arguments: [name]) {
                return existing
            }
            var bytes = [UInt8](repeating: 0, count: 32)
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
            let secret = Data(bytes)
            try db.execute(
                sql: "INSERT INTO serverSecret (name, value, createdAt) VALUES (?, ?, ?)",
                arguments: [name, secret, Self.timestamp(Date())])
            return secret
        }
    }
}

/// An export's view of the SQLite store: a GRDB snapshot (one read transaction).
struct SQLiteExportSnapshot: ExportSnapshot {
    let snapshot: DatabaseSnapshot
    let cursor: Int64

    func count(_ query: ExportQuery) async throws -> Int {
        try await snapshot.read { db in
            let (filter, arguments) = Self.filter(query)
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record r WHERE \(filter)", arguments: arguments) ?? 0
        }
    }

    func page(_ query: ExportQuery) async throws -> [ExportedRecord] {
        try await snapshot.read { db in
            let (filter, arguments) = Self.filter(query)
            let column = Self.cursorColumn(query)
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT r.body, r.revision, r.\(column), p.id IS NOT NULL, p.sharingScope,
                        (SELECT c.method FROM consent c WHERE c.patientId = r.patientId ORDER BY c.id DESC LIMIT 1),
                        (SELECT c.recordedAt FROM consent c WHERE c.patientId = r.patientId ORDER BY c.id DESC LIMIT 1),
                        (SELECT group_concat(g.groupName, ',') FROM patientGroup g WHERE g.patientId = r.patientId),
                        r.collector, r.reviewState
                    FROM record r LEFT JOIN patient p ON p.id = r.patientId
                    WHERE \(filter) ORDER BY r.\(column) LIMIT ?
                    """,
                arguments: arguments + [query.limit])
            var page: [ExportedRecord] = []
            page.reserveCapacity(query.limit)
            while let row = try rows.next() {
                // The body's bytes straight from SQLite's row buffer: one copy, no String.
                let body = try row.withUnsafeData(atIndex: 0) { data in data.map { [UInt8]($0) } ?? [] }
                var registry: RegistryFacts?
                if row[3] as Bool {
                    let groups = (row[7] as String?).map { $0.split(separator: ",").map(String.init) } ?? []
                    registry = RegistryFacts(
                        sharingScope: row[4], consentMethod: row[5], consentedAt: (row[6] as Double?).map(SQLiteRecordStore.date),
                        dataGroups: groups)
                }
                page.append(
                    ExportedRecord(
                        body: body, revision: row[1], cursor: row[2], registry: registry, collector: row[8],
                        reviewState: (row[9] as String?).flatMap(ReviewState.init(rawValue:))))
            }
            return page
        }
    }

    func withdrawn(_ query: ExportQuery) async throws -> [UUID] {
        guard let consent = query.consent, !consent.scopes.isEmpty, let previous = query.previous else { return [] }
        return try await snapshot.read { db in
            let column = Self.cursorColumn(query)
            var sql = "r.\(column) <= ? AND r.questionnaireId = ? AND r.patientId IS NOT NULL AND r.deletedAt IS NULL"
            var arguments: StatementArguments = [query.upTo, query.questionnaireId]
            if let team = query.teamId {
                sql += " AND r.teamId = ?"
                arguments += [team]
            }
            Self.groupFilter(query, &sql, &arguments)
            let scopes = "(" + consent.scopes.map { _ in "?" }.joined(separator: ", ") + ")"
            let before: String
            switch previous {
            case .cursor(let after):
                // Only records the earlier export could hold: begun by then.
                sql += " AND r.\(Self.firstColumn(query)) <= ?"
                arguments += [after]
                before = "c.\(column) <= ?"
                arguments += [after]
            case .time(let time):
                // By the record's rowid (v37); should its revisions have moved off it while the
                // server ran (see `SQLiteRecordStore.placedRevisions`), by a scan of them.
                sql += """
                     AND (EXISTS (SELECT 1 FROM recordRevision v WHERE v.recordRow = r.rowid AND v.recordId = r.id
                                  AND v.revision = 1 AND v.savedAt < ?)
                        OR (NOT EXISTS (SELECT 1 FROM recordRevision v WHERE v.recordRow = r.rowid AND v.recordId = r.id)
                            AND EXISTS (SELECT 1 FROM recordRevision v WHERE v.recordId = r.id AND v.revision = 1 AND v.savedAt < ?)))
                    """
                arguments += [SQLiteRecordStore.timestamp(time), SQLiteRecordStore.timestamp(time)]
                before = "c.recordedAt < ?"
                arguments += [SQLiteRecordStore.timestamp(time)]
            }
            sql +=
                " AND COALESCE((SELECT c.scope FROM consent c WHERE c.patientId = r.patientId AND \(before) ORDER BY c.id DESC LIMIT 1), '') IN \(scopes)"
            arguments += StatementArguments(consent.scopes.map(\.rawValue))
            sql +=
                " AND COALESCE((SELECT c.scope FROM consent c WHERE c.patientId = r.patientId AND c.\(column) <= ? ORDER BY c.id DESC LIMIT 1), '') NOT IN \(scopes)"
            arguments += [query.upTo]
            arguments += StatementArguments(consent.scopes.map(\.rawValue))
            return try String.fetchAll(db, sql: "SELECT r.id FROM record r WHERE \(sql) ORDER BY r.\(column)", arguments: arguments)
                .compactMap(UUID.init(uuidString:))
        }
    }

    func deleted(_ query: ExportQuery) async throws -> [RemovedRecord] {
        guard let previous = query.previous else { return [] }
        return try await snapshot.read { db in
            let column = Self.cursorColumn(query)
            var sql = "r.deletedAt IS NOT NULL AND r.\(column) <= ? AND r.questionnaireId = ?"
            var arguments: StatementArguments = [query.upTo, query.questionnaireId]
            if let team = query.teamId {
                sql += " AND r.teamId = ?"
                arguments += [team]
            } else {
                // A record that moved between teams is still in an export of every team.
                sql += " AND r.exitOf IS NULL"
            }
            switch previous {
            case .cursor(let after):
                // Deleted after the earlier export, and begun before it.
                sql += " AND r.\(column) > ? AND r.\(Self.firstColumn(query)) <= ?"
                arguments += [after, after]
            case .time(let time):
                sql += " AND r.deletedAt >= ? AND r.receivedAt < ?"
                arguments += [SQLiteRecordStore.timestamp(time), SQLiteRecordStore.timestamp(time)]
            }
            return try Row.fetchAll(
                db, sql: "SELECT COALESCE(r.exitOf, r.id), r.exitOf IS NOT NULL FROM record r WHERE \(sql) ORDER BY r.\(column)",
                arguments: arguments
            )
            .compactMap { row in
                UUID(uuidString: row[0]).map { RemovedRecord(recordId: $0, reason: (row[1] as Bool) ? .transferred : .deleted) }
            }
        }
    }

    func reports(_ query: ExportQuery, after position: ReportPosition?, limit: Int) async throws -> [Report] {
        if let consent = query.consent, consent.scopes.isEmpty { return [] }
        return try await snapshot.read { db in
            var sql = """
                SELECT rp.* FROM report rp JOIN patient p ON p.id = rp.patientId
                WHERE rp.version = (SELECT MAX(v.version) FROM report v WHERE v.patientId = rp.patientId AND v.series = rp.series AND v.dateKey = rp.dateKey)
                """
            var arguments: StatementArguments = []
            if let team = query.teamId {
                sql += " AND p.teamId = ?"
                arguments += [team]
            }
            if let consent = query.consent {
                sql += " AND p.sharingScope IN (" + consent.scopes.map { _ in "?" }.joined(separator: ", ") + ")"
                arguments += StatementArguments(consent.scopes.map(\.rawValue))
            }
            if !query.dataGroups.isEmpty {
                sql +=
                    " AND p.id IN (SELECT g.patientId FROM patientGroup g WHERE g.groupName IN ("
                    + query.dataGroups.map { _ in "?" }.joined(separator: ", ") + "))"
                arguments += StatementArguments(query.dataGroups)
            }
            if let position {
                sql += " AND (rp.patientId, rp.series, rp.dateKey) > (?, ?, ?)"
                arguments += [SQLiteRecordStore.key(position.patientId), position.series, position.date]
            }
            sql += " ORDER BY rp.patientId, rp.series, rp.dateKey LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(SQLiteRecordStore.report)
        }
    }

    /// A team's export follows the team's own change cursor; an export of every team, the deployment's.
    private static func cursorColumn(_ query: ExportQuery) -> String {
        query.teamId == nil ? "changeSeq" : "teamSeq"
    }

    /// Where each record began, on the same count as ``cursorColumn(_:)``.
    private static func firstColumn(_ query: ExportQuery) -> String {
        query.teamId == nil ? "firstChangeSeq" : "firstTeamSeq"
    }

    private static func groupFilter(_ query: ExportQuery, _ sql: inout String, _ arguments: inout StatementArguments) {
        guard !query.dataGroups.isEmpty else { return }
        sql +=
            " AND r.patientId IN (SELECT g.patientId FROM patientGroup g WHERE g.groupName IN ("
            + query.dataGroups.map { _ in "?" }.joined(separator: ", ") + "))"
        arguments += StatementArguments(query.dataGroups)
    }

    private static func filter(_ query: ExportQuery) -> (String, StatementArguments) {
        let column = cursorColumn(query)
        var sql = "r.\(column) > ? AND r.\(column) <= ? AND r.questionnaireId = ? AND r.deletedAt IS NULL"
        var arguments: StatementArguments = [query.after, query.upTo, query.questionnaireId]
        if let team = query.teamId {
            sql += " AND r.teamId = ?"
            arguments += [team]
        }
        if let since = query.changedSince {
            sql += " AND r.updatedAt >= ?"
            arguments += [SQLiteRecordStore.timestamp(since)]
        }
        if let consent = query.consent {
            var allowed: [String] = []
            if !consent.scopes.isEmpty {
                allowed.append(
                    "r.patientId IN (SELECT id FROM patient WHERE sharingScope IN ("
                        + consent.scopes.map { _ in "?" }.joined(separator: ", ") + "))")
                arguments += StatementArguments(consent.scopes.map(\.rawValue))
            }
            if consent.includeUnlinked { allowed.append("r.patientId IS NULL") }
            sql += allowed.isEmpty ? " AND 0" : " AND (" + allowed.joined(separator: " OR ") + ")"
        }
        groupFilter(query, &sql, &arguments)
        if !query.reviewStates.isEmpty {
            sql += " AND r.reviewState IN (" + query.reviewStates.map { _ in "?" }.joined(separator: ", ") + ")"
            arguments += StatementArguments(query.reviewStates.map(\.rawValue))
        }
        if !query.recordIds.isEmpty {
            sql += " AND r.id IN (" + query.recordIds.map { _ in "?" }.joined(separator: ", ") + ")"
            arguments += StatementArguments(query.recordIds.map(SQLiteRecordStore.key))
        }
        return (sql, arguments)
    }
}
