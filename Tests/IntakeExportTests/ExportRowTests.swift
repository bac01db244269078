import Foundation
import IntakeCore
import Testing

@testable import IntakeExport

/// The wide CSV is written from stored bytes without building records; these tests hold it to
/// what the same records give when read whole.
struct ExportRowTests {
    static let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Questionnaires/refugee-health")
    let keyer = try! PatientKeyer(secret: Fixtures.secret)

    static let optionSets: [ExportOptions] = [
        ExportOptions(),
        ExportOptions(includeIdentifiers: true),
        ExportOptions(dropFreeText: true),
        ExportOptions(shiftDates: true),
    ]

    @Test(arguments: optionSets)
    func aRowReadFromStoredBytesIsTheLineTheWholeRecordGives(options: ExportOptions) throws {
        let questionnaire = try QuestionnaireLoader.load(directory: Self.bundled)
        let plan = try ExportPlan(questionnaires: [questionnaire], options: options)
        let formatter = WideCSVFormatter(plan: plan)
        let seed = ProcessInfo.processInfo.environment["INTAKE_TEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("wide CSV rows: seed \(seed) (re-run with INTAKE_TEST_SEED=\(seed))")
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed)
        var hiddenSeen = 0
        for revision in 1...300 {
            let record = generator.next()
            let whole = ExportRecord(
                record, revision: revision, keyer: keyer, includeIdentifiers: options.includeIdentifiers, shiftDates: options.shiftDates)
            let row = try ExportRow(body: RecordCodec.encode(record), revision: revision, plan: plan, keyer: keyer)
            var bytes: [UInt8] = []
            formatter.write(row, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == (try formatter.row(whole)), "seed \(seed), record \(revision)")
            hiddenSeen += row.hidden.filter { $0 }.count
        }
        #expect(hiddenSeen > 0, "the samples exercise show-if")
    }

    @Test func aStoredRecordOfAnUnknownVersionIsRefusedByName() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1])
        let body = RecordCodec.encode(Fixtures.record(v2, [1: .yesNo(true)]))
        #expect {
            _ = try ExportRow(body: body, revision: 1, plan: plan, keyer: nil)
        } throws: { "\($0)".contains(v2.version) }
    }

    @Test func damagedStoredBytesGiveAnErrorWithoutTheirContent() throws {
        let (v1, _) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1])
        var body = RecordCodec.encode(Fixtures.record(v1, [1: .yesNo(true)]))
        body.removeLast(3)
        #expect {
            _ = try ExportRow(body: body, revision: 1, plan: plan, keyer: nil)
        } throws: { error in
            let text = "\(error)"
            return text.contains("cannot be read") && !text.contains("Amina")
        }
    }
}
