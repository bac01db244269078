import Foundation
import IntakeCore
import Testing

@testable import IntakeForm

struct FormSessionTests {
    let questionnaire: Questionnaire
    let today = LocalDate(iso: "2026-11-22")!

    init() throws {
        let files = QuestionnaireFiles(
            directory: "q",
            files: [
                "manifest.txt": .init(path: "q/manifest.txt", bytes: Array("id: t\ntitle: Test\n".utf8)),
                "1-a.txt": .init(
                    path: "q/1-a.txt",
                    bytes: Array(
                        """
                        Age | id: age | integer 0..120 | required
                        Smoker | id: smoker | yesno
                        Packs a day | id: packs | decimal 0..10 | show if: smoker = yes
                        """.utf8)),
                "2-b.txt": .init(
                    path: "q/2-b.txt",
                    bytes: Array(
                        """
                        Symptoms | id: symptoms | multiple: fever=Fever, cough=Cough, rash=Rash
                        Medication | id: meds | compound: name* text; dose decimal 0..100
                        Notes
                        """.utf8)),
            ])
        questionnaire = try QuestionnaireLoader.load(files)
    }

    private func newDraft() -> Draft {
        Draft(response: PatientResponse(questionnaire: questionnaire.reference, collector: "c", deviceId: "d"))
    }

    private let patient = ["Amina", "Haddad", "1990-05-01", "f", ""]

    /// Runs a form over `lines`, recording every saved draft.
    private func run(_ lines: [String], draft: Draft? = nil) throws -> (FormSession.Outcome, ScriptedIO, [Draft]) {
        let io = ScriptedIO(lines)
        var saves: [Draft] = []
        let session = try FormSession(questionnaire: questionnaire, draft: draft ?? newDraft(), io: io, today: today) {
            saves.append($0)
        }
        return (try session.run(), io, saves)
    }

    @Test func fillsAWholeRecordAndCompletesIt() throws {
        let (outcome, io, saves) = try run(patient + ["40", "y", "1.5", "fever, 2", "Aspirin", "75", "", ":finish"])
        guard case .completed(let record) = outcome else { Issue.record("not completed: \(io.transcript)"); return }
        #expect(record.status == .complete)
        #expect(record.patient.givenName == "Amina" && record.patient.sex == .female)
        #expect(record[QuestionPosition(section: 1, index: 1)] == .integer(40))
        #expect(record[QuestionPosition(section: 1, index: 3)] == .decimal(1.5))
        #expect(record[QuestionPosition(section: 2, index: 1)] == .choices(["fever", "cough"]))
        #expect(record[QuestionPosition(section: 2, index: 2)] == .dictionary(["name": .text("Aspirin"), "dose": .decimal(75)]))
        #expect(saves.last?.response == record)
        #expect(saves.count >= 11, "every answer is saved as it is given")
    }

    /// Enter at the first field of an optional compound question skips it, though its first field
    /// is required once it is answered; a date that names no day is told so.
    @Test func enterSkipsAnOptionalCompoundAndAnImpossibleDateIsSaidToBeOne() throws {
        let (outcome, io, _) = try run(patient + ["40", "n", "fever", "", ":finish"])
        guard case .completed(let record) = outcome else { Issue.record("not completed: \(io.transcript)"); return }
        #expect(record[QuestionPosition(section: 2, index: 2)] == nil)
        #expect(!io.transcript.contains("is required"), "\(io.transcript)")
        let (_, dates, _) = try run(["Amina", "Haddad", "2024-02-31", "2023-13-01", ":quit"])
        #expect(dates.transcript.contains("2024-02-31 is not a day: month 02 of 2024 has 29 days."), "\(dates.transcript)")
        #expect(dates.transcript.contains("2023-13-01 is not a day: months run from 01 to 12."), "\(dates.transcript)")
    }

    /// A number means what the screen numbered: a short list's place, or one of the matches
    /// after several matched; a number the screen does not show is refused, not read elsewhere.
    @Test func aNumberMeansTheChoiceTheScreenNumbered() throws {
        let (outcome, io, _) = try run(patient + ["40", "n", "r, 5", "fever, 2, 3", ":quit"])
        guard case .quit(let draft) = outcome else { Issue.record("expected quit: \(io.transcript)"); return }
        #expect(io.transcript.contains("5 is not one of the numbers on the screen"), "\(io.transcript)")
        #expect(draft.response[QuestionPosition(section: 2, index: 1)] == .choices(["fever", "cough", "rash"]), "\(io.transcript)")
    }

    @Test func badInputIsExplainedAndAskedAgain() throws {
        let (outcome, io, _) = try run(patient + ["forty", "200", "", "40", "maybe", "n", ":quit"])
        guard case .quit(let draft) = outcome else { Issue.record("expected quit"); return }
        #expect(draft.response[QuestionPosition(section: 1, index: 1)] == .integer(40))
        #expect(draft.response[QuestionPosition(section: 1, index: 2)] == .yesNo(false))
        #expect(io.transcript.contains("Please enter a whole number, like 42."))
        #expect(io.transcript.contains("The answer is above the maximum 120."))
        #expect(io.transcript.contains("This question is required. Answer it, or type :skip to come back to it later."))
        #expect(io.transcript.contains("Please answer yes or no (y/n)."))
    }

    @Test func aLineHoldingANulIsAskedAgainNotSaved() throws {
        let names = ["Ami\u{0}na", "Amina", "Had\u{0}", "Haddad", "1990-05-01", "f", ""]
        let (outcome, io, _) = try run(names + ["40", "y", "1", "fever", "As\u{0}pirin", "Aspirin", "", "", ":quit"])
        guard case .quit(let draft) = outcome else { Issue.record("expected quit: \(io.transcript)"); return }
        #expect(draft.response.patient.givenName == "Amina" && draft.response.patient.familyName == "Haddad")
        #expect(draft.response[QuestionPosition(section: 2, index: 2)] == .dictionary(["name": .text("Aspirin")]))
        #expect(io.transcript.components(separatedBy: FormLanguage(nil)(.controlCharacter)).count - 1 == 3)
    }

    /// Arrow keys typed where no line editing is available (a pipe, a dumb terminal) and pasted
    /// escape sequences never reach a record: the line is asked again.
    @Test func aLineHoldingAnEscapeSequenceIsAskedAgainNotSaved() throws {
        let names = ["Lyla\u{1B}[D\u{1B}[Da", "Lyla", "\u{1B}]0;owned\u{07}Haddad", "Haddad", "1990-05-01", "f", ""]
        let (outcome, io, _) = try run(names + ["40", "y", "1", "fever", "Asp\u{9B}31mirin", "Aspirin", "", "", ":quit"])
        guard case .quit(let draft) = outcome else { Issue.record("expected quit: \(io.transcript)"); return }
        #expect(draft.response.patient.givenName == "Lyla" && draft.response.patient.familyName == "Haddad")
        #expect(draft.response[QuestionPosition(section: 2, index: 2)] == .dictionary(["name": .text("Aspirin")]))
        #expect(io.transcript.components(separatedBy: FormLanguage(nil)(.controlCharacter)).count - 1 == 3)
    }

    @Test func hiddenQuestionsAreSkippedAndTheirAnswersDroppedOnFinish() throws {
        let (outcome, io, _) = try run(patient + ["40", "y", "2", ":back", ":back", "n", ":go 2", "rash", ":skip", "", ":finish"])
        guard case .completed(let record) = outcome else { Issue.record("not completed: \(io.transcript)"); return }
        #expect(record[QuestionPosition(section: 1, index: 3)] == nil)
        #expect(io.transcript.contains("1 answer to a question hidden by later changes was dropped."))
    }

    @Test func finishingWithMissingAnswersGoesToTheFirstOne() throws {
        let (outcome, io, _) = try run(["Amina", "Haddad", "", "", ":go 2", ":finish", "f", ":finish", "33", ":finish"])
        guard case .completed(let record) = outcome else { Issue.record("not completed: \(io.transcript)"); return }
        #expect(io.transcript.contains("  - patient sex: sex is missing; use 'unknown' when it was not given"))
        #expect(io.transcript.contains("  - section 1, question 1 (age) \"Age\": a required question has no answer"))
        #expect(record.patient.sex == .female)
        #expect(record[QuestionPosition(section: 1, index: 1)] == .integer(33))
    }

    @Test func inputEndingKeepsTheDraftAtItsPlace() throws {
        let (outcome, _, saves) = try run(patient + ["40"])
        guard case .inputEnded(let draft) = outcome else { Issue.record("expected input to end"); return }
        #expect(draft.cursor == QuestionPosition(section: 1, index: 2))
        #expect(saves.last == draft)
        let (resumed, io, _) = try run(["n", ":quit"], draft: draft)
        guard case .quit(let final) = resumed else { Issue.record("expected quit"); return }
        #expect(io.transcript.contains("Resuming the draft at question 1.2"))
        #expect(final.response[QuestionPosition(section: 1, index: 1)] == .integer(40))
        #expect(final.response[QuestionPosition(section: 1, index: 2)] == .yesNo(false))
    }

    @Test func commandsNavigateReviewAndClear() throws {
        let (outcome, io, _) = try run(
            patient + ["40", ":review", ":go 1.3", ":go 9", ":clear", ":bogus", ":nxt", ":go patient", ":next", ":quit"])
        guard case .quit(let draft) = outcome else { Issue.record("expected quit"); return }
        let text = io.transcript
        #expect(text.contains("[1.1] Age: 40"))
        #expect(text.contains("Question 1.3 is hidden by earlier answers (its show-if condition)."))
        #expect(text.contains("There is no section 9; sections are 1 to 2."))
        #expect(text.contains("Unknown command ':nxt'. Did you mean :next?"))
        #expect(draft.cursor == QuestionPosition(section: 1, index: 1))
        #expect(draft.response[QuestionPosition(section: 1, index: 2)] == nil)
    }

    @Test func refusesADraftOfAnotherQuestionnaireVersion() {
        var draft = newDraft()
        draft.response.questionnaire.version = "0000000000000000"
        #expect(throws: FormError.self) {
            _ = try FormSession(questionnaire: questionnaire, draft: draft, io: ScriptedIO([])) { _ in }
        }
    }

    @Test func choicesAreFoundByNumberCodeLabelOrPrefix() throws {
        let input = AnswerInput(language: nil, validator: Validator(questionnaire: questionnaire, today: today))
        let type = questionnaire.question(id: "symptoms")!.type
        #expect(try input.parse("1, cough, RASH", as: type) == .choices(["fever", "cough", "rash"]))
        #expect(try input.parse("fev", as: type) == .choices(["fever"]))
        #expect(throws: AnswerInput.Failure.self) { try input.parse("headache", as: type) }
    }

    @Test func decimalCommasAreReadOnlyWhenUnambiguous() throws {
        let input = AnswerInput(language: nil, validator: Validator(questionnaire: questionnaire, today: today))
        let type = QuestionType.decimal(.unbounded)
        #expect(try input.parse("37,5", as: type) == .decimal(37.5))
        #expect(try input.parse("37.5", as: type) == .decimal(37.5))
        #expect(throws: AnswerInput.Failure.self) { try input.parse("1,000", as: type) }
        #expect(throws: AnswerInput.Failure.self) { try input.parse("nan", as: type) }
    }

    /// What people type for a choice: case, accents and Arabic letter variants fold, any part of
    /// a label finds it, y/n are yes and no, the Arabic comma separates, Arabic-Indic digits count.
    @Test func choicesFoldAccentsVariantsAndMatchAnyPartOfALabel() throws {
        let input = AnswerInput(language: "ar", validator: Validator(questionnaire: questionnaire, today: today))
        func choice(_ code: String, _ label: String, ar: String? = nil) -> Choice {
            Choice(code: code, label: LocalizedText(label, translations: ar.map { ["ar": $0] } ?? [:]))
        }
        let countries = ChoiceSet(choices: [
            choice("TR", "Türkiye", ar: "تركيا"), choice("CI", "Côte d'Ivoire"), choice("SA", "Saudi Arabia", ar: "السعودية"),
            choice("SY", "Syria", ar: "سوريا"), choice("ZA", "South Africa"),
        ])
        let single = QuestionType.singleChoice(countries)
        #expect(try input.parse("tur", as: single) == .choice("TR"))
        #expect(try input.parse("TURKIYE", as: single) == .choice("TR"))
        #expect(try input.parse("cote", as: single) == .choice("CI"))
        #expect(try input.parse("ivoire", as: single) == .choice("CI"), "a later word")
        #expect(try input.parse("٢", as: single) == .choice("CI"), "an Arabic-Indic number")
        #expect(throws: AnswerInput.Failure.ambiguous([countries.choices[0]])) { try input.parse("turkey", as: single) }
        #expect(throws: AnswerInput.Failure.ambiguous([countries.choices[2], countries.choices[3], countries.choices[4]])) {
            try input.parse("s", as: single)
        }
        let languages = ChoiceSet(choices: [choice("ku", "Kurdish (Kurmanji)"), choice("ckb", "Kurdish (Sorani)"), choice("ar", "Arabic")])
        #expect(try input.parse("kurmanji", as: .singleChoice(languages)) == .choice("ku"))
        #expect(try input.parse("anji", as: .singleChoice(languages)) == .choice("ku"), "any part of a label")
        let answers = ChoiceSet(choices: [choice("yes", "Yes"), choice("no", "No"), choice("unsure", "Not sure")])
        #expect(try input.parse("n", as: .singleChoice(answers)) == .choice("no"), "n is no, not 'Not sure'")
        #expect(try input.parse("y", as: .singleChoice(answers)) == .choice("yes"))
        #expect(try input.parse("not", as: .singleChoice(answers)) == .choice("unsure"))
        let multiple = QuestionType.multipleChoice(countries)
        #expect(try input.parse("سوريا، تركيا", as: multiple) == .choices(["TR", "SY"]), "the Arabic comma separates")
        #expect(try input.parse("السعوديه", as: single) == .choice("SA"), "ta marbuta and ha fold together")
        #expect(try input.parse("٣٧٫٥", as: .decimal(.unbounded)) == .decimal(37.5))
        #expect(try input.parse("٢٠٢٤-٠٣-١٥", as: .date(.unbounded)) == .date(LocalDate(iso: "2024-03-15")!))
        #expect(TextFold.fold("الأحمد") == TextFold.fold("الاحمد") && TextFold.fold("إبراهيم") == TextFold.fold("ابراهيم"))
    }

    /// After an ambiguous answer only the candidates are numbered, and a number picks among them;
    /// a choice found from part of its name is echoed.
    @Test func anAmbiguousAnswerNumbersOnlyItsCandidatesAndAPartialOneIsEchoed() throws {
        let files = QuestionnaireFiles(
            directory: "c",
            files: [
                "manifest.txt": .init(path: "c/manifest.txt", bytes: Array("id: c\ntitle: Countries\n".utf8)),
                "1-a.txt": .init(
                    path: "c/1-a.txt",
                    bytes: Array(
                        "Born in | id: born | single: SA=Saudi Arabia, SY=Syria, ZA=South Africa, TR=Türkiye\nArrived from | id: from | single: SA=Saudi Arabia, SY=Syria, ZA=South Africa, TR=Türkiye\n"
                            .utf8)),
            ])
        let countries = try QuestionnaireLoader.load(files)
        let io = ScriptedIO(["Amina", "Haddad", "1990-05-01", "f", "", "s", "2", "turk", ":quit"])
        let draft = Draft(response: PatientResponse(questionnaire: countries.reference, collector: "c", deviceId: "d"))
        let session = try FormSession(questionnaire: countries, draft: draft, io: io, today: today) { _ in }
        guard case .quit(let saved) = try session.run() else { Issue.record("expected quit: \(io.transcript)"); return }
        // "s": Saudi Arabia, Syria and South Africa, numbered 1 to 3; "2" is the second of them.
        #expect(io.transcript.contains("Several choices match 's'; type the number of the one you mean"), "\(io.transcript)")
        #expect(
            io.transcript.contains("    1) Saudi Arabia [SA]") && io.transcript.contains("    3) South Africa [ZA]"), "\(io.transcript)")
        #expect(io.transcript.contains("  → Syria"), "\(io.transcript)")
        #expect(saved.response[QuestionPosition(section: 1, index: 1)] == .choice("SY"))
        // A partial name is echoed with what it chose.
        #expect(io.transcript.contains("  → Türkiye"), "\(io.transcript)")
        #expect(saved.response[QuestionPosition(section: 1, index: 2)] == .choice("TR"))
    }

    @Test func aDateOfBirthMayBeTypedInArabicIndicDigits() throws {
        let (outcome, io, _) = try run(["Amina", "Haddad", "١٩٩٠-٠٥-٠١", "f", "", ":quit"])
        guard case .quit(let draft) = outcome else { Issue.record("expected quit: \(io.transcript)"); return }
        #expect(draft.response.patient.dateOfBirth == LocalDate(iso: "1990-05-01"))
    }
}
