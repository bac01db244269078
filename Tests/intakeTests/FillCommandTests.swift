import Foundation
import IntakeCore
import IntakeStore
import Testing

/// The built `intake` binary, driven through piped standard input.
@Suite(.serialized)
struct FillCommandTests {
    let intake = IntakeProcess()

    private func store() throws -> LocalStore { try LocalStore(directory: intake.dataDirectory) }

    @Test func fillsAWholeRecordFromPipedInput() throws {
        let result = try intake.run(["fill"], input: Answers.all + [":finish"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("is complete (50 answers)."))
        #expect(result.stdout.contains("Saved offline (no server is configured): 1 record waiting, encrypted on this machine."))
        let entries = try store().queueEntries()
        #expect(entries.count == 1)
        #expect(try store().summaries().isEmpty, "a finished record leaves the drafts")
        let record = try store().queuedRecord(idPrefix: String(entries[0].id.uuidString.prefix(8))).response
        let questionnaire = try QuestionnaireLoader.load(
            directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))
        #expect(Validator(questionnaire: questionnaire).validate(record).isEmpty)
        #expect(record.collector == "test.worker")
        #expect(
            record[QuestionPosition(section: 2, index: 5)]
                == .dictionary(["name": .text("Metformin"), "dose": .decimal(500), "unit": .choice("mg"), "frequency": .choice("twice")]))
    }

    /// The questionnaire read early (before the command line is parsed) is always the one the
    /// command line names, however it is written; a folder that does not load says so as before.
    @Test func theQuestionnaireReadEarlyIsTheOneNamed() throws {
        let french = IntakeProcess.repositoryRoot.appendingPathComponent("Tests/Questionnaires/visite-fr").path
        for arguments in [
            ["fill", "--questionnaire=\(french)"], ["fill", "-q", french], ["fill", "-q", "refugee-health", "-q", french],
            ["fill", "--data-dir", intake.dataDirectory.path, "--questionnaire", french],
        ] {
            let result = try intake.run(arguments, input: [":quit"])
            #expect(result.stdout.contains("Informations sur le patient"), "\(arguments): \(result.stdout)\(result.stderr)")
            #expect(!result.stdout.contains("Patient information"), "\(arguments)")
        }
        let bundled = try intake.run(["fill"], input: [":quit"])
        #expect(bundled.stdout.contains("Patient information"), "\(bundled.stdout)\(bundled.stderr)")
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("intake-early-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: broken) }
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try "id: broken\ntitle: Broken\n".write(to: broken.appendingPathComponent("manifest.txt"), atomically: true, encoding: .utf8)
        let refused = try intake.run(["fill", "--questionnaire", broken.path], input: [":quit"])
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains(broken.path), "\(refused.stderr)")
    }

    @Test func badInputIsAskedAgain() throws {
        let result = try intake.run(["fill"], input: ["Amina", "Haddad", "1990-02-30", "", "x", "f", "", "Atlantis", ":quit"])
        #expect(result.status == 0)
        // A date written right that names no day is told so, not how to write a date.
        #expect(result.stdout.contains("1990-02-30 is not a day: month 02 of 1990 has 28 days."), "\(result.stdout)")
        #expect(result.stdout.contains("Please answer female, male, other or unknown (f/m/o/u)."))
        #expect(result.stdout.contains("'Atlantis' is not one of the choices."))
        #expect(result.stdout.contains("Draft saved. Resume it with: intake fill --resume"))
    }

    @Test func inputEndingEarlyKeepsTheDraftAndExitsWith3() throws {
        let first = try intake.run(["fill"], input: Answers.patient + Answers.section1)
        #expect(first.status == 3)
        #expect(first.stderr.contains("Input ended before the record was finished. The draft is saved: intake fill --resume"))
        #expect(!first.stderr.contains("Amina") && !first.stderr.contains("Haddad"))
        let list = try intake.run(["drafts", "list"])
        #expect(list.stdout.contains("2.1") && list.stdout.contains("A. H."))
        #expect(!list.stdout.contains("Amina"))
        let resumed = try intake.run(["fill", "--resume"], input: Answers.section2 + Answers.section3 + Answers.section4 + [":finish"])
        #expect(resumed.status == 0, "\(resumed.stdout)\(resumed.stderr)")
        #expect(resumed.stdout.contains("Resuming the draft at question 2.1"))
        #expect(try store().summaries().isEmpty)
        #expect(try store().queueEntries().count == 1)
    }

    @Test(arguments: [SIGINT, SIGKILL])
    func anInterruptedOrKilledFillLosesNoAnswer(signal: Int32) throws {
        let process = intake.process(["fill"])
        let stdin = Pipe()
        process.standardInput = stdin
        let stderr = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data((Answers.patient + Answers.section1.prefix(6)).map { $0 + "\n" }.joined().utf8))
        let deadline = Date().addingTimeInterval(30)
        var answered = 0
        while Date() < deadline {
            answered = (try? LocalStore(directory: intake.dataDirectory).summaries().first?.answerCount) ?? 0
            if answered == 5 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(answered == 5, "the sixth line is an empty optional answer")
        kill(process.processIdentifier, signal)
        try #require(IntakeProcess.waitForExit(process, seconds: 20))
        if signal == SIGINT {
            #expect(process.terminationReason == .exit && process.terminationStatus == 130)
            let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(message.contains("Interrupted. Every answer given so far is saved; continue with 'intake fill --resume'."))
        } else {
            #expect(process.terminationReason == .uncaughtSignal)
        }
        let draft = try #require(try store().summaries().first)
        #expect(draft.cursor == QuestionPosition(section: 1, index: 7))
        let prefix = String(draft.id.uuidString.lowercased().prefix(8))
        let resumed = try intake.run(
            ["fill", "--resume", prefix],
            input: Array(Answers.section1.dropFirst(6)) + Answers.section2 + Answers.section3 + Answers.section4 + [":finish"])
        #expect(resumed.status == 0, "\(resumed.stdout)")
        #expect(resumed.stdout.contains("is complete (50 answers)"))
    }

    @Test func fillsTheArabicTranslation() throws {
        let result = try intake.run(["fill", "--language", "ar"], input: Answers.patient + ["SY", ":quit"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("الفحص الصحي للاجئين"))
        #expect(result.stdout.contains("[1.1] بلد الميلاد *"))
        let draft = try #require(try store().summaries().first)
        #expect(try store().draft(id: draft.id)?.response.language == "ar")
    }

    @Test func explainsMistakesInTheCommandLine() throws {
        let noDrafts = try intake.run(["fill", "--resume"])
        #expect(noDrafts.status != 0)
        #expect(noDrafts.stderr.contains("Error: There is no draft of refugee-health to resume; start one with 'intake fill'."))
        let idWithoutResume = try intake.run(["fill", "1234abcd"])
        #expect(idWithoutResume.stderr.contains("Error: Please add --resume to continue a draft: intake fill --resume 1234abcd"))
        let language = try intake.run(["fill", "--language", "fr"])
        #expect(language.stderr.contains("Error: The questionnaire has no 'fr' translation; choose one of en, ar."))
        let unknown = try intake.run(["fill", "--resume", "ffffffff"])
        #expect(
            unknown.stderr.contains("Error: no record here has an id starting with 'ffffffff': see 'intake drafts list' for the ids")
        )
        // fill's command line is read by fill's own type first (a faster start); what that
        // reading refuses is answered from the root, as `intake fill`, with its usage and 64.
        let mistyped = try intake.run(["fill", "--langauge", "ar"])
        #expect(mistyped.status == 64 && mistyped.stderr.contains("Usage: intake fill"), "\(mistyped.stderr)")
        let version = try intake.run(["fill", "--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("0."), "the root's version, as before: \(version.stdout)")
        let help = try intake.run(["fill", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: intake fill") && help.stdout.contains("--resume"), "\(help.stdout)")
    }

    @Test func draftsCanBeShownAndDiscarded() throws {
        try intake.run(["fill"], input: ["Amina", ":quit"])
        let id = try #require(try store().summaries().first?.id.uuidString.lowercased())
        let shown = try intake.run(["drafts", "show", String(id.prefix(6))])
        #expect(shown.stdout.contains("\"givenName\": \"Amina\""))
        let discarded = try intake.run(["drafts", "discard", String(id.prefix(6))])
        #expect(discarded.stdout == "Discarded \(id).\n")
        #expect(try intake.run(["drafts", "list"]).stdout == "No drafts. Start one with 'intake fill'.\n")
    }
}
