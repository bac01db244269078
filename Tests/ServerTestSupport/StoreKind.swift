import Foundation
import IntakeDeployment
import IntakePostgres
import IntakeSQLite
import IntakeServer
import IntakeService
import IntakeStoreTesting
import Logging
import PostgresNIO
import Testing

/// The stores the contract runs against. PostgreSQL comes from `INTAKE_TEST_POSTGRES_URL`
/// (scripts/test starts a throwaway server and sets it); each store gets a schema of its own.
package enum StoreKind: String, CaseIterable, CustomTestStringConvertible, RecordStoreFactory {
    case sqlite, postgres

    package var testDescription: String { rawValue }

    package func open(database: String) async throws -> any RecordStore {
        switch self {
        case .sqlite: try SQLiteRecordStore(path: database)
        case .postgres: try await PostgresRecordStore(url: try PostgresDatabaseURL(database))
        }
    }

    /// Where a new, empty store goes: a SQLite file in a new folder, or a new PostgreSQL schema.
    package func newDatabase() throws -> String {
        switch self {
        case .sqlite:
            return FileManager.default.temporaryDirectory.appendingPathComponent("intake-contract-\(UUID().uuidString)/db.sqlite").path
        case .postgres:
            guard let url = ProcessInfo.processInfo.environment["INTAKE_TEST_POSTGRES_URL"], !url.isEmpty else {
                throw MissingPostgres()
            }
            let schema = "t" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
            return url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
        }
    }

    package struct MissingPostgres: Error, CustomStringConvertible {
        package var description: String {
            "INTAKE_TEST_POSTGRES_URL is not set: run the tests with scripts/test, which starts a throwaway PostgreSQL, "
                + "or point it at an empty database you may create schemas in"
        }
    }
}

/// Raw SQL on a test's PostgreSQL schema, for setting up what the store itself would refuse to.
package enum PostgresTesting {
    package static func execute(_ sql: String, in database: String) async throws {
        let client = PostgresClient(
            configuration: try PostgresDatabaseURL(database).clientConfiguration(), backgroundLogger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }

    /// Runs `body` while another connection holds a transaction open that ran `sql` (so the
    /// rows it changed stay locked), then rolls that transaction back. `sql` returns the rows it
    /// changed (`RETURNING`); none is an error, so a test cannot pass holding nothing.
    package static func whileHolding<T: Sendable>(_ sql: String, in database: String, _ body: () async throws -> T) async throws -> T {
        let client = PostgresClient(
            configuration: try PostgresDatabaseURL(database).clientConfiguration(), backgroundLogger: Logger(label: "test"))
        let logger = Logger(label: "test")
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                let changed = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect()
                guard !changed.isEmpty else { throw HoldingNothing(sql: sql) }
                do {
                    let value = try await body()
                    try await connection.query("ROLLBACK", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }
}

/// `PostgresTesting.whileHolding`'s statement changed no row.
package struct HoldingNothing: Error, CustomStringConvertible {
    package var sql: String
    package var description: String { "the statement to hold changed no row: \(sql)" }
}
