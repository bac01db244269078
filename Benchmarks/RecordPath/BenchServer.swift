import Foundation
import IntakeCore
import IntakePostgres
import IntakeSQLite
import IntakeDeployment
import IntakeServer
import IntakeService

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real `intake serve` process on 127.0.0.1 over a fresh database that has the bundled
/// questionnaire, a team and a coordinator's token.
final class BenchServer {
    let process: Process
    let port: Int
    let token: String
    let database: String
    /// An admin's token, for `/metrics`.
    let adminToken: String

    /// `database`: a PostgreSQL URL, or nil for a SQLite file in `scratch`.
    /// `sharing`: a second server on that server's database (and with its token).
    /// `tokens`: the database is prepared already, with these tokens.
    static func start(
        intake: String, in scratch: URL, port: Int, database postgres: String? = nil, sharing: BenchServer? = nil,
        tokens prepared: (String, String)? = nil
    ) async throws -> BenchServer {
        let database = sharing?.database ?? postgres ?? scratch.appendingPathComponent("server.sqlite").path
        let tokens: (String, String)
        if let sharing {
            tokens = (sharing.token, sharing.adminToken)
        } else if let prepared {
            tokens = prepared
        } else {
            tokens = try await prepare(database)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: intake)
        process.arguments = ["serve", "--database", database, "--port", String(port), "--log-level", "error"]
        process.environment = benchServerEnvironment()
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let server = BenchServer(process: process, port: port, token: tokens.0, database: database, adminToken: tokens.1)
        try await waitUntilUp("http://127.0.0.1:\(port)/health", process: process)
        return server
    }

    private init(process: Process, port: Int, token: String, database: String, adminToken: String) {
        self.process = process
        self.port = port
        self.token = token
        self.database = database
        self.adminToken = adminToken
    }

    /// Publishes the bundled questionnaire and makes a team, a coordinator and an admin; their tokens.
    static func prepare(_ database: String) async throws -> (String, String) {
        var configuration = ServerConfiguration(database: database)
        configuration.bcryptCost = 4
        let services = try await IntakeServices.open(configuration)
        _ = try await services.questionnaires.publish(directory: try BenchRecords.questionnaireFolder())
        _ = try await services.accounts.createTeam(name: "bench")
        let user = try await services.accounts.createUser(username: "bench", password: "bench-password", role: .coordinator, team: "bench")
        let admin = try await services.accounts.createUser(username: "bench-admin", password: "bench-password", role: .admin, team: nil)
        return (
            try await services.accounts.issueToken(for: user, name: "bench", expiresAt: nil),
            try await services.accounts.issueToken(for: admin, name: "bench", expiresAt: nil)
        )
    }

    /// What the server's group commits were like (from `/metrics`): mean records and requests
    /// per commit, mean wait and commit time.
    func groupCommits() async -> String {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/metrics")!)
        request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
        guard let (data, _) = try? await URLSession.shared.data(for: request) else { return "no /metrics" }
        let text = String(decoding: data, as: UTF8.self)
        func value(_ name: String) -> Double {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        }
        let commits = max(value("intake_group_commit_requests_count"), 1)
        let waits = max(value("intake_group_commit_wait_seconds_count"), 1)
        return String(
            format: "%.0f group commits, %.1f records and %.1f requests each, waited %.2f ms, took %.2f ms", commits,
            value("intake_group_commit_records_sum") / commits, value("intake_group_commit_requests_sum") / commits,
            value("intake_group_commit_wait_seconds_sum") / waits * 1000, value("intake_group_commit_duration_seconds_sum") / commits * 1000)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Polls `url` until it answers, the process dies, or 30 seconds pass.
func waitUntilUp(_ url: String, process: Process) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        guard process.isRunning else { throw BenchError("\(process.executableURL?.lastPathComponent ?? "the server") exited on start") }
        if let (_, response) = try? await URLSession.shared.data(from: URL(string: url)!), (response as? HTTPURLResponse)?.statusCode == 200
        {
            return
        }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw BenchError("\(url) did not answer within 30 s")
}

/// Synthetic records of the bundled questionnaire, as `intake sample` makes them.
enum BenchRecords {
    static func questionnaireFolder() throws -> URL {
        try QuestionnaireCatalog(searchPath: QuestionnaireCatalog.upward(from: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))).folder(for: nil)
    }

    /// Collected by the bench server's user, a member of its team (the server checks).
    static func make(_ count: Int, seed: UInt64 = 7) throws -> [PatientResponse] {
        let questionnaire = try QuestionnaireLoader.load(directory: try questionnaireFolder())
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed, collector: "bench")
        return (0..<count).map { _ in generator.next() }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs a program to its end with its output captured; throws when it fails.
@discardableResult
func runProgram(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: URL? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
    process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    if let input { process.standardInput = try FileHandle(forReadingFrom: input) }
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
        throw BenchError(
            "\(executable) \(arguments.prefix(3).joined(separator: " ")) failed (\(process.terminationStatus)): \(text.suffix(500))")
    }
    return text
}

func scratchFolder(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("intake-bench-\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The bench measures the record path under load from one token: the per-token rate limit a
/// deployment keeps would answer most of it 429, so the bench's servers run without it.
func benchServerEnvironment() -> [String: String] {
    ProcessInfo.processInfo.environment.merging(["INTAKE_SERVER_RATE_LIMIT": "off"]) { $1 }
}
