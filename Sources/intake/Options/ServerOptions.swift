import ArgumentParser
import Foundation
import IntakeDeployment
import IntakeServer
import IntakeService

/// `--database`: the server's SQLite file or PostgreSQL URL, shared by `intake serve` and `intake admin`.
struct ServerDatabaseOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The server's SQLite file or a PostgreSQL URL such as postgres://user:password@host:5432/db "
                + "(default: INTAKE_SERVER_DATABASE, else server.sqlite in the data directory).",
            valueName: "path-or-url"))
    var database: String?

    func configuration() throws -> ServerConfiguration {
        var configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
        }
        if let database { configuration.database = database }
        return configuration
    }

    func services(_ configuration: ServerConfiguration? = nil) async throws -> IntakeServices {
        let configuration = try configuration ?? self.configuration()
        do {
            return try await IntakeServices.open(configuration)
        } catch {
            throw ValidationError(error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
        }
    }
}
