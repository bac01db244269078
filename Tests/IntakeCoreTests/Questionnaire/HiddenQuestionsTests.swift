import Foundation
import Testing

@testable import IntakeCore

/// Show-if settled by ordinal (``HiddenQuestions``) hides exactly what the plain definition, a
/// set of positions, hides: on the bundled questionnaire's samples, with answers taken away at
/// random so that conditions turn both ways.
struct HiddenQuestionsTests {
    @Test func hidingByOrdinalHidesWhatASetOfPositionsHides() throws {
        let questionnaire = try TestQuestionnaires.bundled()
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 5)
        var random = SystemRandomNumberGenerator()
        func plain(_ response: PatientResponse) -> Set<QuestionPosition> {
            var hidden = Set<QuestionPosition>()
            for question in questionnaire.allQuestions where question.group == nil {
                guard let condition = question.showIf else { continue }
                if !condition.isSatisfied(by: { hidden.contains($0) ? nil : response[$0] }) { hidden.insert(question.position) }
            }
            return hidden
        }
        var seen = Set<Int>()
        for _ in 0..<400 {
            var record = generator.next()
            for (position, _) in record.allAnswers where Bool.random(using: &random) { record[position] = nil }
            let expected = plain(record)
            seen.insert(expected.count)
            #expect(questionnaire.hiddenPositions(in: record) == expected)
            let byOrdinal = questionnaire.hiddenQuestions(in: record)
            for question in questionnaire.allQuestions where question.group == nil {
                #expect(byOrdinal.contains(question.position) == expected.contains(question.position))
            }
            #expect(
                !byOrdinal.contains(QuestionPosition(section: 99, index: 1)) && !byOrdinal.contains(QuestionPosition(section: 1, index: 0)))
        }
        #expect(seen.count > 3, "conditions turned both ways: \(seen.sorted())")
        var hidden = questionnaire.noneHidden
        let first = questionnaire.allQuestions[0].position
        hidden.insert(first)
        #expect(hidden.contains(first))
        hidden.remove(first)
        #expect(!hidden.contains(first) && hidden == questionnaire.noneHidden)
    }
}
