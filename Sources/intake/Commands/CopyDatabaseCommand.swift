import ArgumentParser
import Foundation
import IntakeDeployment

/// `intake admin copy-database`: moves a deployment from its SQLite file to PostgreSQL.
struct CopyDatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-database",
        abstract: "Copy a server's SQLite database into an empty PostgreSQL database, and prove the copy.",
        discussion: """
            Stop the server first. Everything is copied in one transaction (teams, users, tokens, questionnaires, \
            records with every revision, export cursors and the server's secrets, so patient keys stay the same), \
            then both sides are read back: when any table's row count or SHA-256 differs, nothing is kept. \
            Then serve from PostgreSQL: intake serve --database <url>.
            """)

    @Option(help: ArgumentHelp("The SQLite file 'intake serve' used.", valueName: "path")) var from: String
    @Option(help: ArgumentHelp("The empty PostgreSQL database: postgres://user:password@host:5432/db.", valueName: "url")) var to: String

    func run() async throws {
        let tables: [DatabaseCopy.Table]
        do {
            tables = try await DatabaseCopy.copy(sqlite: from, to: to)
        } catch {
            throw ValidationError(error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
        }
        for table in tables {
            print("\(table.name): \(table.rows) rows, SHA-256 \(table.digest.prefix(16))… equal on both sides")
        }
        print("Copied and checked. Serve from PostgreSQL now: intake serve --database <the URL>")
    }
}
