import ArgumentParser

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmarks: each prints its figure next to a reference measured in the same run.",
        subcommands: [QueueBenchCommand.self, ExportBenchCommand.self],
        defaultSubcommand: QueueBenchCommand.self)
}
