import Foundation
import Hummingbird
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Logging
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Collects every log line a router writes.
final class LogCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var text: String { lock.withLock { lines.joined(separator: "\n") } }

    struct Handler: LogHandler {
        let collector: LogCollector
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            collector.append("\(event.level) \(event.message) \(all)")
        }
    }
}

struct LogPrivacyTests {
    @Test func logsNeverContainNamesOrAnswers() async throws {
        let server = try await TestServer.make()
        let collector = LogCollector()
        let logger = Logger(label: "test") { _ in LogCollector.Handler(collector: collector) }
        let record = server.record(familyName: "Zyxwvutsrq", givenName: "Qponmlkji").with {
            $0[QuestionPosition(section: 4, index: 12)] = .text("Secretanswerxyz")
        }
        let app = Application(
            router: IntakeServerApp.router(server.services).router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: logger)
        try await app.test(.router) { client in
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record)
            _ = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record.with { $0.patient.sex = .other })
            _ = try await client.send(.get, "/v1/records?familyName=Zyxwvutsrq&givenName=Qponmlkji", as: "fieldworker-a", in: server)
            _ = try await client.send(
                .post, "/v1/sessions", as: nil, in: server, json: ["username": "Zyxwvutsrq", "password": "Secretanswerxyz"])
        }
        let logs = collector.text
        #expect(logs.contains("POST /v1/records 201"))
        #expect(logs.contains("GET /v1/records 200"))
        for secret in ["Zyxwvutsrq", "Qponmlkji", "Secretanswerxyz"] {
            #expect(!logs.contains(secret), "the logs contain '\(secret)'")
        }
    }
}
