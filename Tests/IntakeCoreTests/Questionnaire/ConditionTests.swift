import Testing

@testable import IntakeCore

struct ConditionTests {
    let questionnaire: Questionnaire

    init() throws {
        questionnaire = try TestQuestionnaires.load([
            "1-a.txt": """
            Age | id: age | integer
            Symptoms | id: symptoms | multiple: fever, cough, rash
            Smoker | id: smoker | yesno
            Onset | id: onset | date
            A | show if: age >= 18 and (smoker = yes or symptoms any of (cough, rash))
            B | show if: not onset is answered
            C | show if: onset < 2020-01-01 or age != 40
            """
        ])
    }

    private func shown(_ index: Int, _ answers: [Int: Answer]) -> Bool {
        let condition = questionnaire.sections[0].questions[index - 1].showIf!
        return condition.isSatisfied { answers[$0.index] }
    }

    @Test func combinesAndOrAndAnyOf() {
        #expect(shown(5, [1: .integer(30), 3: .yesNo(true)]))
        #expect(shown(5, [1: .integer(30), 3: .yesNo(false), 2: .choices(["rash"])]))
        #expect(!shown(5, [1: .integer(30), 3: .yesNo(false), 2: .choices(["fever"])]))
        #expect(!shown(5, [1: .integer(12), 3: .yesNo(true)]))
    }

    @Test func unansweredQuestionsMakeComparisonsFalse() {
        #expect(!shown(5, [3: .yesNo(true)]))
        #expect(shown(6, [:]))
        #expect(!shown(6, [4: .date(LocalDate(iso: "2021-01-01")!)]))
        #expect(!shown(7, [:]))
        #expect(shown(7, [4: .date(LocalDate(iso: "2019-05-01")!)]))
        #expect(!shown(7, [4: .date(LocalDate(iso: "2021-05-01")!), 1: .integer(40)]))
    }

    @Test func describesConditionsAsWritten() {
        let condition = questionnaire.sections[0].questions[4].showIf!
        #expect(questionnaire.describe(condition) == "age >= 18 and (smoker = yes or symptoms any of (cough, rash))")
    }
}
