import Foundation
import Testing

@testable import IntakeCore

/// Each loading problem is reported with its place and a hint, all of them in one pass.
struct QuestionnaireErrorTests {
    private func only(_ problems: [QuestionnaireDiagnostic], sourceLocation: SourceLocation = #_sourceLocation) -> QuestionnaireDiagnostic?
    {
        #expect(problems.count == 1, "\(problems)", sourceLocation: sourceLocation)
        return problems.first
    }

    @Test func unknownTypeSuggestsTheNearestOne() throws {
        let problem = try #require(only(TestQuestionnaires.problems(["1-a.txt": "Age | integr 0..120"])))
        #expect(problem.description == "q/1-a.txt:1:7: error: unknown type or annotation 'integr'\n    hint: did you mean 'integer'?")
    }

    @Test func identifyingTakesNoValueAndStaysOutOfTranslations() throws {
        let valued = try #require(only(TestQuestionnaires.problems(["1-a.txt": "Phone | identifying: yes"])))
        #expect(valued.message == "'identifying' takes no value" && valued.hint == "write just '| identifying'")
        var files = TestQuestionnaires.files(["1-a.txt": "Phone | identifying\n"], manifest: "id: t\ntitle: T\nlanguages: en, ar\n")
        files.files["1-a.ar.txt"] = TestQuestionnaires.file("1-a.ar.txt", "الهاتف | identifying\n")
        let translated = try #require(only(TestQuestionnaires.problems(files)))
        #expect(translated.message == "a translation line carries only text, id, help, labels, fields, message and alert", "\(translated)")
        let q = try TestQuestionnaires.load(["1-a.txt": "Phone | id: phone | identifying\nAge | integer 0..120\n"])
        #expect(q.sections[0].questions.map(\.isIdentifying) == [true, false])
    }

    @Test func reportsEveryProblemInOnePass() {
        let problems = TestQuestionnaires.problems([
            "1-a.txt": "Age | id: age | integr\nName | id: age\nDays | show if: agee > 3\n",
            "2-b.txt": "Country | single from contries\n",
        ])
        #expect(problems.count == 4, "\(problems)")
        #expect(problems.map(\.line) == [1, 2, 3, 1])
        #expect(problems[1].message.contains("the id 'age' is already used by question 1.1"))
        #expect(problems[2].message == "show-if refers to an unknown question id 'agee'")
        #expect(problems[2].hint == "did you mean 'age'?")
        #expect(problems[2].column == 17)
        #expect(problems[3].message == "no choice list named 'contries'")
    }

    @Test func conditionOnALaterQuestionIsAnError() throws {
        let problem = try #require(only(TestQuestionnaires.problems(["1-a.txt": "A | show if: b = yes\nB | id: b | yesno\n"])))
        #expect(problem.message.contains("does not come before this question"))
        #expect(problem.line == 1 && problem.column == 14)
    }

    @Test func conditionValuesMustFitTheQuestion() {
        let problems = TestQuestionnaires.problems([
            "1-a.txt": """
            Smoker | id: smoker | yesno
            Colour | id: colour | single: red, blue
            A | show if: smoker > 3
            B | show if: colour = green
            C | show if: smoker = maybe
            """
        ])
        #expect(problems.map(\.line) == [3, 4, 5])
        #expect(problems[0].message == "'>' compares numbers or dates; 'smoker' is a yesno question")
        #expect(problems[1].message == "'green' is not a possible answer to 'colour'")
    }

    @Test(arguments: [
        ("A | show if: x = ", "expected a value, found end of condition"),
        ("A | show if: x any (1)", "expected 'of' after 'any'"),
        ("A | show if: (x = 1", "expected ')', found end of condition"),
        ("A | show if: x => 1", "unknown operator '=>'"),
        ("A | show if: x = 1 y", "unexpected 'y' in show-if condition"),
    ])
    func conditionSyntaxErrorsSayWhatWasExpected(line: String, message: String) throws {
        let problem = try #require(only(TestQuestionnaires.problems(["1-a.txt": "X | id: x | integer\n" + line])))
        #expect(problem.message == message)
        #expect(problem.line == 2)
    }

    @Test func translationMustMatchTheBaseFile() {
        var files = TestQuestionnaires.files(
            ["1-a.txt": "One | id: one\nTwo | id: two\n"], manifest: "id: t\ntitle: T\nlanguages: en, ar\n")
        files.files["1-a.ar.txt"] = TestQuestionnaires.file("1-a.ar.txt", "واحد | id: two\n")
        let problems = TestQuestionnaires.problems(files)
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.message == "the id 'two' does not match question 1.1 ('one')" && $0.line == 1 })
        #expect(problems.contains { $0.message == "the translation has 1 questions; q/1-a.txt has 2" })
    }

    @Test func missingTranslationAndUnlistedLanguageAreErrors() {
        var files = TestQuestionnaires.files(["1-a.txt": "One\n"], manifest: "id: t\ntitle: T\nlanguages: en, ar\n")
        files.files["1-a.fr.txt"] = TestQuestionnaires.file("1-a.fr.txt", "Un\n")
        let messages = TestQuestionnaires.problems(files).map(\.message)
        #expect(messages.contains("section 1 has no 'ar' translation"))
        #expect(messages.contains("a translation into 'fr', which the manifest does not list"))
    }

    @Test func emptySectionIsAnError() throws {
        let problem = try #require(only(TestQuestionnaires.problems(["1-a.txt": "# only a comment\n\n"])))
        #expect(problem.message == "the section has no questions")
    }

    @Test func sectionsMustBeNumberedWithoutGaps() throws {
        let problem = try #require(only(TestQuestionnaires.problems(["1-a.txt": "One", "3-c.txt": "Three"])))
        #expect(problem.message.contains("numbered 1, 2, 3… without gaps"))
        #expect(problem.hint == "rename the file to start with '2-'")
    }

    @Test func emptyFolderAndMissingManifestAreErrors() throws {
        let empty = try #require(only(TestQuestionnaires.problems(QuestionnaireFiles(directory: "q", files: [:]))))
        #expect(empty.message == "the folder has no questionnaire files")
        let noManifest = try #require(only(TestQuestionnaires.problems(TestQuestionnaires.files(["1-a.txt": "One"], manifest: nil))))
        #expect(noManifest.message == "the questionnaire has no manifest.txt")
    }

    @Test func newerFormatIsRejectedWithAnUpgradeHint() throws {
        let files = TestQuestionnaires.files(["1-a.txt": "One"], manifest: "id: t\ntitle: T\nformat: 2\n")
        let problem = try #require(only(TestQuestionnaires.problems(files)))
        #expect(problem.message == "this questionnaire is written in format 2; this Intake reads format 1")
    }

    @Test(arguments: ["0", "-1", "01x", "1.0"])
    func aFormatThatIsNotAVersionIsRefused(format: String) throws {
        let files = TestQuestionnaires.files(["1-a.txt": "One"], manifest: "id: t\ntitle: T\nformat: \(format)\n")
        let problem = try #require(only(TestQuestionnaires.problems(files)))
        #expect(problem.message == "format must be a whole number, 1 or more", "format: \(format)")
    }

    @Test func badRangesAndChoicesAreReportedAtTheirColumn() {
        let problems = TestQuestionnaires.problems([
            "1-a.txt": "A | integer 10..1\nB | decimal abc..3\nC | single: a, b, A\nD | single:\nE | compound: x text; x text\n"
        ])
        #expect(problems.map(\.line) == [1, 2, 3, 4, 5], "\(problems)")
        #expect(problems[0].message == "the range is empty: 10 is above 1")
        #expect(problems[1].message == "'abc' is not a valid lower bound")
        #expect(problems[2].message == "the choice code 'a' appears twice")
        #expect(problems[2].column == 19)
        #expect(problems[3].message == "'single' needs choices")
        #expect(problems[4].message == "the field 'x' appears twice")
    }

    @Test func nonUTF8BytesAreReportedAtTheirLineAndColumn() throws {
        var files = TestQuestionnaires.files([:])
        files.files["1-a.txt"] = QuestionnaireFiles.File(
            path: "q/1-a.txt", bytes: Array("Good line\nBad ".utf8) + [0xFF, 0x41] + Array("\nAlso good\n".utf8))
        let problem = try #require(only(TestQuestionnaires.problems(files)))
        #expect(problem.line == 2 && problem.column == 5)
        #expect(problem.message == "bytes that are not valid UTF-8")
    }

    @Test func nulBytesAndHugeLinesAreClearErrors() {
        var files = TestQuestionnaires.files([:])
        files.files["1-a.txt"] = QuestionnaireFiles.File(path: "q/1-a.txt", bytes: Array("Fine\nNul\u{0}here\n".utf8))
        files.files["2-b.txt"] = TestQuestionnaires.file("2-b.txt", String(repeating: "x", count: 1_048_576) + "\nShort\n")
        let problems = TestQuestionnaires.problems(files)
        #expect(problems.count == 2, "\(problems)")
        #expect(problems[0].message == "line contains a NUL byte" && problems[0].line == 2 && problems[0].column == 4)
        #expect(problems[1].message == "line is 1048576 characters long; a line may be at most 4096")
    }

    @Test func loadingAMissingFolderSaysWhatToPass() {
        do {
            _ = try QuestionnaireLoader.load(directory: URL(fileURLWithPath: "/nonexistent/questionnaire"))
            Issue.record("expected an error")
        } catch {
            #expect(error.diagnostics.first?.message == "no questionnaire folder here")
        }
    }
}
