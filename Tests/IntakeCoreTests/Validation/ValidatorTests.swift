import Foundation
import Testing

@testable import IntakeCore

struct ValidatorTests {
    let questionnaire: Questionnaire
    let validator: Validator

    init() throws {
        questionnaire = try TestQuestionnaires.load([
            "1-a.txt": """
            Age | id: age | integer 0..120 | required
            Smoker | id: smoker | yesno
            Packs a day | id: packs | decimal 0..10 | show if: smoker = yes
            Colour | id: colour | single: red, blue
            Onset | id: onset | date ..today
            Medication | id: meds | compound: name* text; dose decimal 0..100
            Notes
            """
        ])
        validator = Validator(questionnaire: questionnaire, today: LocalDate(iso: "2026-11-22")!)
    }

    private func response(_ answers: [Int: Answer], status: PatientResponse.Status = .complete) -> PatientResponse {
        PatientResponse(
            questionnaire: questionnaire.reference,
            patient: PatientIdentification(givenName: "Secret", familyName: "Person", sex: .female),
            answers: [1: answers], status: status, collector: "c", deviceId: "d")
    }

    @Test func acceptsAValidCompleteRecord() {
        let issues = validator.validate(
            response([
                1: .integer(40), 2: .yesNo(true), 3: .decimal(1.5), 4: .choice("red"), 5: .date(LocalDate(iso: "2026-11-22")!),
                6: .dictionary(["name": .text("Aspirin")]), 7: .text("fine"),
            ]))
        #expect(issues.isEmpty, "\(issues)")
    }

    @Test func requiredAnswersAreCheckedOnlyForCompleteRecords() {
        #expect(validator.validate(response([:], status: .draft)).isEmpty)
        let issues = validator.validate(response([:]))
        #expect(issues.map(\.kind) == [.missingRequired])
        #expect(issues[0].description == "section 1, question 1 (age) \"Age\": a required question has no answer")
    }

    @Test func reportsTypesRangesAndChoicesWithoutTheValue() {
        let issues = validator.validate(
            response([
                1: .integer(999_123), 2: .text("yes"), 4: .choice("green"), 5: .date(LocalDate(iso: "2030-01-01")!),
                6: .dictionary(["dose": .decimal(5), "colour": .text("x")]),
            ]))
        #expect(issues.map(\.kind) == [.outOfRange, .wrongType, .unknownChoice, .outOfRange, .unknownQuestion, .missingRequired])
        #expect(issues[0].message == "the answer is above the maximum 120")
        #expect(issues[3].message == "the answer is above the maximum today (2026-11-22)")
        for issue in issues {
            #expect(!issue.description.contains("999123") && !issue.description.contains("green") && !issue.description.contains("2030"))
        }
    }

    /// "None of these" (`none`) is an answer on its own: with another choice, the answer is refused.
    @Test func noneIsAnAnswerOnItsOwn() throws {
        let symptoms = try TestQuestionnaires.load([
            "1-a.txt": "Symptoms | id: symptoms | multiple: cough=Cough, fever=Fever, none=None of these"
        ])
        let type = try #require(symptoms.question(id: "symptoms")?.type)
        let check = Validator(questionnaire: symptoms, today: LocalDate(iso: "2026-11-22")!)
        #expect(check.answerProblem(with: .choices(["none"]), type: type) == nil)
        #expect(check.answerProblem(with: .choices(["cough", "fever"]), type: type) == nil)
        let both = try #require(check.answerProblem(with: .choices(["cough", "none"]), type: type))
        #expect(both.message == "'None of these' is an answer on its own; choose it alone, or leave it out")
    }

    @Test func answersToHiddenQuestionsAreReportedAndDropped() {
        let record = response([1: .integer(40), 2: .yesNo(false), 3: .decimal(2)])
        let issues = validator.validate(record)
        #expect(issues.map(\.kind) == [.hiddenAnswer])
        #expect(issues[0].severity == .warning)
        #expect(issues.errors.isEmpty)
        let cleaned = validator.droppingHiddenAnswers(record)
        #expect(cleaned[QuestionPosition(section: 1, index: 3)] == nil)
        #expect(cleaned.answerCount == 2)
    }

    @Test func patientIdentificationIsRequiredToComplete() {
        var record = response([1: .integer(40)])
        record.patient = PatientIdentification(dateOfBirth: LocalDate(iso: "2027-01-01"))
        let fields = validator.validate(record).compactMap(\.field)
        #expect(fields == ["givenName", "familyName", "sex", "dateOfBirth"])
        #expect(!validator.validate(record).description.contains("2027"))
    }

    @Test func recordsOfAnotherVersionAreRejected() {
        var record = response([1: .integer(40)])
        record.questionnaire.version = "ffffffffffffffff"
        #expect(validator.validate(record).map(\.kind) == [.wrongQuestionnaire])
    }

    @Test func answersToUnknownQuestionsAreErrors() {
        var record = response([1: .integer(40)])
        record.answers[9] = [1: .text("stray")]
        #expect(validator.validate(record).map(\.kind) == [.unknownQuestion])
    }
}
