import Foundation
import IntakeExport
import IntakeService
import PostgresNIO
import Synchronization

extension PostgresRecordStore {
    public func exportSnapshot(teamId: Int64?) async throws -> any ExportSnapshot {
        try await PostgresExportSnapshot.open(client, teamId: teamId)
    }

    public func secret(named name: String) async throws -> Data {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        // Two servers asking at once: the first insert wins and both read what it stored.
        try await client.query(
            """
            INSERT INTO serverSecret (name, value, createdAt) VALUES (\(name), \(Data(bytes)), \(Self.timestamp(Date())))
            ON CONFLICT (name) DO NOTHING
            """, logger: Self.logger)
        guard let row = try await client.query("SELECT value FROM serverSecret WHERE name = \(name)", logger: Self.logger).collect().first
        else { throw RecordStoreError.notFound("secret '\(name)'") }
        return try row.decode(Data.self)
    }
}

/// An export's view of PostgreSQL: one connection held in a read-only REPEATABLE READ
/// transaction for as long as the export runs, so every page comes from the same snapshot.
/// The connection goes back to the pool when the snapshot is released.
final class PostgresExportSnapshot: ExportSnapshot {
    let cursor: Int64
    private let requests: AsyncStream<Request>.Continuation

    private enum Request: Sendable {
        case count(ExportQuery, CheckedContinuation<Int, any Error>)
        case page(ExportQuery, CheckedContinuation<[ExportedRecord], any Error>)
        case withdrawn(ExportQuery, CheckedContinuation<[UUID], any Error>)
        case deleted(ExportQuery, CheckedContinuation<[RemovedRecord], any Error>)
        case reports(ExportQuery, ReportPosition?, Int, CheckedContinuation<[Report], any Error>)

        func fail(_ error: any Error) {
            switch self {
            case .count(_, let answer): answer.resume(throwing: error)
            case .page(_, let answer): answer.resume(throwing: error)
            case .withdrawn(_, let answer): answer.resume(throwing: error)
            case .deleted(_, let answer): answer.resume(throwing: error)
            case .reports(_, _, _, let answer): answer.resume(throwing: error)
            }
        }
    }

    private init(cursor: Int64, requests: AsyncStream<Request>.Continuation) {
        self.cursor = cursor
        self.requests = requests
    }

    deinit { requests.finish() }

    static func open(_ client: PostgresClient, teamId: Int64?) async throws -> PostgresExportSnapshot {
        let (stream, continuation) = AsyncStream.makeStream(of: Request.self)
        let started = StartSignal()
        let cursor = try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Int64, any Error>) in
            started.waiting.withLock { $0 = ready }
            Task {
                do {
                    try await client.withConnection { connection in
                        // Every change up to the horizon has committed (read before the snapshot:
                        // PostgresChangeCursors.swift), so the export's cursor passes no change
                        // a writer still holds open.
                        let horizon = try await PostgresRecordStore.changeHorizon(teamId: teamId, connection)
                        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: PostgresRecordStore.logger)
                        let rows = try await connection.query(
                            teamId.map { "SELECT COALESCE(MAX(teamSeq), 0) FROM record WHERE teamId = \($0)" }
                                ?? "SELECT COALESCE(MAX(changeSeq), 0) FROM record",
                            logger: PostgresRecordStore.logger
                        ).collect()
                        let cursor = min(try rows.first?.decode(Int64.self) ?? 0, horizon)
                        started.waiting.withLock { $0.take() }?.resume(returning: cursor)
                        for await request in stream { await serve(request, connection) }
                        _ = try? await connection.query("COMMIT", logger: PostgresRecordStore.logger)
                    }
                } catch {
                    started.waiting.withLock { $0.take() }?.resume(throwing: error)
                    // The connection is gone: whatever the export still asks fails rather than waits.
                    for await request in stream { request.fail(error) }
                }
            }
        }
        return PostgresExportSnapshot(cursor: cursor, requests: continuation)
    }

    private static func serve(_ request: Request, _ connection: PostgresConnection) async {
        do {
            switch request {
            case .count(let query, let answer):
                let (sql, binds) = filter(query)
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM record r WHERE " + sql, binds: binds), logger: PostgresRecordStore.logger
                ).collect()
                answer.resume(returning: try rows.first?.decode(Int.self) ?? 0)
            case .page(let query, let answer):
                answer.resume(returning: try await page(query, connection))
            case .withdrawn(let query, let answer):
                answer.resume(returning: try await withdrawn(query, connection))
            case .deleted(let query, let answer):
                answer.resume(returning: try await deleted(query, connection))
            case .reports(let query, let position, let limit, let answer):
                answer.resume(returning: try await reports(query, after: position, limit: limit, connection))
            }
        } catch {
            request.fail(error)
        }
    }

    private static func page(_ query: ExportQuery, _ connection: PostgresConnection) async throws -> [ExportedRecord] {
        var (sql, binds) = filter(query)
        binds.append(query.limit)
        let column = cursorColumn(query)
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    SELECT r.body, r.revision, r.\(column), p.id IS NOT NULL, p.sharingScope,
                        (SELECT c.method FROM consent c WHERE c.patientId = r.patientId ORDER BY c.id DESC LIMIT 1),
                        (SELECT c.recordedAt FROM consent c WHERE c.patientId = r.patientId ORDER BY c.id DESC LIMIT 1),
                        (SELECT string_agg(g.groupName, ',' ORDER BY g.groupName) FROM patientGroup g WHERE g.patientId = r.patientId),
                        r.collector, r.reviewState
                    FROM record r LEFT JOIN patient p ON p.id = r.patientId
                    WHERE \(sql) ORDER BY r.\(column) LIMIT $\(binds.count)
                    """,
                binds: binds),
            logger: PostgresRecordStore.logger
        ).collect()
        return try rows.map { row in
            let (body, revision, cursor, linked, scope, method, consentedAt, groups, collector, review) = try row.decode(
                (ByteBuffer, Int, Int64, Bool, String?, String?, Double?, String?, String, String).self)
            let registry =
                linked
                ? RegistryFacts(
                    sharingScope: scope, consentMethod: method, consentedAt: consentedAt.map(PostgresRecordStore.date),
                    dataGroups: groups.map { $0.split(separator: ",").map(String.init) } ?? [])
                : nil
            return ExportedRecord(
                body: Array(body.readableBytesView), revision: revision, cursor: cursor, registry: registry, collector: collector,
                reviewState: ReviewState(rawValue: review))
        }
    }

    private static func withdrawn(_ query: ExportQuery, _ connection: PostgresConnection) async throws -> [UUID] {
        guard let consent = query.consent, !consent.scopes.isEmpty, let previous = query.previous else { return [] }
        let column = cursorColumn(query)
        var binds = PostgresBindings()
        binds.append(query.upTo)
        binds.append(query.questionnaireId)
        var sql = "r.\(column) <= $1 AND r.questionnaireId = $2 AND r.patientId IS NOT NULL AND r.deletedAt IS NULL"
        if let team = query.teamId {
            binds.append(team)
            sql += " AND r.teamId = $\(binds.count)"
        }
        groupFilter(query, &sql, &binds)
        binds.append(consent.scopes.map(\.rawValue))
        let scopes = "$\(binds.count)"
        switch previous {
        case .cursor(let after):
            binds.append(after)
            // Only records the earlier export could hold: begun by then.
            sql += " AND r.\(query.teamId == nil ? "firstChangeSeq" : "firstTeamSeq") <= $\(binds.count)"
            sql +=
                " AND COALESCE((SELECT c.scope FROM consent c WHERE c.patientId = r.patientId AND c.\(column) <= $\(binds.count) ORDER BY c.id DESC LIMIT 1), '') = ANY(\(scopes))"
        case .time(let time):
            binds.append(PostgresRecordStore.timestamp(time))
            sql += " AND EXISTS (SELECT 1 FROM recordRevision v WHERE v.recordId = r.id AND v.revision = 1 AND v.savedAt < $\(binds.count))"
            sql +=
                " AND COALESCE((SELECT c.scope FROM consent c WHERE c.patientId = r.patientId AND c.recordedAt < $\(binds.count) ORDER BY c.id DESC LIMIT 1), '') = ANY(\(scopes))"
        }
        sql +=
            " AND NOT COALESCE((SELECT c.scope FROM consent c WHERE c.patientId = r.patientId AND c.\(column) <= $1 ORDER BY c.id DESC LIMIT 1), '') = ANY(\(scopes))"
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT r.id FROM record r WHERE \(sql) ORDER BY r.\(column)", binds: binds),
            logger: PostgresRecordStore.logger
        ).collect()
        return try rows.compactMap { UUID(uuidString: try $0.decode(String.self)) }
    }

    private static func deleted(_ query: ExportQuery, _ connection: PostgresConnection) async throws -> [RemovedRecord] {
        guard let previous = query.previous else { return [] }
        let column = cursorColumn(query)
        var binds = PostgresBindings()
        binds.append(query.upTo)
        binds.append(query.questionnaireId)
        var sql = "r.deletedAt IS NOT NULL AND r.\(column) <= $1 AND r.questionnaireId = $2"
        if let team = query.teamId {
            binds.append(team)
            sql += " AND r.teamId = $\(binds.count)"
        } else {
            // A record that moved between teams is still in an export of every team.
            sql += " AND r.exitOf IS NULL"
        }
        switch previous {
        case .cursor(let after):
            // Deleted after the earlier export, and begun before it.
            binds.append(after)
            sql += " AND r.\(column) > $\(binds.count) AND r.\(query.teamId == nil ? "firstChangeSeq" : "firstTeamSeq") <= $\(binds.count)"
        case .time(let time):
            binds.append(PostgresRecordStore.timestamp(time))
            sql += " AND r.deletedAt >= $\(binds.count) AND r.receivedAt < $\(binds.count)"
        }
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT COALESCE(r.exitOf, r.id), r.exitOf IS NOT NULL FROM record r WHERE \(sql) ORDER BY r.\(column)",
                binds: binds),
            logger: PostgresRecordStore.logger
        ).collect()
        return try rows.compactMap { row in
            let (id, moved) = try row.decode((String, Bool).self)
            return UUID(uuidString: id).map { RemovedRecord(recordId: $0, reason: moved ? .transferred : .deleted) }
        }
    }

    private static func reports(_ query: ExportQuery, after position: ReportPosition?, limit: Int, _ connection: PostgresConnection)
        async throws -> [Report]
    {
        if let consent = query.consent, consent.scopes.isEmpty { return [] }
        var binds = PostgresBindings()
        var sql = """
            SELECT rp.patientId, rp.series, rp.dateKey, rp.version, rp.body, rp.recordedBy, rp.recordedAt
            FROM report rp JOIN patient p ON p.id = rp.patientId
            WHERE rp.version = (SELECT MAX(v.version) FROM report v WHERE v.patientId = rp.patientId AND v.series = rp.series AND v.dateKey = rp.dateKey)
            """
        if let team = query.teamId {
            binds.append(team)
            sql += " AND p.teamId = $\(binds.count)"
        }
        if let consent = query.consent {
            binds.append(consent.scopes.map(\.rawValue))
            sql += " AND p.sharingScope = ANY($\(binds.count))"
        }
        if !query.dataGroups.isEmpty {
            binds.append(query.dataGroups)
            sql += " AND p.id IN (SELECT g.patientId FROM patientGroup g WHERE g.groupName = ANY($\(binds.count)))"
        }
        if let position {
            binds.append(PostgresRecordStore.key(position.patientId))
            binds.append(position.series)
            binds.append(position.date)
            sql += " AND (rp.patientId, rp.series, rp.dateKey) > ($\(binds.count - 2), $\(binds.count - 1), $\(binds.count))"
        }
        binds.append(limit)
        sql += " ORDER BY rp.patientId, rp.series, rp.dateKey LIMIT $\(binds.count)"
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: PostgresRecordStore.logger).collect()
        return try rows.map { row in
            let (patientId, series, date, version, body, recordedBy, recordedAt) = try row.decode(
                (String, String, String, Int, String, String, Double).self)
            guard let id = UUID(uuidString: patientId) else { throw RecordStoreError.notFound("patient '\(patientId)'") }
            return Report(
                patientId: id, series: series, date: date, values: body, version: version, recordedBy: recordedBy,
                recordedAt: PostgresRecordStore.date(recordedAt))
        }
    }

    /// A team's export follows the team's own change cursor; an export of every team, the deployment's.
    private static func cursorColumn(_ query: ExportQuery) -> String {
        query.teamId == nil ? "changeSeq" : "teamSeq"
    }

    private static func groupFilter(_ query: ExportQuery, _ sql: inout String, _ binds: inout PostgresBindings) {
        guard !query.dataGroups.isEmpty else { return }
        binds.append(query.dataGroups)
        sql += " AND r.patientId IN (SELECT g.patientId FROM patientGroup g WHERE g.groupName = ANY($\(binds.count)))"
    }

    private static func filter(_ query: ExportQuery) -> (sql: String, binds: PostgresBindings) {
        var binds = PostgresBindings()
        binds.append(query.after)
        binds.append(query.upTo)
        binds.append(query.questionnaireId)
        let column = cursorColumn(query)
        var sql = "r.\(column) > $1 AND r.\(column) <= $2 AND r.questionnaireId = $3 AND r.deletedAt IS NULL"
        if let team = query.teamId {
            binds.append(team)
            sql += " AND r.teamId = $\(binds.count)"
        }
        if let since = query.changedSince {
            binds.append(PostgresRecordStore.timestamp(since))
            sql += " AND r.updatedAt >= $\(binds.count)"
        }
        if let consent = query.consent {
            var allowed: [String] = []
            if !consent.scopes.isEmpty {
                binds.append(consent.scopes.map(\.rawValue))
                allowed.append("r.patientId IN (SELECT id FROM patient WHERE sharingScope = ANY($\(binds.count)))")
            }
            if consent.includeUnlinked { allowed.append("r.patientId IS NULL") }
            sql += allowed.isEmpty ? " AND FALSE" : " AND (" + allowed.joined(separator: " OR ") + ")"
        }
        groupFilter(query, &sql, &binds)
        if !query.reviewStates.isEmpty {
            binds.append(query.reviewStates.map(\.rawValue))
            sql += " AND r.reviewState = ANY($\(binds.count))"
        }
        if !query.recordIds.isEmpty {
            binds.append(query.recordIds.map(PostgresRecordStore.key))
            sql += " AND r.id = ANY($\(binds.count))"
        }
        return (sql, binds)
    }

    /// Who waits for the snapshot to start, answered once.
    private final class StartSignal: Sendable {
        let waiting = Mutex<CheckedContinuation<Int64, any Error>?>(nil)
    }

    func count(_ query: ExportQuery) async throws -> Int {
        try await withCheckedThrowingContinuation { requests.yield(.count(query, $0)) }
    }

    func page(_ query: ExportQuery) async throws -> [ExportedRecord] {
        try await withCheckedThrowingContinuation { requests.yield(.page(query, $0)) }
    }

    func withdrawn(_ query: ExportQuery) async throws -> [UUID] {
        try await withCheckedThrowingContinuation { requests.yield(.withdrawn(query, $0)) }
    }

    func deleted(_ query: ExportQuery) async throws -> [RemovedRecord] {
        try await withCheckedThrowingContinuation { requests.yield(.deleted(query, $0)) }
    }

    func reports(_ query: ExportQuery, after position: ReportPosition?, limit: Int) async throws -> [Report] {
        try await withCheckedThrowingContinuation { requests.yield(.reports(query, position, limit, $0)) }
    }
}
