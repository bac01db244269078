import Foundation
import GRDB
import Testing

/// Runs the built `intake` binary with its own data directory, as a person or a script would.
struct IntakeProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var terminatedBySignal: Bool
    }

    let dataDirectory: URL
    /// The server database for `serve` and `admin` (INTAKE_SERVER_DATABASE); nil for the SQLite
    /// file in the data directory.
    var serverDatabase: String?
    /// Variables set (or, with nil, removed) on top of the defaults below.
    var environment: [String: String?] = [:]

    init() {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-e2e-\(UUID().uuidString)")
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `INTAKE_BINARY`, else `intake` beside the test bundle (both are built into one folder).
    static var binary: URL {
        if let explicit = ProcessInfo.processInfo.environment["INTAKE_BINARY"] { return URL(fileURLWithPath: explicit) }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("intake")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug/intake")
    }

    func process(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        process.currentDirectoryURL = Self.repositoryRoot
        var environment = ProcessInfo.processInfo.environment
        environment["INTAKE_DATA_DIR"] = dataDirectory.path
        environment["INTAKE_COLLECTOR"] = "test.worker"
        // A store made by a test process keeps its key in a file, as on a kiosk, unless the test sets a passphrase.
        environment["INTAKE_KIOSK"] = "1"
        environment.removeValue(forKey: "INTAKE_QUESTIONNAIRES")
        // Messages in English whatever the machine's locale, unless a test asks for another language.
        environment["INTAKE_LANGUAGE"] = "en"
        environment["INTAKE_SERVER_DATABASE"] = serverDatabase
        for (name, value) in self.environment { environment[name] = value }
        process.environment = environment
        return process
    }

    /// Waits for `process` to end; kills it and returns false if it has not ended in time.
    static func waitForExit(_ process: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }

    /// Starts `intake serve` on `port` (0: a free one below the ephemeral range, so that a test
    /// may stop it and start it again there) and returns it once it listens, with its port.
    func startServer(port: Int = 0, arguments: [String] = []) throws -> (process: Process, port: Int) {
        let process = process(["serve", "--port", "\(port == 0 ? TestPorts.reserve() : port)"] + arguments)
        let errors = Pipe()
        let log = LogBuffer()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        errors.fileHandleForReading.readabilityHandler = { log.append($0.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning {
            let text = log.text
            if let range = text.range(of: #"listening on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                return (process, Int(text[range].split(separator: ":").last!)!)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        process.terminate()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the server did not start: \(log.text)"])
    }

    /// An admin, a team `clinic` with a coordinator `cora`, and the bundled questionnaire
    /// published, in the server database of this data directory; cora's token.
    func prepareServerWithCoordinator() throws -> String {
        #expect(try run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"]).status == 0)
        _ = try run(["admin", "team", "create", "clinic"])
        _ = try run(
            ["admin", "user", "create", "cora", "--role", "coordinator", "--team", "clinic", "--password-stdin"], input: ["coordinator-1"])
        _ = try run(["admin", "publish", "refugee-health"])
        return try run(["admin", "token", "create", "cora"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An admin, a team `clinic` with a coordinator `cora` (password `coordinator-1`) and the field
    /// worker `test.worker` (the collector these tests' records name), in the server database of
    /// this data directory.
    func prepareClinic() throws {
        _ = try run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"])
        _ = try run(["admin", "team", "create", "clinic"])
        _ = try run(
            ["admin", "user", "create", "cora", "--role", "coordinator", "--team", "clinic", "--password-stdin"], input: ["coordinator-1"])
        _ = try run(
            ["admin", "user", "create", "test.worker", "--role", "fieldworker", "--team", "clinic", "--password-stdin"],
            input: ["fieldworker-1"])
    }

    /// How many revisions the server database of this data directory holds for each record id.
    func serverRevisionsById() throws -> [String: Int] {
        let path = dataDirectory.appendingPathComponent("server.sqlite").path
        let queue = try DatabaseQueue(
            path: path,
            configuration: {
                var c = Configuration(); c.readonly = true; return c
            }())
        return try queue.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT recordId, COUNT(*) AS n FROM recordRevision GROUP BY recordId") {
                counts[row["recordId"]] = row["n"]
            }
            return counts
        }
    }

    /// Runs to the end with `input` on standard input.
    @discardableResult
    func run(_ arguments: [String], input: [String] = []) throws -> Result {
        let process = process(arguments)
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // A command that needs no input may have ended before it is written (a busy machine runs
        // it at once): the pipe is then closed, and the old write(_:) would trap on EPIPE.
        if !input.isEmpty { try? stdin.fileHandleForWriting.write(contentsOf: Data(input.map { $0 + "\n" }.joined().utf8)) }
        try? stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self), terminatedBySignal: process.terminationReason == .uncaughtSignal)
    }
}

/// Collects a child process's output from a readability handler.
final class LogBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
