import Foundation
import IntakeCore
import IntakeService
import Logging
import PostgresNIO
import _ConnectionPoolModule

/// The store for deployments that outgrow one machine: PostgreSQL through a pooled
/// `PostgresClient` (postgres-nio). Several servers may share one database.
///
/// Change cursors come from sequences, and a reader reads up to a horizon no writer still open
/// holds a cursor below (PostgresChangeCursors.swift): a reader that saw cursor N has seen every
/// change up to N, whichever server made it, and ingest holds no lock another server's waits for.
/// Other writes that take cursors (edits, deletions, reviews, consent, transfers) still take turns
/// among themselves under the change lock.
public final class PostgresRecordStore: RecordStore, GroupCommitHolding {
    package let client: PostgresClient
    let url: PostgresDatabaseURL
    private let running: Task<Void, Never>
    let ingestGroup: GroupCommit<IngestJob, [IngestOutcome]>
    /// Links the audit events of records created onto the chain after their commit.
    let chainer: AuditChainer
    /// For tests: where group commits stop before their `COMMIT` (``GroupCommitHolding``).
    let commitHold = CommitHoldPoint()
    /// Group commits whose records had to be taken again a request at a time (see
    /// ``commit(_:client:fallbacks:)``): rare, and each one a connection replaced.
    package let fallbacks: FallbackCount
    package static let logger: Logger = {
        var logger = Logger(label: "intake.postgres")
        logger.logLevel = .error
        return logger
    }()
    /// The advisory lock under which writes other than ingest take turns (see ``lock(_:_:)``).
    package static let changeLock = "intake-change"

    struct IngestJob: Sendable {
        var items: [IngestItem]
        var owner: RecordOwner
        var time: Date
    }

    /// Connects, then creates or migrates the schema; fails within seconds, with a message that
    /// says what to fix, when the database cannot be reached, refuses the login, or was migrated
    /// by a newer Intake.
    public init(url: PostgresDatabaseURL) async throws(PostgresStoreError) {
        self.url = url
        let client = PostgresClient(configuration: try url.clientConfiguration(), backgroundLogger: Self.logger)
        self.client = client
        running = Task { await client.run() }
        let fallbacks = FallbackCount()
        self.fallbacks = fallbacks
        let chainer = AuditChainer(client: client)
        self.chainer = chainer
        let hold = commitHold
        ingestGroup = GroupCommit { jobs in
            try await Self.commit(jobs, client: client, fallbacks: fallbacks, chainer: chainer, hold: hold.current)
        }
        do {
            let probe = try url.connectionConfiguration()
            try await Self.withTimeout(seconds: 15) {
                let connection = try await PostgresConnection.connect(
                    on: PostgresClient.defaultEventLoopGroup.next(), configuration: probe, id: 0, logger: Self.logger
                ).get()
                try await connection.close()
            }
            // Reachable and signed in: the migration may wait for another server's, so no short timeout.
            try await Self.withTimeout(seconds: 300) { try await Self.migrate(client, schema: url.schema) }
        } catch {
            running.cancel()
            throw Self.explain(error, url: url)
        }
    }

    deinit { running.cancel() }

    /// PostgreSQL says a full disk (SQLSTATE 53100), other exhausted resources (the rest of class
    /// 53: connections, memory), a server shutting down or starting (57P01–57P03), a connection
    /// lost or refused, and a pool that gave up connecting.
    public func outage(_ error: any Error) -> StoreOutage? {
        if let error = error as? ConnectionPoolError {
            return error == .connectionCreationCircuitBreakerTripped || error == .poolShutdown ? .unavailable : nil
        }
        guard let error = error as? PSQLError else { return nil }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            if state == "53100" { return .full }
            if state.hasPrefix("53") { return .unavailable }
            if ["57P01", "57P02", "57P03", "58030"].contains(state) { return .unavailable }
            return nil
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return .unavailable
        default:
            return nil
        }
    }

    public func checkHealth() async throws {
        try await client.query("SELECT 1", logger: Self.logger)
    }

    /// Runs `body` in one transaction on one pooled connection; the error `body` throws comes out
    /// as it was (not wrapped), after a rollback.
    static func transaction<T: Sendable>(
        _ client: PostgresClient, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Takes one of Intake's transaction-scoped advisory locks. Its key includes the schema, so
    /// the servers of one deployment share it and deployments in other schemas do not wait.
    package static func lock(_ name: String, _ connection: PostgresConnection) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(name) || ':' || current_schema(), 0))", logger: logger)
    }

    /// Two locks in one round trip, `first` first (a select list is evaluated in order; every
    /// writer takes the change lock before the audit lock).
    static func lock(_ first: String, then second: String, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            SELECT pg_advisory_xact_lock(hashtextextended(\(first) || ':' || current_schema(), 0)),
                   pg_advisory_xact_lock(hashtextextended(\(second) || ':' || current_schema(), 0))
            """, logger: logger)
    }

    package func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await Self.transaction(client, body)
    }

    static func withTimeout<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw PostgresStoreError("no answer within \(seconds) s")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// One message for a failure to open: never the password, never a value from the database.
    static func explain(_ error: any Error, url: PostgresDatabaseURL) -> PostgresStoreError {
        if let error = error as? PostgresStoreError {
            return PostgresStoreError("cannot open the PostgreSQL database \(url): \(error.description)")
        }
        let place = "the PostgreSQL database \(url)"
        guard let error = error as? PSQLError else {
            return PostgresStoreError(
                "cannot open \(place): \(String(describing: type(of: error))); check the URL and that the server runs")
        }
        switch error.serverInfo?[.sqlState] {
        case "28P01", "28000":
            return PostgresStoreError("PostgreSQL refused the login to \(place); check the user name and password in the URL")
        case "3D000":
            return PostgresStoreError("\(place) does not exist; create it (createdb \(url.database)) or fix the URL")
        case "42501":
            return PostgresStoreError(
                "the user \(url.username) may not create Intake's tables in \(place); grant it CREATE on the database or schema")
        case let state?:
            return PostgresStoreError("PostgreSQL refused to open \(place) (SQLSTATE \(state))")
        case nil:
            break
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            return PostgresStoreError("cannot reach \(place); check the host and port and that PostgreSQL is running")
        case .sslUnsupported:
            return PostgresStoreError("\(place) does not offer TLS; use sslmode=disable only on a trusted network")
        case .authMechanismRequiresPassword:
            return PostgresStoreError("\(place) asks for a password; put it in the URL (postgres://user:password@host/db)")
        default:
            return PostgresStoreError("cannot open \(place): \(error.code)")
        }
    }

    static func timestamp(_ date: Date) -> Double { date.timeIntervalSince1970 }
    static func date(_ value: Double) -> Date { Date(timeIntervalSince1970: value) }
    static func key(_ id: UUID) -> String { id.uuidString.lowercased() }
}
