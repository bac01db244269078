import Foundation
import IntakeCore
import Testing

struct QuestionnaireCommandTests {
    let intake = IntakeProcess()

    @Test func bundledQuestionnaireChecksClean() throws {
        let result = try intake.run(["questionnaire", "check", "Questionnaires/refugee-health"])
        #expect(result.status == 0)
        #expect(result.stdout.contains(": refugee-health version "))
        #expect(result.stdout.contains("4 sections, 67 questions, languages en, ar"))
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

    /// What a translation leaves in the base language is said under the folder's line, and the
    /// check still passes: the questionnaire loads.
    @Test func untranslatedTextIsANoteNotAProblem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("intake-untranslated-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "id: visit\ntitle: Visit\nlanguages: en, ar\n".write(
            to: folder.appendingPathComponent("manifest.txt"), atomically: true, encoding: .utf8)
        try "@title Visit\nReferred? | id: referral | single: no=Not needed, referred=Referred, not seen yet\n"
            .write(to: folder.appendingPathComponent("1-visit.txt"), atomically: true, encoding: .utf8)
        try "@title زيارة\nهل أحيل؟ | id: referral | labels: no=لا حاجة, referred=أحيل ولم يُفحص\n"
            .write(to: folder.appendingPathComponent("1-visit.ar.txt"), atomically: true, encoding: .utf8)
        let result = try intake.run(["questionnaire", "check", folder.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("  note: 2 text(s) a translation leaves in the base language"), "\(result.stdout)")
        #expect(result.stdout.contains("\(folder.path)/manifest.txt: the title (title.ar:) has no 'ar' text"))
        #expect(
            result.stdout.contains(
                "\(folder.path)/1-visit.ar.txt: question 1.1 (referral): the label of choice 'not_seen_yet' (labels:) has no 'ar' text"))
        let bundled = try intake.run(["questionnaire", "check", "refugee-health", "follow-up"])
        #expect(bundled.status == 0 && !bundled.stdout.contains("note:"), "\(bundled.stdout)")
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

private func v1Version() throws -> String {
    try QuestionnaireLoader.load(directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")).version
}

/// A coordinator publishes, tries and retires versions with the `intake` command against a real
/// server; a field machine's record on a retired version is refused, saying where to move it.
struct QuestionnaireLifecycleCommandTests {
    @Test func aCoordinatorDraftsPublishesAndRetiresVersionsFromTheCommandLine() throws {
        var intake = IntakeProcess()
        let cora = try intake.prepareServerWithCoordinator()
        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        let online = ["--server", "http://127.0.0.1:\(port)", "--token", cora]
        // Version 2: the bundled questionnaire with another title, in a folder of its own.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("intake-v2-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("Questionnaires/refugee-health")
        try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"), to: folder)
        let manifest = folder.appendingPathComponent("manifest.txt")
        try (try String(contentsOf: manifest, encoding: .utf8)).replacingOccurrences(
            of: "title: Refugee health screening", with: "title: Screening v2"
        )
        .write(to: manifest, atomically: true, encoding: .utf8)
        // Its shared choice lists, in the Data/ folder beside Questionnaires/.
        try FileManager.default.copyItem(
            at: IntakeProcess.repositoryRoot.appendingPathComponent("Data"), to: root.appendingPathComponent("Data"))

        let drafted = try intake.run(["questionnaire", "publish", folder.path, "--draft"] + online)
        #expect(
            drafted.status == 0 && drafted.stdout.contains("Stored as a draft: refugee-health version"),
            "\(drafted.stdout)\(drafted.stderr)")
        let v2 = try #require(drafted.stdout.split(separator: " ").first { $0.count == 16 }.map(String.init), "\(drafted.stdout)")
        let v1 = try QuestionnaireLoader.load(
            directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")
        ).version
        let listed = try intake.run(["questionnaire", "versions"] + online)
        #expect(listed.stdout.contains(v2) && listed.stdout.contains("draft") && listed.stdout.contains("published"), "\(listed.stdout)")

        // Tried before it is published: test records, kept apart on the server.
        let sampled = try intake.run(["questionnaire", "try", "refugee-health", v2, "--sample", "3"] + online)
        #expect(sampled.status == 0 && sampled.stdout.contains("3 of 3 test records kept."), "\(sampled.stdout)\(sampled.stderr)")
        let tried = try intake.run(["questionnaire", "try", "refugee-health", v2] + online, input: Answers.all + [":finish"])
        #expect(
            tried.status == 0 && tried.stdout.contains("Screening v2") && tried.stdout.contains("kept on the server, apart"),
            "\(tried.stdout)\(tried.stderr)")
        let tests = try intake.run(["questionnaire", "test-records", "refugee-health", v2] + online)
        #expect(tests.stdout.split(separator: "\n").count == 5 && tests.stdout.contains("cora"), "\(tests.stdout)")
        #expect(
            try intake.run(["questionnaire", "try", "refugee-health", v1Version()] + online, input: [":quit"]).stdout.contains(
                "Not finished"))

        #expect(
            try intake.run(["questionnaire", "state", "refugee-health", v2, "published"] + online).stdout.contains("is published (by cora)")
        )
        #expect(
            try intake.run(["questionnaire", "test-records", "refugee-health", v2] + online).stdout.contains("No test records"),
            "discarded on publishing")
        let retired = try intake.run(["questionnaire", "state", "refugee-health", v1, "retired"] + online)
        #expect(retired.status == 0 && retired.stdout.contains("is retired"), "\(retired.stdout)\(retired.stderr)")
        let wrong = try intake.run(["questionnaire", "state", "refugee-health", v1, "draft"] + online)
        #expect(wrong.status == 64 && wrong.stderr.contains("published, closed or retired"), "\(wrong.stderr)")

        // A record filled on version 1 is refused and stays a draft, the message naming version 2.
        intake.environment["INTAKE_COLLECTOR"] = "cora"
        let filled = try intake.run(["fill"] + online, input: Answers.all + [":finish"])
        #expect(
            filled.status == 1 && filled.stdout.contains("retired") && filled.stdout.contains("new records use version \(v2)"),
            "\(filled.stdout)\(filled.stderr)")
        #expect(try intake.run(["drafts", "list"]).stdout.contains("refugee-health"), "kept as a draft")

        // Status says a published version waits to be pulled; the machine pulls it, and the draft
        // on the retired version is pointed out.
        let status = try intake.run(["status"] + online)
        #expect(
            status.stdout.contains("1 questionnaire version published that this machine has not pulled (refugee-health \(v2))"),
            "\(status.stdout)")
        let pulled = try intake.run(["questionnaire", "pull"] + online)
        #expect(
            pulled.status == 0 && pulled.stdout.contains("Pulled refugee-health version \(v2) (published)"),
            "\(pulled.stdout)\(pulled.stderr)")
        #expect(
            pulled.stdout.contains(
                "1 draft of refugee-health version \(v1) (retired); new records use version \(v2). The server takes no records on it now: move them with 'intake drafts migrate --all -q refugee-health'"
            ), "\(pulled.stdout)")
        #expect(try intake.run(["questionnaire", "pull"] + online).stdout.contains("Questionnaires up to date (1 version kept"))
        // New records are filled on version 2, from the copy on this machine: online, and offline.
        let sent = try intake.run(["fill"] + online, input: Answers.all + [":finish"])
        #expect(
            sent.status == 0 && sent.stdout.contains("Screening v2") && sent.stdout.contains("Sent to the server."),
            "\(sent.stdout)\(sent.stderr)")
        server.terminate()
        server.waitUntilExit()
        let offline = try intake.run(["fill"] + online + ["--timeout", "2"], input: Answers.all + [":finish"])
        #expect(offline.stdout.contains("Screening v2") && offline.stdout.contains("Saved offline"), "\(offline.stdout)\(offline.stderr)")
        // A folder is used only when asked for.
        let local = try intake.run(["fill", "--questionnaire", "./Questionnaires/refugee-health"], input: ["Amina", ":quit"])
        #expect(local.stdout.contains("Refugee health screening (refugee-health, version \(v1))"), "\(local.stdout)")
    }
}
