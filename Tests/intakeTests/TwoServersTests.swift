import Foundation
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two `intake serve` processes on one PostgreSQL database, as a deployment behind a load
/// balancer runs: clients send to both, with ids that overlap, and the database ends up with
/// each record once, whichever server took it.
@Suite(.serialized)
struct TwoServersTests {
    static func postgresDatabase() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["INTAKE_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw CocoaError(
                .featureUnsupported,
                userInfo: [NSLocalizedDescriptionKey: "INTAKE_TEST_POSTGRES_URL is not set; run the tests with scripts/test"])
        }
        let schema = "s" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
        return url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
    }

    /// Sends `records` in batches of 250 over `connections` connections; the status of each batch.
    static func send(_ records: ArraySlice<PatientResponse>, port: Int, token: String, connections: Int) async throws -> [Int] {
        let batches = stride(from: records.startIndex, to: records.endIndex, by: 250).map {
            records[$0..<min($0 + 250, records.endIndex)]
        }
        return try await withThrowingTaskGroup(of: [Int].self) { group in
            for connection in 0..<connections {
                group.addTask {
                    var statuses: [Int] = []
                    for batch in stride(from: connection, to: batches.count, by: connections).map({ batches[$0] }) {
                        var body = Data(#"{"records":["#.utf8)
                        for (index, record) in batch.enumerated() {
                            if index > 0 { body.append(UInt8(ascii: ",")) }
                            body.append(record.jsonData())
                        }
                        body.append(contentsOf: Array("]}".utf8))
                        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records/batch")!)
                        request.httpMethod = "POST"
                        request.httpBody = body
                        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                        request.timeoutInterval = 60
                        let (_, response) = try await URLSession.shared.data(for: request)
                        statuses.append((response as? HTTPURLResponse)?.statusCode ?? 0)
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    static func export(port: Int, token: String) async throws -> Data {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/exports?format=jsonl")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 120
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        return data
    }

    @Test func twoServersOnOneDatabaseStoreEveryRecordOnceAndExportTheSame() async throws {
        var intake = IntakeProcess()
        intake.serverDatabase = try Self.postgresDatabase()
        let token = try intake.prepareServerWithCoordinator()
        let first = try intake.startServer()
        defer { first.process.terminate() }
        let second = try intake.startServer()
        defer { second.process.terminate() }

        let questionnaire = try QuestionnaireLoader.load(
            directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 2026, collector: "cora")
        let records = (0..<10_000).map { _ in generator.next() }
        // 0..<6000 go to the first server, 4000..<10000 to the second: 2000 ids reach both at once.
        async let a = Self.send(records[0..<6000], port: first.port, token: token, connections: 4)
        async let b = Self.send(records[4000..<10_000], port: second.port, token: token, connections: 4)
        let statuses = try await a + b
        #expect(statuses.count == 48 && statuses.allSatisfy { $0 == 200 }, "\(statuses)")

        let fromFirst = try await Self.export(port: first.port, token: token)
        let fromSecond = try await Self.export(port: second.port, token: token)
        #expect(fromFirst == fromSecond, "an export from either server is byte-identical")
        let lines = fromFirst.split(separator: UInt8(ascii: "\n"))
        let ids = try lines.map { try ExportRecordLine(Data($0)).id }
        #expect(ids.count == 10_000, "zero lost")
        #expect(Set(ids).count == 10_000, "zero duplicated")
        #expect(Set(ids) == Set(records.map(\.id)))
        #expect(try lines.allSatisfy { try ExportRecordLine(Data($0)).revision == 1 }, "no record stored twice as a new revision")
    }
}

/// The id and revision of one JSON Lines export line.
private struct ExportRecordLine: Decodable {
    var id: UUID
    var revision: Int

    init(_ line: Data) throws { self = try JSONDecoder().decode(Self.self, from: line) }
}
