import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeServer
import IntakeStore
import Logging

struct QueueBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Measure the queue: encrypted vs plain enqueue, and flush throughput vs the server's raw insert rate.",
        discussion: "Everything runs in temporary folders on this machine, with a real server on 127.0.0.1 and synthetic records.")

    @Option(help: "Records to enqueue for the enqueue rates.") var enqueueCount = 2000
    @Option(help: "Records to flush.") var flushCount = 10_000
    @Option(help: "Records per flush request.") var batchSize = 500

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("intake-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = try QuestionnaireCatalog().folder(for: nil)
        let questionnaire = try QuestionnaireLoader.load(directory: folder)
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 7)
        let records = (0..<max(enqueueCount, flushCount)).map { _ in generator.next() }

        let encrypted = try LocalStore(directory: scratch.appendingPathComponent("encrypted"))
        let sealedRate = try rate(enqueueCount) { for record in records.prefix(enqueueCount) { try encrypted.enqueue(record) } }
        let plain = try LocalStore(directory: scratch.appendingPathComponent("plain"))
        let plainRate = try rate(enqueueCount) { try plain.benchmarkPlainInserts(Array(records.prefix(enqueueCount))) }
        print(String(format: "enqueue, AES-GCM sealed:   %8.0f records/s", sealedRate))
        print(String(format: "enqueue, plain (reference): %8.0f records/s   sealed/plain = %.2f", plainRate, sealedRate / plainRate))

        let flushRecords = Array(records.prefix(flushCount))
        let raw = try await services(scratch.appendingPathComponent("raw.sqlite"), folder: folder)
        let rawRate = try await asyncRate(flushCount) {
            for start in stride(from: 0, to: flushRecords.count, by: batchSize) {
                _ = try await raw.services.records.ingest(
                    Array(flushRecords[start..<min(start + batchSize, flushRecords.count)]),
                    owner: RecordOwner(teamId: raw.team, username: "bench"))
            }
        }
        let target = try await services(scratch.appendingPathComponent("server.sqlite"), folder: folder)
        let queue = try LocalStore(directory: scratch.appendingPathComponent("queue"))
        for record in flushRecords { try queue.enqueue(record) }
        var logger = Logger(label: "intake.bench")
        logger.logLevel = .critical
        let flushRate = try await IntakeServerApp.serving(target.services, logger: logger) { [batchSize, flushCount] port in
            let client = IntakeClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: target.token, timeout: 120)
            return try await asyncRate(flushCount) {
                let summary = try await QueueFlusher(store: queue, client: client, batchSize: batchSize).flush()
                guard summary.uploaded == flushCount else {
                    throw ValidationError("The flush uploaded \(summary.uploaded) of \(flushCount) records.")
                }
            }
        }
        print(String(format: "flush into intake serve:    %8.0f records/s (%d records, batches of %d)", flushRate, flushCount, batchSize))
        print(String(format: "server raw insert (reference): %5.0f records/s   flush/raw = %.2f", rawRate, flushRate / rawRate))
    }

    private func rate(_ count: Int, _ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        return Double(count) / seconds(since: start)
    }

    private func asyncRate(_ count: Int, _ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        return Double(count) / seconds(since: start)
    }

    private func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private func services(_ path: URL, folder: URL) async throws -> (services: IntakeServices, team: Int64, token: String) {
        var configuration = ServerConfiguration(databasePath: path.path)
        configuration.bcryptCost = 4
        configuration.maxBatchRecords = max(batchSize, 1)
        let services = try IntakeServices.sqlite(configuration)
        _ = try await services.questionnaires.publish(directory: folder)
        let team = try await services.accounts.createTeam(name: "bench")
        let user = try await services.accounts.createUser(username: "bench", password: "bench-password", role: .coordinator, team: "bench")
        return (services, team.id, try await services.accounts.issueToken(for: user, name: "bench", expiresAt: nil))
    }
}
