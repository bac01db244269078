import ArgumentParser
import Foundation
import IntakeCore
import IntakeTerminal

struct SampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Write valid, varied synthetic records as JSON Lines, for demos, tests and benchmarks.",
        discussion: "The names are invented; the records follow the questionnaire's types, ranges and show-if conditions.")

    @OptionGroup var questionnaireOptions: QuestionnaireOptions

    @Option(name: .shortAndLong, help: "How many records to write.")
    var count: Int = 10

    @Option(help: "Seed for the random generator; the same seed gives the same records.")
    var seed: UInt64 = 1

    @Option(
        help: ArgumentHelp(
            "Every record's collector: a user name of the team that will receive them (default: invented names).", valueName: "name"))
    var collector: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    func validate() throws {
        guard count >= 0 else { throw ValidationError("Please give a count of 0 or more.") }
    }

    func run() throws {
        let questionnaire = try questionnaireOptions.load()
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed, collector: collector)
        let handle: FileHandle?
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil), let file = FileHandle(forWritingAtPath: output) else {
                throw ValidationError("Cannot write to \(output); check that its folder exists and is writable.")
            }
            handle = file
        } else {
            handle = nil
        }
        var buffer = Data()
        func flush() throws {
            if let handle { try handle.write(contentsOf: buffer) } else { Console.out(String(decoding: buffer, as: UTF8.self)) }
            buffer.removeAll(keepingCapacity: true)
        }
        for _ in 0..<count {
            buffer.append(try generator.next().jsonData())
            buffer.append(0x0A)
            if buffer.count > 1 << 20 { try flush() }
        }
        try flush()
        try handle?.close()
    }
}
