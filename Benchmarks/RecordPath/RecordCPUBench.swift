import ArgumentParser
import Foundation
import IntakeCore

/// What one record costs the server's CPU on its way in, stage by stage: read (JSON to the
/// record), check and clean (the validator), write (canonical bytes) and hash. No reference: it
/// says where the time of the other rows goes (run it under `perf record -g` to see inside).
struct RecordCPUBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record-cpu", abstract: "The CPU time of one record on the ingest path, stage by stage (no reference).")
    /// Taken, as scripts/bench gives every comparison them, and not needed.
    @OptionGroup var tools: BenchTools
    @Option(help: "Records to run through each stage.") var count = 2000
    @Option(help: "Rounds (the best is reported).") var rounds = 5

    func run() async throws {
        let stages = try Self.measure(count: count, rounds: rounds)
        for (name, micros) in stages { print(String(format: "%-22@ %8.1f µs per record", name as NSString, micros)) }
    }

    /// Microseconds per record of each stage, the best of `rounds`.
    static func measure(count: Int, rounds: Int) throws -> [(String, Double)] {
        let questionnaire = try QuestionnaireLoader.load(directory: try BenchRecords.questionnaireFolder())
        let records = try BenchRecords.make(count, seed: 11)
        let bodies = records.map { RecordCodec.encode($0) }
        let validator = Validator(questionnaire: questionnaire, today: LocalDate(year: 2100, month: 1, day: 1)!)
        var best = [Double](repeating: .infinity, count: 5)
        var sink = 0
        for _ in 0..<rounds {
            var decoded: [PatientResponse] = []
            decoded.reserveCapacity(count)
            var clock = ContinuousClock.now
            func lap(_ stage: Int) {
                let now = ContinuousClock.now
                best[stage] = min(best[stage], seconds(now - clock) * 1e6 / Double(count))
                clock = now
            }
            for body in bodies { decoded.append(try RecordCodec.decode(body)) }
            lap(0)
            var cleaned: [PatientResponse] = []
            cleaned.reserveCapacity(count)
            for record in decoded {
                let (issues, clean) = validator.validateAndClean(record)
                sink &+= issues.count
                cleaned.append(clean)
            }
            lap(1)
            var written: [[UInt8]] = []
            written.reserveCapacity(count)
            for record in cleaned { written.append(RecordCodec.encode(record)) }
            lap(2)
            for bytes in written { sink &+= RecordCodec.contentHash(ofCanonical: bytes).utf8.count }
            lap(3)
            for record in cleaned { sink &+= record.attachments.count }
            lap(4)
        }
        if sink == 42 { log("") }
        let names = ["read (JSON → record)", "check and clean", "write (canonical)", "content hash", "files named"]
        return zip(names, best).map { ($0, $1) } + [("total", best.reduce(0, +))]
    }
}
