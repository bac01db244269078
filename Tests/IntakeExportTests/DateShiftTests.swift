import Foundation
import IntakeCore
import Testing

@testable import IntakeExport

struct DateShiftTests {
    let keyer = try! PatientKeyer(secret: Fixtures.secret)

    @Test func aPatientsDatesMoveTogetherSoIntervalsStay() throws {
        let questionnaire = try Fixtures.questionnaire("When | id: when | date\nMedication | id: meds | compound: started date; name text")
        var first = Fixtures.record(questionnaire, [1: .date(LocalDate(year: 2026, month: 3, day: 1)!)])
        first[QuestionPosition(section: 1, index: 2)] = .dictionary([
            "started": .date(LocalDate(year: 2026, month: 1, day: 10)!), "name": .text("x"),
        ])
        var second = Fixtures.record(questionnaire, [1: .date(LocalDate(year: 2026, month: 3, day: 11)!)])
        second.createdAt += 86_400 * 10
        let a = ExportRecord(first, keyer: keyer, includeIdentifiers: false, shiftDates: true)
        let b = ExportRecord(second, keyer: keyer, includeIdentifiers: false, shiftDates: true)
        let days = keyer.dateShift(patientKey: a.patientKey, recordId: first.id)
        #expect((1...365).contains(days))
        #expect(a.datesShifted && b.datesShifted)
        #expect(a.record[QuestionPosition(section: 1, index: 1)] == .date(LocalDate(year: 2026, month: 3, day: 1)!.adding(days: -days)))
        guard case .dictionary(let fields)? = a.record[QuestionPosition(section: 1, index: 2)] else { Issue.record("compound"); return }
        #expect(fields["started"] == .date(LocalDate(year: 2026, month: 1, day: 10)!.adding(days: -days)) && fields["name"] == .text("x"))
        #expect(first.createdAt.timeIntervalSince(a.record.createdAt) == Double(days) * 86_400)
        #expect(b.record.createdAt.timeIntervalSince(a.record.createdAt) == 10 * 86_400, "one patient, one shift: intervals kept")
        #expect(a.ageYears == ExportRecord(first, keyer: keyer, includeIdentifiers: false).ageYears, "age comes from the real dates")
    }

    @Test func shiftsDifferBetweenPatientsAndAreNeverAppliedTwice() throws {
        let shifts = Set((0..<200).map { keyer.dateShift(patientKey: "pk-\($0)", recordId: UUID()) })
        #expect(shifts.count > 100, "spread over the range")
        // No patient keeps real dates: of 3,000, about 8 would draw 0 days were 0 a shift.
        let all = (0..<3_000).map { keyer.dateShift(patientKey: "pk-\($0)", recordId: UUID()) }
        #expect(all.allSatisfy { (1...365).contains($0) }, "\(all.filter { !(1...365).contains($0) })")
        let (v1, _) = try Fixtures.versions()
        let once = ExportRecord(Fixtures.record(v1, [1: .yesNo(true)]), keyer: keyer, includeIdentifiers: false, shiftDates: true)
        let line = try JSONLinesFormatter(plan: try ExportPlan(questionnaires: [v1])).row(once)
        #expect(line.contains("\"datesShifted\":true"))
        let again = try ExportRecord(jsonLine: Data(line.utf8)).prepared(keyer: keyer, includeIdentifiers: false, shiftDates: true)
        #expect(again.record.createdAt == once.record.createdAt && again.datesShifted)
    }

    @Test func shiftingAndIdentifiersExcludeEachOther() throws {
        let (v1, _) = try Fixtures.versions()
        #expect(throws: ExportError.self) {
            try ExportPlan(questionnaires: [v1], options: ExportOptions(includeIdentifiers: true, shiftDates: true))
        }
        #expect(LocalDate(year: 2024, month: 3, day: 1)!.adding(days: -1) == LocalDate(year: 2024, month: 2, day: 29))
        #expect(LocalDate(year: 2026, month: 1, day: 1)!.adding(days: -364) == LocalDate(year: 2025, month: 1, day: 2))
    }
}
