import Foundation
import GRDB
import IntakeCore
import IntakeServer

extension SQLiteRecordStore {
    public func exportSnapshot(teamId: Int64?) async throws -> any ExportSnapshot {
        // A snapshot is a read-only connection held in one read transaction; writers go on.
        let snapshot = try database.makeSnapshot()
        let cursor = try await snapshot.read { db in
            if let teamId {
                return try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(teamSeq), 0) FROM record WHERE teamId = ?", arguments: [teamId]) ?? 0
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
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record WHERE \(filter)", arguments: arguments) ?? 0
        }
    }

    func page(_ query: ExportQuery) async throws -> [ExportedRecord] {
        try await snapshot.read { db in
            let (filter, arguments) = Self.filter(query)
            let column = Self.cursorColumn(query)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT body, revision, \(column) FROM record WHERE \(filter) ORDER BY \(column) LIMIT ?",
                arguments: arguments + [query.limit])
            var page: [ExportedRecord] = []
            page.reserveCapacity(query.limit)
            while let row = try rows.next() {
                // The body's bytes straight from SQLite's row buffer: one copy, no String.
                let body = try row.withUnsafeData(atIndex: 0) { data in data.map { [UInt8]($0) } ?? [] }
                page.append(ExportedRecord(body: body, revision: row[1], cursor: row[2]))
            }
            return page
        }
    }

    /// A team's export follows the team's own change cursor; an export of every team, the deployment's.
    private static func cursorColumn(_ query: ExportQuery) -> String {
        query.teamId == nil ? "changeSeq" : "teamSeq"
    }

    private static func filter(_ query: ExportQuery) -> (String, StatementArguments) {
        let column = cursorColumn(query)
        var sql = "\(column) > ? AND \(column) <= ? AND questionnaireId = ?"
        var arguments: StatementArguments = [query.after, query.upTo, query.questionnaireId]
        if let team = query.teamId {
            sql += " AND teamId = ?"
            arguments += [team]
        }
        if let since = query.changedSince {
            sql += " AND updatedAt >= ?"
            arguments += [SQLiteRecordStore.timestamp(since)]
        }
        if let consent = query.consent {
            var allowed: [String] = []
            if !consent.scopes.isEmpty {
                allowed.append("patientId IN (SELECT id FROM patient WHERE sharingScope IN (" + consent.scopes.map { _ in "?" }.joined(separator: ", ") + "))")
                arguments += StatementArguments(consent.scopes.map(\.rawValue))
            }
            if consent.includeUnlinked { allowed.append("patientId IS NULL") }
            sql += allowed.isEmpty ? " AND 0" : " AND (" + allowed.joined(separator: " OR ") + ")"
        }
        return (sql, arguments)
    }
}
