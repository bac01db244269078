import ArgumentParser
import Foundation
import IntakeCore
import IntakeServer

struct ExportBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Measure 'intake export' to wide CSV against 'sqlite3 -csv' dumping the same stored rows.",
        discussion: """
            For each count, a temporary server database is filled with synthetic records (as 'intake sample' \
            makes them); then 'intake export --database … --format csv' and 'sqlite3 -csv … "SELECT * FROM record"' \
            run as child processes, one after the other, and each one's wall time and peak resident memory \
            (from wait4) are printed with the ratio. sqlite3 reads the database once beforehand so both find it \
            in the page cache. Use a release build for figures worth quoting.
            """)

    @Option(name: .customLong("records"), help: "Record counts to measure (repeatable).")
    var counts: [Int] = [100_000, 1_000_000]

    func validate() throws {
        guard !counts.isEmpty, counts.allSatisfy({ $0 >= 1 }) else { throw ValidationError("Give record counts of at least 1.") }
    }

    func run() async throws {
        guard let sqlite = Self.find("sqlite3") else {
            throw ValidationError("sqlite3 is not installed; it is the reference (Debian/Ubuntu: sudo apt-get install sqlite3).")
        }
        let intake = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let folder = try QuestionnaireCatalog().folder(for: nil)
        let questionnaire = try QuestionnaireLoader.load(directory: folder)
        print("records    tool                  records/s   peak memory   output     ratio (export/sqlite3)")
        for count in counts {
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("intake-export-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let database = scratch.appendingPathComponent("server.sqlite")
            try await fill(database, count: count, questionnaire: questionnaire, folder: folder)

            let dump = scratch.appendingPathComponent("sqlite3.csv")
            _ = try MeasuredProcess.run(sqlite, ["-csv", database.path, "SELECT * FROM record"], output: dump)
            let exportFolder = scratch.appendingPathComponent("export")
            let export = try MeasuredProcess.run(
                intake, ["export", "--database", database.path, "--format", "csv", "--out", exportFolder.path],
                output: scratch.appendingPathComponent("export.log"))
            guard export.status == 0 else {
                throw ValidationError(
                    "intake export failed (status \(export.status)): \((try? String(contentsOf: scratch.appendingPathComponent("export.log"), encoding: .utf8)) ?? "")"
                )
            }
            let reference = try MeasuredProcess.run(sqlite, ["-csv", database.path, "SELECT * FROM record"], output: dump)
            let exported = try Self.size(exportFolder.appendingPathComponent("records.csv"))
            let dumped = try Self.size(dump)
            let exportRate = Double(count) / export.seconds, referenceRate = Double(count) / reference.seconds
            print(
                Self.line(
                    count, "intake export (csv)", exportRate, export.peakBytes, exported, String(format: "%.2f", exportRate / referenceRate)
                ))
            print(Self.line(count, "sqlite3 -csv", referenceRate, reference.peakBytes, dumped, ""))
        }
    }

    private func fill(_ database: URL, count: Int, questionnaire: Questionnaire, folder: URL) async throws {
        let store = try SQLiteRecordStore(path: database.path)
        let services = IntakeServices(configuration: ServerConfiguration(databasePath: database.path), store: store)
        _ = try await services.questionnaires.publish(directory: folder)
        let team = try await services.accounts.createTeam(name: "bench")
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 11)
        var done = 0
        while done < count {
            let chunk = min(10_000, count - done)
            try store.benchmarkFill((0..<chunk).map { _ in generator.next() }, teamId: team.id, username: "bench")
            done += chunk
            FileHandle.standardError.write(Data("\rfilling the database: \(done)/\(count)".utf8))
        }
        FileHandle.standardError.write(Data("\n".utf8))
        try store.checkpoint()
    }

    private static func line(_ count: Int, _ tool: String, _ rate: Double, _ peak: Int, _ bytes: Int, _ ratio: String) -> String {
        String(format: "%-10d ", count) + tool.padding(toLength: 20, withPad: " ", startingAt: 0)
            + String(format: " %10.0f   %8.1f MB   %7.1f MB   ", rate, Double(peak) / 1_048_576, Double(bytes) / 1_048_576) + ratio
    }

    private static func size(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    private static func find(_ program: String) -> String? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
