import ArgumentParser
import Foundation
import IntakeConsole
import IntakeCore
import IntakeFHIR
import IntakeODK
import IntakeREDCap
import IntakeServer
import IntakeService
import IntakeTerminal

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Intake reference server: the REST API field records are sent to.",
        discussion: """
            Listens on 127.0.0.1:8080 by default and keeps everything in one SQLite file. Create the \
            first admin with 'intake admin bootstrap'. The API is described at GET /openapi.yaml.
            Environment: INTAKE_SERVER_HOST, INTAKE_SERVER_PORT, INTAKE_SERVER_DATABASE, \
            INTAKE_SERVER_MAX_BODY_BYTES, INTAKE_SERVER_MAX_BATCH, INTAKE_LOG_LEVEL; flags win.
            """)

    @OptionGroup var databaseOptions: ServerDatabaseOptions

    @Option(help: "Address to listen on; 0.0.0.0 serves the network (default: 127.0.0.1).")
    var host: String?

    @Option(help: "Port to listen on (default: 8080).")
    var port: Int?

    @Option(
        help: ArgumentHelp(
            "Publish a questionnaire (an id under Questionnaires/ or a folder) before serving; repeatable.", valueName: "id-or-path"))
    var publish: [String] = []

    @Option(help: "Log level: trace, debug, info, notice, warning, error (default: info, or INTAKE_LOG_LEVEL).")
    var logLevel: String?

    @Option(help: ArgumentHelp("Serve https with this certificate (PEM, with its chain; INTAKE_SERVER_TLS_CERT).", valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The certificate's private key (PEM; INTAKE_SERVER_TLS_KEY).", valueName: "file"))
    var tlsKey: String?

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together: the certificate and its private key.")
        }
        if let port, !(0...65535).contains(port) { throw ValidationError("Please give a port from 0 to 65535.") }
        if let logLevel, !ServerConfiguration.logLevels.contains(logLevel) {
            throw ValidationError("Unknown log level '\(logLevel)'; use \(ServerConfiguration.logLevels.joined(separator: ", ")).")
        }
    }

    func run() async throws {
        var configuration = try databaseOptions.configuration()
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let logLevel { configuration.logLevel = logLevel }
        if let tlsCert, let tlsKey { configuration.tls = ServerTLSFiles(certificateFile: tlsCert, keyFile: tlsKey) }
        // A certificate that does not load stops the server before it opens the database.
        do {
            _ = try configuration.tls?.load()
        } catch {
            throw ValidationError(error.description + ".")
        }
        let services = try await databaseOptions.services(configuration)
        for reference in publish {
            let folder = try QuestionnaireCatalog.commandLine.folder(for: reference)
            let (published, isNew) = try await services.questionnaires.publish(directory: folder)
            say("\(isNew ? "Published" : "Already published"): \(published.id) version \(published.version)")
        }
        if try await services.store.userCount() == 0 {
            say("The database has no users yet. Create the first admin: intake admin bootstrap --username admin")
        }
        if let files = services.records.attachments {
            say("Files that records name are kept in \(files.folder.path) (back it up with the database).")
        } else if let folder = configuration.attachmentsFolder {
            say(
                "Warning: cannot use \(folder.path) for files that records name; records naming files are refused until it can be created and written."
            )
        } else {
            say(
                "No folder for files that records name (set INTAKE_SERVER_ATTACHMENTS to one shared by every server): records naming files are refused."
            )
        }
        let scheme = configuration.tls == nil ? "http" : "https"
        let (host, database) = (configuration.host, configuration.databaseDescription)
        let console = try await ConsoleModule.load()
        try await IntakeServerApp.run(services, modules: [console, ODKModule(), REDCapModule(), FHIRModule()]) { port in
            say("Serving on \(scheme)://\(host):\(port) (database \(database))")
            say("The console: \(scheme)://\(host):\(port)/console")
        }
    }
}

/// Writes a line to standard output at once (print is block-buffered when output is a file).
private func say(_ line: String) {
    Console.out(line + "\n")
}
