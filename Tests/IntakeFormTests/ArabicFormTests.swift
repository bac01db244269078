import Foundation
import IntakeCore
import IntakeTerminal
import Testing

@testable import IntakeForm

/// The form in Arabic: every line it writes is Arabic, answers are read in either digit set and
/// in Arabic words, and lines are laid out for terminals with and without bidi.
struct ArabicFormTests {
    let questionnaire: Questionnaire
    let today = LocalDate(iso: "2026-11-22")!

    init() throws {
        func file(_ name: String, _ text: String) -> (String, QuestionnaireFiles.File) {
            (name, .init(path: "q/\(name)", bytes: Array(text.utf8)))
        }
        questionnaire = try QuestionnaireLoader.load(
            QuestionnaireFiles(
                directory: "q",
                files: Dictionary(uniqueKeysWithValues: [
                    file("manifest.txt", "id: t\ntitle: Test\ntitle.ar: اختبار\nlanguages: en, ar\n"),
                    file("1-a.txt", "@title Health\nAge | id: age | integer 0..120 | required\nSmoker | id: smoker | yesno\n"),
                    file("1-a.ar.txt", "@title الصحة\nالعمر | id: age\nمدخن؟ | id: smoker\n"),
                ])))
    }

    private func run(_ lines: [String]) throws -> (FormSession.Outcome, ScriptedIO) {
        let io = ScriptedIO(lines)
        var response = PatientResponse(questionnaire: questionnaire.reference, collector: "c", deviceId: "d")
        response.language = "ar"
        let session = try FormSession(questionnaire: questionnaire, draft: Draft(response: response), io: io, today: today) { _ in }
        return (try session.run(), io)
    }

    @Test func theWholeFormSpeaksArabicAndReadsArabicAnswers() throws {
        let (outcome, io) = try run([
            "ليلى", "الأحمد", "١٩٩٠-٠٥-٠١", "انثى", "", "٢٠٠", "٣٥", "نعم", ":help", ":review", ":bogus", ":finish",
        ])
        guard case .completed(let record) = outcome else { Issue.record("not completed: \(io.transcript)"); return }
        #expect(record.patient.sex == .female)
        #expect(record.patient.dateOfBirth == LocalDate(iso: "1990-05-01"))
        #expect(record[QuestionPosition(section: 1, index: 1)] == .integer(35))
        #expect(record[QuestionPosition(section: 1, index: 2)] == .yesNo(true))
        let transcript = io.transcript
        for expected in [
            "── بيانات المريض ──", "[P.1] الاسم الأول *", "[P.4] الجنس *", "── القسم 1 من 1: الصحة ──", "[1.1] العمر *",
            "عدد صحيح من 0 إلى 120", "الإجابة أكبر من الحد الأقصى 120.", "الأوامر (اكتبها عند أي سؤال):", "── مراجعة ──",
            "الجنس: أنثى", "[1.2] مدخن؟: نعم", "أمر غير معروف", "اكتمل السجل",
        ] {
            #expect(transcript.contains(expected), "\(expected) in \(transcript)")
        }
        // Nothing the form itself says is left in English (answers and prompts aside).
        let english = ["Patient", "Section", "required", "Type ", "Record ", "Commands", "answer"]
        for line in io.output where !line.hasPrefix(">") {
            #expect(!english.contains(where: line.contains), "English left in: \(line)")
        }
    }

    @Test func aQuestionnaireWrittenInArabicSpeaksArabicWithoutAskingForIt() throws {
        func file(_ name: String, _ text: String) -> (String, QuestionnaireFiles.File) {
            (name, .init(path: "q/\(name)", bytes: Array(text.utf8)))
        }
        let arabicFirst = try QuestionnaireLoader.load(
            QuestionnaireFiles(
                directory: "q",
                files: Dictionary(uniqueKeysWithValues: [
                    file("manifest.txt", "id: t\ntitle: اختبار\ntitle.en: Test\nlanguages: ar, en\n"),
                    file("1-a.txt", "@title الصحة\nالعمر | id: age | integer 0..120 | required\n"),
                    file("1-a.en.txt", "@title Health\nAge | id: age\n"),
                ])))
        let io = ScriptedIO(["ليلى", ":quit"])
        let draft = Draft(response: PatientResponse(questionnaire: arabicFirst.reference, collector: "c", deviceId: "d"))
        _ = try FormSession(questionnaire: arabicFirst, draft: draft, io: io, today: today) { _ in }.run()
        #expect(io.transcript.contains("── بيانات المريض ──") && io.transcript.contains("حُفظت المسودة."), "\(io.transcript)")
    }

    @Test func whatCannotBeCompletedIsSaidInArabic() throws {
        let (_, io) = try run(["ليلى", "الأحمد", "", "ذكر", "", ":finish"])
        #expect(io.transcript.contains("لا يمكن إكمال السجل بعد:"), "\(io.transcript)")
        #expect(io.transcript.contains("السؤال 1.1: مطلوب ولم يُجب عنه"), "\(io.transcript)")
    }

    @Test func everyMessageHasAnArabicText() {
        // One of each message, with sample values: the Arabic catalogue says each in Arabic.
        let samples: [FormText] = [
            .formTitle(title: "t", id: "t", version: "1"), .recordId("x"), .resuming(at: .end, answers: 2), .typeHelp, .editingRevision(2),
            .registryPatient(name: "n", id: "i"), .patientHeading, .sectionHeading(number: 1, of: 2, title: "t"),
            .patientField(.externalId), .patientHint(.sex), .sex(.unknown), .currentAnswer("a"), .help("h"), .required, .enterKeeps("a"),
            .hint(.chooseOneOfLong(3)), .hint(.date(from: nil, to: "today")), .yes, .no, .compoundParts(count: 2, labels: ["a", "b"]),
            .controlCharacter, .answerYesOrNo, .chooseAtLeastOne, .wholeNumber, .number, .date, .typeAChoice, .notAChoice("x"),
            .severalMatchTypeMore("x"), .severalMatchPickNumber("x"), .didYouMean("x"), .outOfRange(below: true, limit: "1"),
            .answerProblem("p"), .questionRequired, .fieldRequired("f"), .keepUnder(200), .dateOfBirthFormat, .dateOfBirthRange,
            .sexAnswer, .commandsHelp, .unknownCommand("x", suggestion: "y"), .goWhere, .firstQuestion, .noSuchSection(9, count: 4),
            .sectionHidden(2), .noSuchQuestion("9.9"), .questionHidden("1.2"), .goFirstThenClear, .cleared, .noChoices,
            .answerNotChanged, .reviewHeading, .reviewPatient, .reviewSection(number: 1, title: "t"), .notAnswered,
            .endOfQuestionnaire(answers: 3), .stillRequired(["1.1"]), .finishPrompt, .cannotComplete,
            .issue(ValidationIssue(kind: .missingIdentification, field: "sex", message: "m")), .droppedHidden(2),
            .complete(id: "i", answers: 2), .couldNotSave("e"), .savedAgain, .quitNeedsRoom, .finishNeedsRoom, .nothingTyped,
            .draftSaved(resume: "r"), .sending(host: "h", seconds: 5), .sent, .alreadySent, .savedAsRevision(2),
            .savedOffline(waiting: 2, reason: "r"), .refused("m"), .refusedDraftAgain, .inputEndedBlank, .inputEnded(resume: "r"),
            .unfinishedDrafts, .resumeWhich, .pickNumber(3), .draftColumns, .draftAtPatient, .draftAtStart, .editOfRevision(2),
            .heldBack("r"), .staleEdit(current: 3), .matchSource("server"), .offlineSearch(copy: nil),
            .serverNotSearched("p"), .searchForPatient, .searchPrompt(.familyName), .searchPrompt(.dateOfBirth), .dateOfBirthLeftOut,
            .noPatientMatches, .matchColumns, .openWhich,
            .nothingWaits, .recordsWait(2), .recordsSetAside(1), .answersWait(3), .noDrafts, .draftsWait(2), .notSignedIn,
            .signedIn(server: "s", nothingNew: true), .serverNotAsked("e"), .unreadNotifications(2, kinds: [("k", 2)]),
            .invitations(1, teams: ["t"]), .questionnairesToPull(["q v"]),
            .passphrasePrompt, .wrongPassphrase(triesLeft: 2), .choosePassphrase, .newPassphrase, .typeItAgain, .passphraseTooShort,
            .passphrasesDiffer, .cancelled, .interrupted, .interruptedSending,
            .queueEmpty, .queueSetAside(1), .flushed(uploaded: 1, alreadyThere: 0, setAside: 0, stillQueued: 0),
            .mergedMeanwhile(id: "i", how: "h"), .setAsideBecause(id: "i", reason: "r"), .stoppedEarly("r"), .flushWaiting(seconds: 5),
        ]
        let arabic = FormLanguage("ar")
        #expect(arabic.isRightToLeft && !FormLanguage(nil).isRightToLeft)
        #expect(arabic(.chosen("x")) == "  ← x", "the arrow points the way the line reads")
        for sample in samples {
            let text = arabic(sample)
            #expect(text.unicodeScalars.contains { (0x0621...0x064A).contains($0.value) }, "not Arabic: \(text)")
            #expect(text != FormLanguage(nil)(sample))
        }
    }
}

/// Right-to-left lines for terminals without bidi: display order and joined letters.
struct BidiTextTests {
    @Test func anArabicLineIsReversedWithNumbersAndLatinKeptInOrder() {
        // Letters that join only to the letter before (ا د ر و) leave the next one isolated;
        // numbers and Latin words read left to right.
        let line = BidiText.render("دار 2024 ok", mode: .reorder, rightToLeft: true)
        #expect(line == "ok 2024 \u{FEAD}\u{FE8D}\u{FEA9}")
        // Brackets face the other way inside a right-to-left line: `(ok)` stays readable.
        #expect(BidiText.render("ورد (ok)", mode: .reorder, rightToLeft: true) == "(ok) \u{FEA9}\u{FEAD}\u{FEED}")
        // A question number before Arabic text goes to the right, in its own order.
        #expect(BidiText.render("[1.2] دار", mode: .reorder, rightToLeft: true) == "\u{FEAD}\u{FE8D}\u{FEA9} [1.2]")
    }

    @Test func lettersJoinAndLamAlefIsOneLigature() {
        // بيت: initial beh, medial yeh, final teh; then reversed for display.
        #expect(BidiText.render("بيت", mode: .reorder, rightToLeft: true) == "\u{FE96}\u{FEF4}\u{FE91}")
        // لا: one ligature; سلام: seen initial, lam-alef final ligature, meem isolated.
        #expect(BidiText.render("لا", mode: .reorder, rightToLeft: true) == "\u{FEFB}")
        #expect(BidiText.render("سلام", mode: .reorder, rightToLeft: true) == "\u{FEE1}\u{FEFC}\u{FEB3}")
    }

    @Test func aLineWiderThanTheTerminalIsBrokenAtSpacesBeforeItIsLaidOut() {
        // Each part read on its own, first words on the first line: a terminal's own wrapping of
        // the display order would put the sentence's start on the last line.
        let line = "[4.1] " + Array(repeating: "دار", count: 8).joined(separator: " ")
        let shown = BidiText.render(line, mode: .reorder, rightToLeft: true, width: 20).components(separatedBy: "\n")
        #expect(shown.count == 2 && shown.allSatisfy { TerminalText.columns(of: $0) <= 20 }, "\(shown)")
        #expect(shown[0].hasSuffix("[4.1]"), "the start of the sentence on the first line, at its right: \(shown)")
        #expect(BidiText.broken("ab cd", width: 20) == ["ab cd"])
    }

    /// A left-to-right line wider than the terminal breaks at spaces, its continuation indented
    /// as it is; a word longer than the line is cut, never given a space.
    @Test func aLongEnglishLineBreaksAtSpacesAndKeepsItsIndent() {
        let wrapped = TerminalText.wrapped("    choose one of 69: type part of a name or a code (:list shows all)", width: 40)
        #expect(wrapped == "    choose one of 69: type part of a\n    name or a code (:list shows all)", "\(wrapped)")
        let word = String(repeating: "x", count: 100)
        let cut = TerminalText.wrapped("  " + word, width: 40).components(separatedBy: "\n")
        #expect(cut.allSatisfy { TerminalText.columns(of: $0) <= 40 }, "\(cut)")
        #expect(cut.map { $0.trimmingCharacters(in: .whitespaces) }.joined() == word, "no space inside the word: \(cut)")
        #expect(TerminalText.wrapped("short", width: 40) == "short" && TerminalText.wrapped(word, width: nil) == word)
    }

    /// While typing, lam and alef show as their one ligature, as they do once the line is said,
    /// and the line keeps one cell a character (a zero-width space holds the alef's), so the
    /// cursor stays where it is.
    @Test func lamAndAlefJoinWhileTyping() {
        let laid = BidiText.layout("سلام", rightToLeft: true)
        #expect(laid.cells.count == 4 && laid.cells.contains("\u{FEFC}"), "the final lam-alef, after sin: \(laid.cells)")
        #expect(laid.cells.contains("\u{200B}") && laid.cells.map(TerminalText.columns(of:)).reduce(0, +) == 3)
        let alone = BidiText.layout("لا", rightToLeft: true)
        #expect(alone.cells.contains("\u{FEFB}"), "the isolated ligature: \(alone.cells)")
    }

    @Test func anEnglishLineWithAnArabicNameKeepsItsOrder() {
        #expect(BidiText.render("Name: دار.", mode: .reorder, rightToLeft: false) == "Name: \u{FEAD}\u{FE8D}\u{FEA9}.")
        #expect(
            BidiText.render("Name: Amina", mode: .reorder, rightToLeft: true) == "Name: Amina", "no right-to-left letter, nothing to do")
    }

    @Test func bidiTerminalsGetTheLineAsItIsMarkedRightToLeft() {
        #expect(BidiText.render("1.2 دار", mode: .marks, rightToLeft: true) == "\u{200F}1.2 دار")
        #expect(BidiText.render("1.2 دار", mode: .off, rightToLeft: true) == "1.2 دار")
    }

    @Test func theModeFollowsTheSettingThenTheTerminal() {
        #expect(BidiMode.from(environment: ["INTAKE_BIDI": "marks", "TMUX": "x"], terminal: true) == .marks)
        #expect(
            BidiMode.from(environment: ["VTE_VERSION": "7600", "TMUX": "/tmp/tmux"], terminal: true) == .reorder,
            "tmux draws the cells itself")
        #expect(BidiMode.from(environment: ["VTE_VERSION": "7600", "TERM": "xterm-256color"], terminal: true) == .marks)
        #expect(BidiMode.from(environment: ["TERM": "linux"], terminal: true) == .reorder)
        #expect(BidiMode.from(environment: [:], terminal: true) == .reorder)
        #expect(BidiMode.from(environment: ["TMUX": "x"], terminal: false) == .off, "a pipe or a file gets the text as it is")
    }
}
