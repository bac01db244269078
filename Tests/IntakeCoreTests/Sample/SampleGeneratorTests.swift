import Foundation
import Testing

@testable import IntakeCore

struct SampleGeneratorTests {
    @Test func everySampleOfTheBundledQuestionnaireIsValid() throws {
        let questionnaire = try TestQuestionnaires.bundled()
        var generator = SampleGenerator(questionnaire: questionnaire, seed: 42)
        let validator = Validator(questionnaire: questionnaire)
        var kinds: Set<String> = []
        for _ in 0..<300 {
            let record = generator.next()
            let issues = validator.validate(record)
            #expect(issues.isEmpty, "\(issues)")
            record.allAnswers.forEach { kinds.insert($0.answer.kind) }
        }
        #expect(kinds == ["text", "integer", "decimal", "date", "yesNo", "choice", "choices", "dictionary", "geopoint", "instances"])
    }

    @Test func theSameSeedGivesTheSameRecords() throws {
        let questionnaire = try TestQuestionnaires.bundled()
        let now = Date(timeIntervalSince1970: 1_763_790_000)
        var a = SampleGenerator(questionnaire: questionnaire, seed: 7, now: now)
        var b = SampleGenerator(questionnaire: questionnaire, seed: 7, now: now)
        var c = SampleGenerator(questionnaire: questionnaire, seed: 8, now: now)
        let first = a.next()
        #expect(first == b.next())
        #expect(first != c.next())
    }
}
