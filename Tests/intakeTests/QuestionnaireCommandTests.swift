import Foundation
import IntakeCore
import Testing

struct QuestionnaireCommandTests {
    let intake = IntakeProcess()

    @Test func bundledQuestionnaireChecksClean() throws {
        let result = try intake.run(["questionnaire", "check", "Questionnaires/refugee-health"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(": refugee-health version "))
        #expect(result.stdout.contains("4 sections, 53 questions, languages en, ar"))
    }

    @Test func brokenQuestionnaireGetsEveryErrorWithItsLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-broken-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "id: broken\ntitle: Broken\n".write(to: folder.appendingPathComponent("manifest.txt"), atomically: true, encoding: .utf8)
        try "Age | id: age | integr\nAge again | id: age\nDays | show if: agee > 3\n"
            .write(to: folder.appendingPathComponent("1-a.txt"), atomically: true, encoding: .utf8)
        let result = try intake.run(["questionnaire", "check", folder.path])
        #expect(result.status == 1)
        let path = folder.appendingPathComponent("1-a.txt").path
        #expect(
            result.stderr == """
                \(path):1:17: error: unknown type or annotation 'integr'
                    hint: did you mean 'integer'?
                \(path):2: error: the id 'age' is already used by question 1.1 (\(path):1)
                    hint: ids must be unique across the questionnaire
                \(path):3:17: error: show-if refers to an unknown question id 'agee'
                    hint: did you mean 'age'?
                3 problems found.

                """)
    }

    @Test func showListsQuestionsAsAFieldWorkerSeesThem() throws {
        let result = try intake.run(["questionnaire", "show", "--language", "ar"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("[1.14] كم شهراً أقمت في المخيم؟ {camp_months}"))
        #expect(result.stdout.contains("    shown if: camp_stay = yes"))
        let list = try intake.run(["questionnaire", "list"])
        #expect(list.stdout.contains("  refugee-health  version "))
    }

    @Test func sampleWritesValidRecords() throws {
        let result = try intake.run(["sample", "--count", "40", "--seed", "3"])
        #expect(result.status == 0)
        let questionnaire = try QuestionnaireLoader.load(
            directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        let validator = Validator(questionnaire: questionnaire)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 40)
        for line in lines {
            let record = try PatientResponse(jsonData: Data(line.utf8))
            #expect(validator.validate(record).isEmpty)
        }
        #expect(
            try intake.run(["sample", "--count", "40", "--seed", "3"]).stdout.split(separator: "\n").map {
                try PatientResponse(jsonData: Data($0.utf8)).id
            } == lines.map { try PatientResponse(jsonData: Data($0.utf8)).id })
    }
}
