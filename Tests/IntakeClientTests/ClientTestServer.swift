import Foundation
import IntakeCore
import IntakeSQLite
import IntakeServer
import IntakeService
import IntakeStore
import Logging

@testable import IntakeClient

/// A real server on 127.0.0.1 (SQLite in a temporary folder) and a local store, for client tests.
struct ClientTestServer {
    let services: IntakeServices
    let questionnaire: Questionnaire
    let token: String
    let store: LocalStore

    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func make() async throws -> ClientTestServer {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-client-\(UUID().uuidString)")
        var configuration = ServerConfiguration(database: folder.appendingPathComponent("server.sqlite").path)
        configuration.bcryptCost = 4
        let services = IntakeServices(configuration: configuration, store: try SQLiteRecordStore(path: configuration.database))
        let questionnaireFolder = repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")
        _ = try await services.questionnaires.publish(directory: questionnaireFolder)
        _ = try await services.accounts.createTeam(name: "clinic")
        let user = try await services.accounts.createUser(username: "cora", password: "coordinator-1", role: .coordinator, team: "clinic")
        let token = try await services.accounts.issueToken(for: user, name: "test", expiresAt: nil)
        var storeConfiguration = LocalStore.Configuration()
        storeConfiguration.scryptRounds = 1024
        let store = try LocalStore(directory: folder.appendingPathComponent("client"), configuration: storeConfiguration)
        return ClientTestServer(
            services: services, questionnaire: try QuestionnaireLoader.load(directory: questionnaireFolder), token: token, store: store)
    }

    func record(seed: UInt64) -> PatientResponse {
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed, collector: "cora")
        return generator.next()
    }

    /// A client of the server on `port`. The timeout rules out a server that never answers, not
    /// a slow one: a test process on a loaded two-core machine (every suite at once) has taken
    /// over 20 s to answer its first request.
    func client(port: Int, timeout: TimeInterval = 120) -> IntakeClient {
        IntakeClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: token, timeout: timeout)
    }

    /// Runs the server on `port` (0: any free port) while `body` runs, then stops it.
    func serving<T: Sendable>(port: Int = 0, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> T {
        var logger = Logger(label: "intake.client-test")
        logger.logLevel = .critical
        return try await IntakeServerApp.serving(services, port: port, logger: logger, body)
    }

    /// A port nothing listens on.
    static func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
