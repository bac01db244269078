import ArgumentParser
import Foundation
import GRDB
import IntakeCore
import IntakeServer
import IntakeService

/// `intake export --format csv` from a server database against `sqlite3 -csv` dumping the same
/// table: records per second and peak resident memory of each, as child processes.
struct ExportBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "intake export (wide CSV) vs sqlite3 -csv.")
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
        log("export: intake export …")
        let folder = scratch.appendingPathComponent("export")
        let export = try MeasuredProcess.run(
            tools.intake, ["export", "--database", database.path, "--format", "csv", "--out", folder.path],
            output: scratch.appendingPathComponent("export.log"))
        guard export.status == 0 else {
            throw BenchError(
                "intake export failed: \((try? String(contentsOf: scratch.appendingPathComponent("export.log"), encoding: .utf8)) ?? "")")
        }
        log("export: sqlite3 -csv …")
        let reference = try MeasuredProcess.run(tools.sqlite3, ["-csv", database.path, "SELECT * FROM record"], output: dump)
        let exportRate = Double(count) / export.seconds, referenceRate = Double(count) / reference.seconds
        var rows = [
            BenchRow(
                what: "intake export, wide CSV, \(count) records",
                intake: format(exportRate, "records/s") + ", peak " + megabytes(export.peakBytes),
                reference: "sqlite3 -csv: " + format(referenceRate, "rows/s") + ", peak " + megabytes(reference.peakBytes),
                ratio: exportRate / referenceRate, target: "≥ 0.5, peak ≤ 64 MB")
        ]
        if lookups { rows += try await LookupBench.measure(sqlite: database.path) }
        guard let postgres = tools.postgres(schema: "bench_export") else { return rows }
        try LookupBench.copy(database.path, to: postgres, tools: tools)
        log("export: intake export from PostgreSQL …")
        let fromPostgres = try MeasuredProcess.run(
            tools.intake, ["export", "--database", postgres, "--format", "csv", "--out", scratch.appendingPathComponent("pg").path],
            output: scratch.appendingPathComponent("export-pg.log"))
        guard fromPostgres.status == 0 else {
            throw BenchError(
                "intake export from PostgreSQL failed: \((try? String(contentsOf: scratch.appendingPathComponent("export-pg.log"), encoding: .utf8)) ?? "")")
        }
        let postgresRate = Double(count) / fromPostgres.seconds
        rows.append(
            BenchRow(
                what: "intake export from PostgreSQL, wide CSV, \(count) records",
                intake: format(postgresRate, "records/s") + ", peak " + megabytes(fromPostgres.peakBytes),
                reference: "sqlite3 -csv: " + format(referenceRate, "rows/s"), ratio: postgresRate / referenceRate,
                target: "≥ 0.5, peak ≤ 64 MB"))
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
