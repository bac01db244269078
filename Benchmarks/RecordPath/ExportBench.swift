import ArgumentParser
import Foundation
import GRDB
import IntakeCore
import IntakeServer
import IntakeService

/// `intake export --format csv` from a server database against `sqlite3 -csv` dumping the same
/// table: records per second and peak resident memory of each, as child processes.
struct ExportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "intake export (wide CSV; .sav and .dta) vs sqlite3 -csv.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Records in the database.") var count = 1_000_000
    @Option(help: "A server database to fill once and reuse across runs (for profiling); it is kept.")
    var database: String?

    @Flag(help: "Also measure lookups on the same database (as 'lookup' does).") var lookups = false

    func run() async throws {
        BenchRow.printTable(
            try await Self.measure(tools, count: count, database: database.map { URL(fileURLWithPath: $0) }, lookups: lookups))
    }

    /// The export rows (and the lookup rows, with `lookups`) for SQLite, and for PostgreSQL when
    /// the tools name one: the SQLite database is copied there with `intake admin copy-database`.
    static func measure(_ tools: BenchTools, count: Int, database kept: URL? = nil, lookups: Bool = false) async throws -> [BenchRow] {
        let scratch = try scratchFolder("export")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let database = kept ?? scratch.appendingPathComponent("server.sqlite")
        if !FileManager.default.fileExists(atPath: database.path) { try await fill(database, count: count) }
        let count = try await DatabaseQueue(path: database.path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record") ?? 0 }
        let dump = scratch.appendingPathComponent("sqlite3.csv")
        _ = try MeasuredProcess.run(tools.sqlite3, ["-csv", database.path, "SELECT * FROM record"], output: dump)
        /// Runs `intake export` with `arguments` and an output folder named `name`, throwing its log if it fails.
        func export(_ name: String, _ arguments: [String]) throws -> MeasuredProcess {
            log("export: intake export \(arguments.joined(separator: " ")) …")
            let output = scratch.appendingPathComponent("\(name).log")
            let run = try MeasuredProcess.run(
                tools.intake, ["export"] + arguments + ["--out", scratch.appendingPathComponent(name).path], output: output)
            guard run.status == 0 else {
                throw BenchError("intake export (\(name)) failed: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
            }
            try? FileManager.default.removeItem(at: scratch.appendingPathComponent(name))
            return run
        }
        let wide = try export("export", ["--database", database.path, "--format", "csv"])
        log("export: sqlite3 -csv …")
        let reference = try MeasuredProcess.run(tools.sqlite3, ["-csv", database.path, "SELECT * FROM record"], output: dump)
        let referenceRate = Double(count) / reference.seconds
        func row(_ what: String, _ run: MeasuredProcess, target: String, referencePeak: Bool = false) -> BenchRow {
            let rate = Double(count) / run.seconds
            return BenchRow(
                what: "\(what), \(count) records", intake: format(rate, "records/s") + ", peak " + megabytes(run.peakBytes),
                reference: "sqlite3 -csv: " + format(referenceRate, "rows/s") + (referencePeak ? ", peak " + megabytes(reference.peakBytes) : ""),
                ratio: rate / referenceRate, target: target)
        }
        var rows = [row("intake export, wide CSV", wide, target: "≥ 0.5, peak ≤ 64 MB", referencePeak: true)]
        // The statistics files, written after the run from rows kept on disk: their time and peak.
        let statistics = try export("stats", ["--database", database.path, "--format", "sav", "--format", "dta"])
        rows.append(row("intake export, records.sav and records.dta (and each repeat's)", statistics, target: "peak ≤ 64 MB"))
        if lookups { rows += try await LookupBench.measure(sqlite: database.path) }
        guard let postgres = tools.postgres(schema: "bench_export") else { return rows }
        try LookupBench.copy(database.path, to: postgres, tools: tools)
        let fromPostgres = try export("pg", ["--database", postgres, "--format", "csv"])
        rows.append(row("intake export from PostgreSQL, wide CSV", fromPostgres, target: "≥ 0.5, peak ≤ 64 MB"))
        if lookups { rows += try await LookupBench.measure(postgres: postgres) }
        return rows
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

    /// A server database (made by the server, so its schema is the real one) filled straight
    /// through SQL with synthetic records in canonical form, 10,000 to a transaction.
    static func fill(_ database: URL, count: Int) async throws {
        _ = try await BenchServer.prepare(database.path)
        let questionnaire = try QuestionnaireLoader.load(directory: try BenchRecords.questionnaireFolder())
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 11)
        let queue = try DatabaseQueue(path: database.path)
        var done = 0
        while done < count {
            let chunk = min(10_000, count - done)
            let batch = (0..<chunk).map { _ in generator.next() }
            let base = done
            try await queue.write { db in
                let statement = try db.makeStatement(
                    sql: """
                        INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, collector, status, revision,
                                            createdAt, updatedAt, receivedAt, givenNameKey, familyNameKey, dateOfBirth, externalId, body,
                                            changeSeq, teamSeq, firstChangeSeq, firstTeamSeq)
                        VALUES (?, ?, ?, 1, 'bench', 'bench', ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for (offset, record) in batch.enumerated() {
                    try statement.execute(arguments: [
                        record.id.uuidString.lowercased(), record.questionnaire.id, record.questionnaire.version, record.status.rawValue,
                        record.createdAt.timeIntervalSince1970, record.updatedAt.timeIntervalSince1970,
                        record.updatedAt.timeIntervalSince1970,
                        record.patient.givenName.lowercased(), record.patient.familyName.lowercased(),
                        record.patient.dateOfBirth?.description,
                        record.patient.externalId, String(decoding: RecordCodec.encode(record), as: UTF8.self), base + offset + 1,
                        base + offset + 1, base + offset + 1, base + offset + 1,
                    ])
                }
            }
            done += chunk
            log("export: filling the database: \(done)/\(count)")
        }
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
