import Foundation
import IntakeService
import PostgresNIO

/// Reports take the patient lock: a series' kind of date is fixed by one report, and versions of
/// a date are numbered in one order across servers.
extension PostgresRecordStore {
    public func putReport(patientId: UUID, series: String, date: ReportDate, values: String, by author: String, at time: Date) async throws
        -> ReportOutcome
    {
        try await transaction { connection in
            try await Self.lock(Self.patientLock, connection)
            guard
                try await !connection.query("SELECT 1 FROM patient WHERE id = \(Self.key(patientId))", logger: Self.logger).collect()
                    .isEmpty
            else { return .patientNotFound }
            try await connection.query(
                "INSERT INTO reportSeries (name, dateKind) VALUES (\(series), \(date.kind.rawValue)) ON CONFLICT DO NOTHING",
                logger: Self.logger)
            let stored = try await connection.query("SELECT dateKind FROM reportSeries WHERE name = \(series)", logger: Self.logger)
                .collect()
                .first?.decode(String.self)
            let kind = stored.flatMap(ReportDate.Kind.init(rawValue:)) ?? date.kind
            guard kind == date.kind else { return .wrongDateKind(expected: kind) }
            let version =
                (try await connection.query(
                    "SELECT MAX(version) FROM report WHERE patientId = \(Self.key(patientId)) AND series = \(series) AND dateKey = \(date.key)",
                    logger: Self.logger
                ).collect().first?.decode(Int?.self) ?? 0) + 1
            try await connection.query(
                """
                INSERT INTO report (patientId, series, dateKey, version, body, recordedBy, recordedAt)
                VALUES (\(Self.key(patientId)), \(series), \(date.key), \(version), \(values), \(author), \(Self.timestamp(time)))
                """, logger: Self.logger)
            return .stored(
                Report(
                    patientId: patientId, series: series, date: date.key, values: values, version: version, recordedBy: author,
                    recordedAt: time))
        }
    }

    public func reports(_ query: ReportQuery) async throws -> ReportsOutcome {
        let stored = try await client.query("SELECT dateKind FROM reportSeries WHERE name = \(query.series)", logger: Self.logger).collect()
            .first?.decode(String.self)
        guard let kind = stored.flatMap(ReportDate.Kind.init(rawValue:)) else { return .unknownSeries }
        for bound in [query.start, query.end].compactMap({ $0 }) where bound.kind != kind { return .wrongDateKind(expected: kind) }
        var binds = PostgresBindings()
        binds.append(Self.key(query.patientId))
        binds.append(query.series)
        var sql = """
            SELECT patientId, series, dateKey, version, body, recordedBy, recordedAt FROM report r WHERE patientId = $1 AND series = $2
            AND version = (SELECT MAX(version) FROM report v WHERE v.patientId = r.patientId AND v.series = r.series AND v.dateKey = r.dateKey)
            """
        if let start = query.start {
            binds.append(start.key)
            sql += " AND dateKey >= $\(binds.count)"
        }
        if let end = query.end {
            binds.append(end.key)
            sql += (kind == .date ? " AND dateKey <= $" : " AND dateKey < $") + "\(binds.count)"
        }
        sql += query.latestOnly ? " ORDER BY dateKey DESC LIMIT 1" : " ORDER BY dateKey"
        return .reports(try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().map(Self.report))
    }

    public func reportHistory(patientId: UUID, series: String, date: ReportDate) async throws -> [Report] {
        try await client.query(
            """
            SELECT patientId, series, dateKey, version, body, recordedBy, recordedAt FROM report
            WHERE patientId = \(Self.key(patientId)) AND series = \(series) AND dateKey = \(date.key) ORDER BY version
            """, logger: Self.logger
        ).collect().map(Self.report)
    }

    public func teamReports(teamId: Int64, after: (patientId: UUID, series: String, date: String)?, limit: Int) async throws -> [Report] {
        let current = """
            SELECT r.patientId, r.series, r.dateKey, r.version, r.body, r.recordedBy, r.recordedAt FROM report r JOIN patient p ON p.id = r.patientId
            WHERE p.teamId = $1
            AND r.version = (SELECT MAX(version) FROM report v WHERE v.patientId = r.patientId AND v.series = r.series AND v.dateKey = r.dateKey)
            """
        let order = " ORDER BY r.patientId COLLATE \"C\", r.series COLLATE \"C\", r.dateKey COLLATE \"C\""
        var binds = PostgresBindings()
        binds.append(teamId)
        var sql = current
        if let after {
            binds.append(Self.key(after.patientId))
            binds.append(after.series)
            binds.append(after.date)
            sql += " AND (r.patientId COLLATE \"C\", r.series COLLATE \"C\", r.dateKey COLLATE \"C\") > ($2, $3, $4)"
        }
        binds.append(limit)
        sql += order + " LIMIT $\(binds.count)"
        return try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().map(Self.report)
    }

    private static func report(_ row: PostgresRow) throws -> Report {
        let (patientId, series, date, version, body, recordedBy, recordedAt) = try row.decode(
            (String, String, String, Int32, String, String, Double).self)
        return Report(
            patientId: UUID(uuidString: patientId) ?? UUID(), series: series, date: date, values: body, version: Int(version),
            recordedBy: recordedBy,
            recordedAt: Self.date(recordedAt))
    }
}
