import Foundation
import Hummingbird
import HummingbirdTesting
import IntakeCore
import IntakeDeployment
import IntakePostgres
import IntakeSQLite
import IntakeStoreTesting
import Logging
import NIOCore

@testable import IntakeServer
@testable import IntakeService

/// A server over a fresh store with the bundled questionnaire published, two teams, and a user
/// of every role in each team (admins and researchers without a team). The store is SQLite, or
/// PostgreSQL when `INTAKE_TEST_STORE=postgres` (scripts/test runs these tests both ways).
package struct TestServer {
    package let services: IntakeServices
    package let questionnaire: Questionnaire
    /// Tokens by user name: `fieldworker-a`, `coordinator-b`, `researcher`, `admin`.
    package var tokens: [String: String] = [:]

    /// The store these tests run on.
    package init(services: IntakeServices, questionnaire: Questionnaire, tokens: [String: String] = [:]) {
        self.services = services
        self.questionnaire = questionnaire
        self.tokens = tokens
    }

    package static let store = StoreKind(rawValue: ProcessInfo.processInfo.environment["INTAKE_TEST_STORE"] ?? "sqlite") ?? .sqlite

    package static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    package static func make(configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        var configuration = ServerConfiguration(database: try store.newDatabase())
        configuration.bcryptCost = 4
        // Files beside any store (a PostgreSQL deployment names its folder).
        configuration.attachments =
            FileManager.default.temporaryDirectory.appendingPathComponent("intake-attachments-\(UUID().uuidString)").path
        configure(&configuration)
        let services = try await IntakeServices.open(configuration)
        let folder = repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")
        _ = try await services.questionnaires.publish(directory: folder)
        var server = TestServer(services: services, questionnaire: try QuestionnaireLoader.load(directory: folder))
        for team in ["a", "b"] {
            _ = try await services.accounts.createTeam(name: "team-\(team)")
            for role in [Role.fieldworker, .coordinator] {
                try await server.addUser("\(role.rawValue)-\(team)", role: role, team: "team-\(team)")
            }
        }
        try await server.addUser("researcher", role: .researcher, team: nil)
        try await server.addUser("admin", role: .admin, team: nil)
        return server
    }

    package mutating func addUser(_ name: String, role: Role, team: String?) async throws {
        let user = try await services.accounts.createUser(username: name, password: "password-\(name)", role: role, team: team)
        tokens[name] = try await services.accounts.issueToken(for: user, name: "test", expiresAt: nil)
    }

    /// The server's application on a free port of 127.0.0.1, with `modules` (the console and the
    /// protocol façades) beside the API; it logs at `logLevel` and above.
    package func application(modules: [any ServerModule] = [], logLevel: Logger.Level = .warning) -> some ApplicationProtocol {
        var logger = Logger(label: "intake.test")
        logger.logLevel = logLevel
        return Application(
            router: IntakeServerApp.router(services, modules: modules).router,
            server: try! IntakeServerApp.httpServer(services.configuration),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
    }

    /// A valid complete record of the bundled questionnaire, collected by `collector` (a member
    /// of team-a by default: the server takes only a member of the record's team).
    package func record(seed: UInt64 = 1, familyName: String? = nil, givenName: String? = nil, collector: String = "fieldworker-a")
        -> PatientResponse
    {
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed, collector: collector)
        var record = generator.next()
        if let familyName { record.patient.familyName = familyName }
        if let givenName { record.patient.givenName = givenName }
        return record
    }
}

extension TestClientProtocol {
    /// Sends a request as `user` (nil: no token) with a JSON body.
    package func send(
        _ method: HTTPRequest.Method, _ uri: String, as user: String?, in server: TestServer, json: some Encodable
    ) async throws -> TestResponse {
        try await send(method, uri, as: user, in: server, body: try JSONEncoder().encode(json))
    }

    /// Sends a request with a body that carries records, written by ``RecordCodec``.
    package func send(
        _ method: HTTPRequest.Method, _ uri: String, as user: String?, in server: TestServer, json: some RecordBody
    ) async throws -> TestResponse {
        // Records are collected by who sends them (the server takes only a member of the team as
        // collector), unless the test chose a collector.
        try await send(method, uri, as: user, in: server, body: (user.map { json.collected(by: $0) } ?? json).jsonBody)
    }

    package func send(_ method: HTTPRequest.Method, _ uri: String, as user: String?, in server: TestServer, body: Data? = nil) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let user { headers[.authorization] = "Bearer \(server.tokens[user] ?? user)" }
        return try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
    }
}

extension TestResponse {
    package var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    package var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    package var text: String { String(buffer: body) }
}

/// A request body holding records, which only ``RecordCodec`` writes.
package protocol RecordBody {
    var jsonBody: Data { get }
    /// The same, with the sample generator's invented collectors replaced by `user`.
    func collected(by user: String) -> Self
}

extension PatientResponse: RecordBody {
    package var jsonBody: Data { jsonData() }

    package func collected(by user: String) -> PatientResponse {
        // The default collector (a member of team-a) stands for the sender in another team.
        guard SampleGenerator.collectors.contains(collector) || (collector == "fieldworker-a" && user.hasSuffix("-b")) else { return self }
        var record = self
        record.collector = user
        return record
    }
}

/// `{"records": [...]}` for a batch.
package struct Batch: RecordBody {
    package var records: [PatientResponse]

    package init(records: [PatientResponse]) { self.records = records }

    package func collected(by user: String) -> Batch { Batch(records: records.map { $0.collected(by: user) }) }

    package var jsonBody: Data {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("records")
        writer.beginArray()
        for record in records { RecordCodec.write(record, into: &writer) }
        writer.endArray()
        writer.endObject()
        return Data(writer.bytes)
    }
}

/// `{"baseRevision": n, "record": {...}}` for an edit.
package struct Update: RecordBody {
    package var baseRevision: Int
    package var record: PatientResponse

    package init(baseRevision: Int, record: PatientResponse) {
        self.baseRevision = baseRevision
        self.record = record
    }

    /// An edit keeps the record's collector, whoever sends it.
    package func collected(by user: String) -> Update { self }

    package var jsonBody: Data {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("baseRevision")
        writer.integer(baseRevision)
        writer.key("record")
        RecordCodec.write(record, into: &writer)
        writer.endObject()
        return Data(writer.bytes)
    }
}

/// Waits until `condition` holds, looking again every few milliseconds, for at most `timeout`:
/// for an event a test cannot be told of otherwise (a reader parked on a long poll). False when
/// it never held; the test says what it waited for.
package func eventually(timeout: Duration = .seconds(60), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}
