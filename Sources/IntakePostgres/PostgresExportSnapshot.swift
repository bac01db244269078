import Foundation
import IntakeServer
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
                        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: PostgresRecordStore.logger)
                        let rows = try await connection.query(
                            teamId.map { "SELECT COALESCE(MAX(teamSeq), 0) FROM record WHERE teamId = \($0)" }
                                ?? "SELECT COALESCE(MAX(changeSeq), 0) FROM record",
                            logger: PostgresRecordStore.logger
                        ).collect()
                        let cursor = try rows.first?.decode(Int64.self) ?? 0
                        started.waiting.withLock { $0.take() }?.resume(returning: cursor)
                        for await request in stream { await serve(request, connection) }
                        _ = try? await connection.query("COMMIT", logger: PostgresRecordStore.logger)
                    }
                } catch {
                    started.waiting.withLock { $0.take() }?.resume(throwing: error)
                    // The connection is gone: whatever the export still asks fails rather than waits.
                    for await request in stream {
                        switch request {
                        case .count(_, let answer): answer.resume(throwing: error)
                        case .page(_, let answer): answer.resume(throwing: error)
                        }
                    }
                }
            }
        }
        return PostgresExportSnapshot(cursor: cursor, requests: continuation)
    }

    private static func serve(_ request: Request, _ connection: PostgresConnection) async {
        switch request {
        case .count(let query, let answer):
            do {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM record WHERE " + filter(query).sql, binds: filter(query).binds),
                    logger: PostgresRecordStore.logger
                ).collect()
                answer.resume(returning: try rows.first?.decode(Int.self) ?? 0)
            } catch {
                answer.resume(throwing: error)
            }
        case .page(let query, let answer):
            do {
                var (sql, binds) = filter(query)
                binds.append(query.limit)
                let column = cursorColumn(query)
                let rows = try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT body, revision, \(column) FROM record WHERE \(sql) ORDER BY \(column) LIMIT $\(binds.count)",
                        binds: binds),
                    logger: PostgresRecordStore.logger
                ).collect()
                answer.resume(
                    returning: try rows.map { row in
                        let (body, revision, cursor) = try row.decode((ByteBuffer, Int, Int64).self)
                        return ExportedRecord(body: Array(body.readableBytesView), revision: revision, cursor: cursor)
                    })
            } catch {
                answer.resume(throwing: error)
            }
        }
    }

    /// A team's export follows the team's own change cursor; an export of every team, the deployment's.
    private static func cursorColumn(_ query: ExportQuery) -> String {
        query.teamId == nil ? "changeSeq" : "teamSeq"
    }

    private static func filter(_ query: ExportQuery) -> (sql: String, binds: PostgresBindings) {
        var binds = PostgresBindings()
        binds.append(query.after)
        binds.append(query.upTo)
        binds.append(query.questionnaireId)
        let column = cursorColumn(query)
        var sql = "\(column) > $1 AND \(column) <= $2 AND questionnaireId = $3"
        if let team = query.teamId {
            binds.append(team)
            sql += " AND teamId = $\(binds.count)"
        }
        if let since = query.changedSince {
            binds.append(PostgresRecordStore.timestamp(since))
            sql += " AND updatedAt >= $\(binds.count)"
        }
        if let consent = query.consent {
            var allowed: [String] = []
            if !consent.scopes.isEmpty {
                binds.append(consent.scopes.map(\.rawValue))
                allowed.append("patientId IN (SELECT id FROM patient WHERE sharingScope = ANY($\(binds.count)))")
            }
            if consent.includeUnlinked { allowed.append("patientId IS NULL") }
            sql += allowed.isEmpty ? " AND FALSE" : " AND (" + allowed.joined(separator: " OR ") + ")"
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
}
