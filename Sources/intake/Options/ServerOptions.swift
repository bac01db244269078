import ArgumentParser
import Foundation
import IntakeServer
import IntakeStore

/// `--database`: the server's SQLite file, shared by `intake serve` and `intake admin`.
struct ServerDatabaseOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The server's SQLite database (default: INTAKE_SERVER_DATABASE, else server.sqlite in the data directory).",
            valueName: "path"))
    var database: String?

    func configuration() throws -> ServerConfiguration {
        let defaultPath = LocalStore.defaultDirectory().appendingPathComponent("server.sqlite").path
        var configuration = try ServerConfiguration(environment: ProcessInfo.processInfo.environment, defaultDatabasePath: defaultPath)
        if let database { configuration.databasePath = database }
        return configuration
    }

    func services(_ configuration: ServerConfiguration? = nil) throws -> IntakeServices {
        let configuration = try configuration ?? self.configuration()
        do {
            return try IntakeServices.sqlite(configuration)
        } catch {
            throw ValidationError(
                "Cannot open the server database \(configuration.databasePath). Check that its folder is writable and that it is an Intake server database.")
        }
    }
}
