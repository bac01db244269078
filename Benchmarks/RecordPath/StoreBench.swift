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
    @Flag(help: "After the run, name the B-tree of every page one more commit of --size records writes (SQLite).")
    var census = false

    func run() async throws {
        BenchRow.printTable(try await Self.measure(tools, count: count, size: size, census: census))
    }

    static func measure(_ tools: BenchTools, count: Int, size: Int, census: Bool = false) async throws -> [BenchRow] {
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
            if census && name == "SQLite" {
                let more = try BenchRecords.make(size, seed: 97).map { record in
                    var item = IngestItem(record: record)
                    item.alerts = RecordAlert.raised(byCleaned: record, questionnaire: questionnaire, today: LocalDate(year: 2100, month: 1, day: 1)!)
                    return item
                }
                try await PageCensus.take(database: database, sqlite3: tools.sqlite3, scratch: scratch) {
                    _ = try await services.store.ingest(more, owner: owner, at: Date())
                }
            }
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

/// Which B-trees a commit's pages belong to: the log is emptied, the commit runs, and each frame
/// it adds to the log is named by `dbstat` (read by the sqlite3 shell, on a copy of the
/// database as it was before the commit). Every page a commit writes costs a frame in the log
/// (and a copy into the database later); an index keyed at random costs about one a record.
enum PageCensus {
    static func take(database: String, sqlite3: String, scratch: URL, _ commit: () async throws -> Void) async throws {
        // The store's own checkpoint may be running (the last commit may have asked for one): a
        // checkpoint then answers busy at once, whatever the busy timeout, so try again for 10 s.
        var result = ""
        for _ in 0..<100 {
            result = try runProgram(sqlite3, ["-cmd", ".timeout 1000", database, "PRAGMA wal_checkpoint(TRUNCATE);"])
            if result.hasPrefix("0|") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        guard result.hasPrefix("0|") else { throw BenchError("the log could not be emptied before the census: \(result)") }
        let before = scratch.appendingPathComponent("census.sqlite").path
        try FileManager.default.copyItem(atPath: database, toPath: before)
        try await commit()
        let walFile = try Data(contentsOf: URL(fileURLWithPath: database + "-wal"))
        let pages = try lastCommit(walFile)
        var tree: [Int: String] = [:]
        for line in try runProgram(sqlite3, ["-readonly", before, "SELECT pageno, name || ' ' || pagetype FROM dbstat;"]).split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1)
            if parts.count == 2, let page = Int(parts[0]) { tree[page] = String(parts[1]) }
        }
        var counts: [String: Int] = [:]
        for page in pages { counts[tree[page] ?? "(a page new to the file, or free before)", default: 0] += 1 }
        log("census: one commit wrote \(pages.count) pages (\(Set(pages).count) distinct):")
        for (name, count) in counts.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            log(String(format: "census: %6d  %@", count, name))
        }
    }

    /// The page numbers of the log's last commit: frames of the log's current salt, up to the
    /// last one that marks a commit.
    private static func lastCommit(_ log: Data) throws -> [Int] {
        let bytes = [UInt8](log)
        func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        guard bytes.count >= 32 else { throw BenchError("the log is empty: the commit wrote nothing") }
        let pageSize = word(8)
        let salt = bytes[16..<24]
        var commits: [[Int]] = []
        var current: [Int] = []
        var at = 32
        while at + 24 + pageSize <= bytes.count {
            if bytes[at + 8..<at + 16] == salt {
                current.append(word(at))
                if word(at + 4) != 0 {
                    commits.append(current)
                    current = []
                }
            }
            at += 24 + pageSize
        }
        guard let last = commits.last else { throw BenchError("no commit was found in the log") }
        return last
    }
}
