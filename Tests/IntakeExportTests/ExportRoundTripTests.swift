import Foundation
import IntakeCore
import Testing

@testable import IntakeExport

/// Every format gives back every answer it was given, read by that format's own reader: Python's
/// csv for the CSV files, json for JSON Lines, the fhir.resources models for the FHIR bundle,
/// GNU PSPP running records.sps, R running records.R, pyreadstat reading records.sav and
/// records.dta and openpyxl reading records.xlsx (`scripts/roundtrip_export.py`, which
/// `scripts/test` points INTAKE_EXPORT_ROUNDTRIP at).
///
/// The answers are random and made to be hard: line breaks of every kind, quotes, separators,
/// backslashes, text that looks like a formula or is the unanswered marker, right-to-left and
/// mixed scripts, emoji, and very long text. The seed is printed; INTAKE_TEST_SEED repeats it.
struct ExportRoundTripTests {
    static let pieces = [
        "\n", "\r\n", "\r", "\"", "\"\"", ",", ";", "\t", "'", "=", "+", "-", "@", ".", "\\", "\\n", "\\b", " ", "  ",
        "مرحبا بالعالم", "שלום", "\u{202E}abc\u{202C}", "é", "e\u{301}", "😀", "👩🏽‍⚕️", "NA", "null", "0", "-3", "1e5", "=SUM(A1:A2)",
        "Fièvre", "ዓለም", "dépôt;", "'quoted'", "<b>", "%s", "{}",
    ]

    static func text(_ random: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return "."
        case 1:
            return String(repeating: "long text \u{645}\u{631}\u{62D}\u{628}\u{627} \n", count: Int.random(in: 100...400, using: &random))
        case 2: return ["=1+1", "+1 ", "-", "@x", "\tlead", "\rlead", "'.", "''"].randomElement(using: &random)!
        default:
            var out = ""
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                if Bool.random(using: &random) {
                    out += pieces.randomElement(using: &random)!
                } else {
                    out += String(
                        (0..<Int.random(in: 1...6, using: &random)).map { _ in "abcdefghXYZ0123 ".randomElement(using: &random)! })
                }
            }
            return out
        }
    }

    struct Expected: Encodable {
        var record: String
        var column: String
        var section: Int
        var index: Int
        var field: String?
        var linkId: String
        var kind: String
        var value: String
        /// For a question asked in a repeat: the instance, the repeat's id and index, the column
        /// in its table, and whether the wide CSV has a column for the instance.
        var instance: Int? = nil
        var group: String? = nil
        var groupIndex: Int? = nil
        var tableColumn: String? = nil
        var wide: Bool = true
    }

    /// The fixture's questions and a repeat of household members after them (indices 9 to 11).
    static let withRepeat =
        Fixtures.version1 + "\n" + """
            Household members | id: members | repeat 0..9
            A note on them | id: member_note | text
            Their age | id: member_age | integer 0..120 | required
            @end

            """

    @Test func everyFormatReadsBackEveryAnswerWithItsOwnReader() async throws {
        let seed = ProcessInfo.processInfo.environment["INTAKE_TEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("export round trip: seed \(seed) (re-run with INTAKE_TEST_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let questionnaire = try Fixtures.questionnaire(Self.withRepeat)
        var records: [PatientResponse] = []
        var expected: [Expected] = []
        for _ in 0..<40 {
            var answers: [Int: Answer] = [1: .yesNo(false)]
            let id = UUID(
                uuidString: "00000000-0000-4000-8000-" + String(format: "%012x", UInt64.random(in: 0...0xffff_ffff_ffff, using: &random)))!
            let key = id.uuidString.lowercased()
            func expect(_ column: String, _ index: Int, _ field: String?, _ kind: String, _ value: String) {
                expected.append(
                    Expected(
                        record: key, column: field.map { "\(column)_\($0)" } ?? column, section: 1, index: index, field: field,
                        linkId: field.map { "\(column).\($0)" } ?? column, kind: kind, value: value))
            }
            if Bool.random(using: &random) {
                let notes = Self.text(&random)
                answers[7] = .text(notes)
                expect("notes", 7, nil, "text", notes)
            }
            if Bool.random(using: &random) {
                let visits = Int.random(in: 0...100, using: &random)
                answers[6] = .integer(visits)
                expect("visits", 6, nil, "integer", String(visits))
            }
            if Bool.random(using: &random) {
                let name = Self.text(&random)
                let dose = (Double.random(in: 0...5000, using: &random) * 10_000).rounded() / 10_000
                answers[5] = .dictionary(["name": .text(name), "dose": .decimal(dose), "unit": .choice("mg")])
                expect("meds", 5, "name", "text", name)
                expect("meds", 5, "dose", "decimal", String(dose))
            }
            // Members, more than the wide CSV has columns for (5) now and then; every instance has an age.
            if Bool.random(using: &random) {
                var instances: [[Int: Answer]] = []
                for number in 1...Int.random(in: 1...8, using: &random) {
                    var instance: [Int: Answer] = [:]
                    func member(_ column: String, _ index: Int, _ kind: String, _ value: String) {
                        var entry = Expected(
                            record: key, column: "\(column)_\(number)", section: 1, index: index, field: nil, linkId: column, kind: kind,
                            value: value)
                        (entry.instance, entry.group, entry.groupIndex, entry.tableColumn) = (number, "members", 9, column)
                        entry.wide = number <= ExportOptions.defaultRepeatColumns
                        expected.append(entry)
                    }
                    if Bool.random(using: &random) {
                        let note = Self.text(&random)
                        instance[10] = .text(note)
                        member("member_note", 10, "text", note)
                    }
                    let age = Int.random(in: 0...120, using: &random)
                    instance[11] = .integer(age)
                    member("member_age", 11, "integer", String(age))
                    instances.append(instance)
                }
                answers[9] = .instances(instances)
            }
            var record = Fixtures.record(questionnaire, answers)
            record.id = id
            records.append(record)
        }
        #expect(expected.contains { $0.value == "." } || expected.count > 20)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-roundtrip-\(UUID().uuidString)")
        defer {
            if ProcessInfo.processInfo.environment["INTAKE_ROUNDTRIP_KEEP"] == nil { try? FileManager.default.removeItem(at: directory) }
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let input = directory.appendingPathComponent("records.jsonl")
        try Data(records.flatMap { RecordCodec.encode($0) + [10] }).write(to: input)
        let export = try JSONLinesExport(
            inputs: [input], available: [questionnaire], options: ExportOptions(), keyer: try PatientKeyer(secret: Fixtures.secret))
        let folder = directory.appendingPathComponent("out")
        _ = try await export.write(to: folder)
        for file in ["records.sav", "records.dta", "records.xlsx"] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path), "\(file) is in the folder")
        }
        let expectedFile = directory.appendingPathComponent("expected.json")
        try JSONEncoder().encode(expected).write(to: expectedFile)

        guard let reader = ProcessInfo.processInfo.environment["INTAKE_EXPORT_ROUNDTRIP"], !reader.isEmpty else {
            Issue.record("INTAKE_EXPORT_ROUNDTRIP is not set: run the tests with scripts/test, which installs fhir.resources, PSPP and R")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(reader) '\(folder.path)' '\(expectedFile.path)' 2>&1"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && text.contains("roundtrip_export: ok"), "seed \(seed): \(text)")
        print("ExportRoundTripTests: \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
    }
}
