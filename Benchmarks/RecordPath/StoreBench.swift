import ArgumentParser
import Foundation
import IntakeCore
import IntakeDeployment
import IntakeServer
import IntakeService

/// The store alone: checked records handed to `RecordStore.ingest` in groups, as the group
/// commit does, on SQLite (and PostgreSQL when the bench has one), against the sqlite3 shell
/// inserting the same JSON. Says what the database side of an ingest costs, apart from HTTP and
/// validation.
struct StoreBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "store", abstract: "RecordStore.ingest alone vs sqlite3 inserting the same JSON rows.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Records in all.") var count = 20_000
    @Option(help: "Records per commit.") var size = 500

    func run() async throws {
        BenchRow.printTable(try await Self.measure(tools, count: count, size: size))
    }

    static func measure(_ tools: BenchTools, count: Int, size: Int) async throws -> [BenchRow] {
        let scratch = try scratchFolder("store")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let records = try BenchRecords.make(count, seed: 51)
        let questionnaire = try QuestionnaireLoader.load(directory: try BenchRecords.questionnaireFolder())
        let items = records.map { record in
            var item = IngestItem(record: record)
            item.alerts = RecordAlert.raised(byCleaned: record, questionnaire: questionnaire, today: LocalDate(year: 2100, month: 1, day: 1)!)
            return item
        }
        let reference = try SQLiteReference.insertRate(tools, records, scratch: scratch)
        var stores: [(String, String)] = [("SQLite", scratch.appendingPathComponent("store.sqlite").path)]
        if let postgres = tools.postgres(schema: "bench_store") { stores.append(("PostgreSQL", postgres)) }
        var rows: [BenchRow] = []
        for (name, database) in stores {
            _ = try await BenchServer.prepare(database)
            let services = try await IntakeServices.open(ServerConfiguration(database: database))
            let team = try require(try await services.store.team(named: "bench"))
            let owner = RecordOwner(teamId: team.id, username: "bench")
            log("store: \(count) records into \(name), \(size) a commit …")
            let start = ContinuousClock.now
            for part in stride(from: 0, to: count, by: size) {
                _ = try await services.store.ingest(Array(items[part..<min(part + size, count)]), owner: owner, at: Date())
            }
            let rate = Double(count) / seconds(ContinuousClock.now - start)
            let text = services.metrics.registry.emitToString()
            log("store: " + text.split(separator: "\n").filter { $0.hasPrefix("intake_group_commit_duration_seconds_sum") || $0.hasPrefix("intake_group_commit_wait_seconds_sum") }.joined(separator: "; ") + String(format: "; wall %.2f s", seconds(ContinuousClock.now - start)))
            rows.append(
                BenchRow(
                    what: "RecordStore.ingest alone, \(size) records a commit, \(name)", intake: format(rate, "records/s"),
                    reference: "sqlite3, one transaction: " + format(reference, "rows/s"), ratio: rate / reference, target: "—"))
        }
        return rows
    }
}

private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw BenchError("the bench team is missing") }
    return value
}
