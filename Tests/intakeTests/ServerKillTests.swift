import Foundation
import GRDB
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Killing `intake serve` (SIGKILL) while many clients post records, so that group commits are
/// cut at random points, loses no acknowledged record and stores none twice.
@Suite(.serialized)
struct ServerKillTests {
    let intake = IntakeProcess()

    /// Revisions per stored record; every stored record has one, and no revision lacks its record.
    private func revisionsById() throws -> [String: Int] {
        let counts = try intake.serverRevisionsById()
        let path = intake.dataDirectory.appendingPathComponent("server.sqlite").path
        let queue = try DatabaseQueue(
            path: path,
            configuration: {
                var c = Configuration(); c.readonly = true; return c
            }())
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM record") } == counts.count)
        return counts
    }

    /// Posts `records` from `clients` connections at once until each is acknowledged or the server is gone.
    private static func post(_ records: [PatientResponse], port: Int, token: String, clients: Int) async -> [String: Int] {
        await withTaskGroup(of: [String: Int].self) { group in
            for client in 0..<clients {
                group.addTask {
                    var outcomes: [String: Int] = [:]
                    for record in stride(from: client, to: records.count, by: clients).map({ records[$0] }) {
                        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records")!)
                        request.httpMethod = "POST"
                        request.httpBody = record.jsonData()
                        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                        request.timeoutInterval = 10
                        guard let (_, response) = try? await URLSession.shared.data(for: request), let http = response as? HTTPURLResponse
                        else {
                            break
                        }
                        outcomes[record.id.uuidString.lowercased()] = http.statusCode
                    }
                    return outcomes
                }
            }
            return await group.reduce(into: [:]) { $0.merge($1) { a, _ in a } }
        }
    }

    @Test func killingTheServerDuringGroupCommitsLosesNoAcknowledgedRecord() async throws {
        let token = try intake.prepareServerWithCoordinator()
        let questionnaire = try QuestionnaireLoader.load(
            directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        let seed = ProcessInfo.processInfo.environment["INTAKE_TEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("server kill test: seed \(seed) (re-run with INTAKE_TEST_SEED=\(seed))")
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed, collector: "cora")
        var random = SeededGenerator(seed: seed)
        var (server, port) = try intake.startServer()
        defer { server.terminate() }
        var everything: [PatientResponse] = []
        var cutRounds = 0

        for round in 0..<4 {
            // Given 16 clients posting 400 new records at once
            let records = (0..<400).map { _ in generator.next() }
            everything += records
            let load = Task { await Self.post(records, port: port, token: token, clients: 16) }
            // When the server is killed in the middle of it
            try await Task.sleep(for: .milliseconds(Int.random(in: 150...600, using: &random)))
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
            let outcomes = await load.value

            // Then every acknowledged record is stored, once
            let stored = try revisionsById()
            let acknowledged = outcomes.filter { $0.value == 201 || $0.value == 200 }.map(\.key)
            #expect(acknowledged.allSatisfy { stored[$0] != nil }, "round \(round): an acknowledged record was lost")
            #expect(stored.values.allSatisfy { $0 == 1 }, "round \(round): a record was stored twice")
            #expect(outcomes.values.allSatisfy { [200, 201].contains($0) }, "round \(round): \(Set(outcomes.values))")
            if acknowledged.count < records.count { cutRounds += 1 }
            print("round \(round): \(acknowledged.count) of \(records.count) acknowledged before the kill, \(stored.count) stored in all")

            // And sending everything again after a restart stores what is missing and nothing twice
            server = try intake.startServer(port: port).process
            let again = await Self.post(records, port: port, token: token, clients: 4)
            #expect(again.count == records.count)
            #expect(
                again.values.allSatisfy { $0 == 200 || $0 == 201 }, "round \(round): a re-sent record was refused: \(Set(again.values))")
        }
        #expect(cutRounds > 0, "some kills must land in the middle of the load")
        let stored = try revisionsById()
        #expect(Set(stored.keys) == Set(everything.map { $0.id.uuidString.lowercased() }))
        #expect(stored.values.allSatisfy { $0 == 1 })
    }
}
