import ArgumentParser
import Foundation

/// Process start to the first question of `intake fill` on screen, against `intake --version`.
struct StartBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "start", abstract: "intake fill's start-up vs intake --version.")
    @OptionGroup var tools: BenchTools
    @Option(help: "Runs of each (the median is reported).") var runs = 30

    func run() async throws {
        BenchRow.printTable(try Self.measure(tools, runs: runs))
    }

    static func measure(_ tools: BenchTools, runs: Int) throws -> [BenchRow] {
        let scratch = try scratchFolder("start")
        defer { try? FileManager.default.removeItem(at: scratch) }
        log("start: \(runs) runs each …")
        var fill: [Double] = []
        var version: [Double] = []
        for run in 0..<runs {
            let data = scratch.appendingPathComponent("data-\(run % 2)")
            fill.append(try timeToFirst(tools.intake, ["fill", "--data-dir", data.path], marker: "[P.1]"))
            version.append(try timeToFirst(tools.intake, ["--version"], marker: nil))
        }
        let fillMedian = fill.sorted()[runs / 2] * 1000, versionMedian = version.sorted()[runs / 2] * 1000
        return [
            BenchRow(
                what: "intake fill: process start to the first question (median of \(runs))", intake: format(fillMedian, "ms"),
                reference: "intake --version: " + format(versionMedian, "ms"), ratio: fillMedian / versionMedian, target: "≤ 1.3")
        ]
    }

    /// Seconds from starting the program until `marker` appears in its output (or it exits).
    static func timeToFirst(_ executable: String, _ arguments: [String], marker: String?) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["INTAKE_COLLECTOR"] = "bench"
        environment["INTAKE_SERVER"] = nil
        // A fresh store with no passphrase to ask for: its key in a file (what a kiosk does).
        environment["INTAKE_KIOSK"] = "1"
        process.environment = environment
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        let start = ContinuousClock.now
        try process.run()
        var seen = Data()
        let handle = output.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
            if let marker, String(decoding: seen, as: UTF8.self).contains(marker) { break }
        }
        let elapsed = seconds(ContinuousClock.now - start)
        // Input ends, so fill leaves as a person's does (it keeps no draft of an untouched form)
        // and closes its store: the next run starts from what a person's next fill finds, not
        // from a killed process's leftovers.
        try? input.fileHandleForWriting.close()
        while !handle.availableData.isEmpty {}
        process.waitUntilExit()
        if let marker, !String(decoding: seen, as: UTF8.self).contains(marker) {
            throw BenchError(
                "intake \(arguments.joined(separator: " ")) never showed '\(marker)': \(String(decoding: seen, as: UTF8.self).suffix(300))")
        }
        return elapsed
    }
}
