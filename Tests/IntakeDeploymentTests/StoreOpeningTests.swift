import Foundation
import GRDB
import IntakeDeployment
import IntakePostgres
import IntakeSQLite
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Opening a store: every bad database URL, unreachable or refusing PostgreSQL, and database
/// of a newer schema gets one clear message, quickly, and never the password.
struct StoreOpeningTests {
    @Test(arguments: StoreKind.allCases) func aDatabaseMigratedByANewerIntakeIsRefused(_ kind: StoreKind) async throws {
        let database = try kind.newDatabase()
        _ = try await kind.open(database: database)
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: database)
            try await queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')") }
        case .postgres:
            try await PostgresTesting.execute(
                "INSERT INTO intake_migration (name, appliedAt) VALUES ('v99: from the future', 0)", in: database)
        }
        await #expect {
            _ = try await kind.open(database: database)
        } throws: { "\($0)".contains("migrated by a newer Intake") }
    }

    @Test func badDatabaseURLsSayWhatIsWrongWithoutThePassword() async throws {
        let cases: [(String, String)] = [
            ("postgres://127.0.0.1/intake", "names no user"),
            ("postgres://u:secret@127.0.0.1:5432/", "names no database"),
            ("postgres://u:secret@127.0.0.1/db?sslmode=maybe", "sslmode 'maybe'"),
            ("postgres://u:secret@127.0.0.1/db?colour=red", "'colour'"),
            ("postgres://u:secret@127.0.0.1/db?schema=Bad-Name", "schema is a plain name"),
        ]
        for (text, message) in cases {
            #expect {
                _ = try PostgresDatabaseURL(text)
            } throws: { error in
                "\(error)".contains(message) && !"\(error)".contains("secret")
            }
        }
    }

    @Test func anUnreachableOrRefusingDatabaseFailsFastWithAClearMessage() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["INTAKE_TEST_POSTGRES_URL"])
        let components = try #require(URLComponents(string: base))
        // Nothing listens on port 1.
        let started = Date()
        await #expect {
            _ = try await PostgresRecordStore(url: try PostgresDatabaseURL("postgres://u:secret@127.0.0.1:1/db?sslmode=disable"))
        } throws: { error in
            "\(error)".contains("cannot reach") && !"\(error)".contains("secret")
        }
        // Refused at once; the bound is for a hang (the probe gives up after 15 s, the migration
        // after 300 s), with room for a test run whose other suites keep every thread busy
        // (fresh-clone CI saw 62 s and 70 s of waiting for a thread, not for PostgreSQL).
        #expect(Date().timeIntervalSince(started) < 150, "no hang")
        var wrong = components
        wrong.password = "not-the-password"
        await #expect {
            _ = try await PostgresRecordStore(url: try PostgresDatabaseURL(wrong.string!))
        } throws: { error in
            "\(error)".contains("refused the login") && !"\(error)".contains("not-the-password")
        }
        var missing = components
        missing.path = "/no_such_database"
        await #expect {
            _ = try await PostgresRecordStore(url: try PostgresDatabaseURL(missing.string!))
        } throws: { "\($0)".contains("does not exist") }
    }
}
