import Foundation
import GRDB
import IntakeService

extension SQLiteRecordStore {
    public func putReport(patientId: UUID, series: String, date: ReportDate, values: String, by author: String, at time: Date) async throws
        -> ReportOutcome
    {
        try await database.write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM patient WHERE id = ?", arguments: [Self.key(patientId)]) != nil else {
                return .patientNotFound
            }
            try db.execute(
                sql: "INSERT OR IGNORE INTO reportSeries (name, dateKind) VALUES (?, ?)", arguments: [series, date.kind.rawValue])
            let kind =
                try String.fetchOne(db, sql: "SELECT dateKind FROM reportSeries WHERE name = ?", arguments: [series])
                .flatMap(ReportDate.Kind.init(rawValue:)) ?? date.kind
            guard kind == date.kind else { return .wrongDateKind(expected: kind) }
            let version =
                (try Int.fetchOne(
                    db, sql: "SELECT MAX(version) FROM report WHERE patientId = ? AND series = ? AND dateKey = ?",
                    arguments: [Self.key(patientId), series, date.key]) ?? 0) + 1
            try db.execute(
                sql: "INSERT INTO report (patientId, series, dateKey, version, body, recordedBy, recordedAt) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [Self.key(patientId), series, date.key, version, values, author, Self.timestamp(time)])
            return .stored(
                Report(
                    patientId: patientId, series: series, date: date.key, values: values, version: version, recordedBy: author,
                    recordedAt: time))
        }
    }

    public func reports(_ query: ReportQuery) async throws -> ReportsOutcome {
        try await database.read { db in
            guard
                let kind = try String.fetchOne(db, sql: "SELECT dateKind FROM reportSeries WHERE name = ?", arguments: [query.series])
                    .flatMap(ReportDate.Kind.init(rawValue:))
            else { return .unknownSeries }
            for bound in [query.start, query.end].compactMap({ $0 }) where bound.kind != kind { return .wrongDateKind(expected: kind) }
            var sql = """
                SELECT * FROM report r WHERE patientId = ? AND series = ?
                AND version = (SELECT MAX(version) FROM report v WHERE v.patientId = r.patientId AND v.series = r.series AND v.dateKey = r.dateKey)
                """
            var arguments: StatementArguments = [Self.key(query.patientId), query.series]
            if let start = query.start {
                sql += " AND dateKey >= ?"
                arguments += [start.key]
            }
            if let end = query.end {
                sql += kind == .date ? " AND dateKey <= ?" : " AND dateKey < ?"
                arguments += [end.key]
            }
            sql += query.latestOnly ? " ORDER BY dateKey DESC LIMIT 1" : " ORDER BY dateKey"
            return .reports(try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.report))
        }
    }

    public func reportHistory(patientId: UUID, series: String, date: ReportDate) async throws -> [Report] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM report WHERE patientId = ? AND series = ? AND dateKey = ? ORDER BY version",
                arguments: [Self.key(patientId), series, date.key]
            ).map(Self.report)
        }
    }

    static func report(_ row: Row) -> Report {
        Report(
            patientId: UUID(uuidString: row["patientId"])!, series: row["series"], date: row["dateKey"], values: row["body"],
            version: row["version"], recordedBy: row["recordedBy"], recordedAt: date(row["recordedAt"]))
    }

    public func teamReports(teamId: Int64, after: (patientId: UUID, series: String, date: String)?, limit: Int) async throws -> [Report] {
        try await database.read { db in
            var sql = """
                SELECT r.* FROM report r JOIN patient p ON p.id = r.patientId
                WHERE p.teamId = ?
                AND r.version = (SELECT MAX(version) FROM report v WHERE v.patientId = r.patientId AND v.series = r.series AND v.dateKey = r.dateKey)
                """
            var arguments: StatementArguments = [teamId]
            if let after {
                sql += " AND (r.patientId, r.series, r.dateKey) > (?, ?, ?)"
                arguments += [Self.key(after.patientId), after.series, after.date]
            }
            sql += " ORDER BY r.patientId, r.series, r.dateKey LIMIT ?"
            return try Row.fetchAll(db, sql: sql, arguments: arguments + [limit]).map(Self.report)
        }
    }
}
