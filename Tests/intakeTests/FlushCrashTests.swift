import Foundation
import GRDB
import IntakeCore
import IntakeStore
import Testing

/// Killing `intake flush` (SIGKILL) at random moments, and the server mid-batch, loses nothing and
/// stores nothing twice: at every moment each record is on the server once, or still queued.
@Suite(.serialized)
struct FlushCrashTests {
    let intake = IntakeProcess()

    private func queuedIds() throws -> Set<String> {
        Set(try LocalStore(directory: intake.dataDirectory).queueEntries().map { $0.id.uuidString.lowercased() })
    }

    @Test func killingFlushOrServerAtRandomLosesAndDuplicatesNothing() throws {
        // Given a server, a coordinator's token and 400 queued records
        let token = try intake.prepareServerWithCoordinator()
        let questionnaire = try QuestionnaireLoader.load(
            directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 99, collector: "cora")
        let store = try LocalStore(directory: intake.dataDirectory)
        var all: Set<String> = []
        for _ in 0..<400 {
            let record = generator.next()
            try store.enqueue(record)
            all.insert(record.id.uuidString.lowercased())
        }
        var (server, port) = try intake.startServer()
        defer { server.terminate() }
        let seed = ProcessInfo.processInfo.environment["INTAKE_TEST_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        print("flush crash test: seed \(seed) (re-run with INTAKE_TEST_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let flushArguments = ["flush", "--server", "http://127.0.0.1:\(port)", "--token", token, "--batch-size", "7", "--attempts", "20"]

        // When flushes are killed at random moments, and sometimes the server too
        var partialRounds = 0
        for round in 0..<16 {
            let flush = intake.process(flushArguments)
            flush.standardOutput = FileHandle.nullDevice
            flush.standardError = FileHandle.nullDevice
            try flush.run()
            Thread.sleep(forTimeInterval: Double.random(in: 0.03...0.2, using: &random))
            if round % 4 == 3 {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
                Thread.sleep(forTimeInterval: Double.random(in: 0...0.2, using: &random))
                server = try intake.startServer(port: port).process
            }
            kill(flush.processIdentifier, SIGKILL)
            flush.waitUntilExit()

            // Then every record is on the server exactly once, or still queued
            let onServer = try intake.serverRevisionsById()
            #expect(onServer.values.allSatisfy { $0 == 1 }, "round \(round): a record was stored twice")
            #expect(Set(onServer.keys).isSubset(of: all))
            #expect(Set(onServer.keys).union(try queuedIds()) == all, "round \(round): a record was lost")
            if !onServer.isEmpty, onServer.count < all.count { partialRounds += 1 }
            print("round \(round): \(onServer.count) on the server, \(try queuedIds().count) queued")
        }
        #expect(partialRounds > 0, "some kills must land in the middle of a flush")

        // And a last flush finishes the job
        let last = try intake.run(flushArguments)
        #expect(last.status == 0, "\(last.stdout)\(last.stderr)")
        #expect(try queuedIds().isEmpty)
        let onServer = try intake.serverRevisionsById()
        #expect(Set(onServer.keys) == all)
        #expect(onServer.values.allSatisfy { $0 == 1 })
    }
}
