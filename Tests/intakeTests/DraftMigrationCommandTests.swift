import Foundation
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The field machine's side of a new questionnaire version, with real processes: a coordinator
/// publishes version 2 and retires version 1 while a machine, offline, holds a draft and a queued
/// record of version 1; the machine comes back, pulls, is told what to do, moves both (what went
/// and what was set aside listed), answers what became required, and the server holds both on
/// version 2 with every answer either there or kept in the record's history.
struct DraftMigrationCommandTests {
    @Test func aDraftAndAQueuedRecordMoveToTheNewVersionWithNothingLost() async throws {
        var intake = IntakeProcess()
        let cora = try intake.prepareServerWithCoordinator()
        intake.environment["INTAKE_COLLECTOR"] = "cora"
        var (server, port) = try intake.startServer()
        func online() -> [String] { ["--server", "http://127.0.0.1:\(port)", "--token", cora] }
        #expect(try intake.run(["questionnaire", "pull"] + online()).status == 0)
        let v1 = try QuestionnaireLoader.load(
            directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))

        // Offline: a finished record waits in the queue, another stays a draft.
        server.terminate()
        server.waitUntilExit()
        let queued = try intake.run(["fill"] + online() + ["--timeout", "2"], input: Answers.all + [":finish"])
        #expect(queued.stdout.contains("Saved offline"), "\(queued.stdout)\(queued.stderr)")
        let drafted = try intake.run(["fill"] + online(), input: Answers.all + [":quit"])
        #expect(drafted.status == 0, "\(drafted.stdout)\(drafted.stderr)")
        let queuedId = try #require(Self.shortId(in: try intake.run(["queue", "list"]).stdout))
        let draftId = try #require(Self.shortId(in: try intake.run(["drafts", "list"]).stdout))
        let originals = [
            try PatientResponse(jsonData: Data(try intake.run(["queue", "show", queuedId]).stdout.utf8)),
            try PatientResponse(jsonData: Data(try intake.run(["drafts", "show", draftId]).stdout.utf8)),
        ]
        #expect(originals.allSatisfy { $0.questionnaire == v1.reference && $0.answerCount > 40 })

        // Meanwhile the coordinator publishes version 2 (marital status removed, a schooling
        // choice removed, a required question added) and retires version 1.
        (server, port) = try intake.startServer()
        defer { server.terminate() }
        let folder = try Self.versionTwo()
        let published = try intake.run(["questionnaire", "publish", folder.path] + online())
        #expect(published.status == 0, "\(published.stdout)\(published.stderr)")
        let v2 = try QuestionnaireLoader.load(directory: folder)
        #expect(try intake.run(["questionnaire", "state", "refugee-health", v1.version, "retired"] + online()).status == 0)

        // Back online: the pull points at the move; a flush is refused, saying how to move it.
        let pulled = try intake.run(["questionnaire", "pull"] + online())
        #expect(pulled.stdout.contains("Pulled refugee-health version \(v2.version)"), "\(pulled.stdout)\(pulled.stderr)")
        #expect(pulled.stdout.contains("intake drafts migrate --all -q refugee-health"), "\(pulled.stdout)")
        let refused = try intake.run(["flush"] + online())
        #expect(
            refused.stdout.contains("retired") && refused.stdout.contains("intake drafts migrate \(queuedId)"),
            "\(refused.stdout)\(refused.stderr)")

        // The draft moves at a terminal: what was set aside is listed, and the question that became
        // required is asked there and then; the record is sent.
        let terminal = try PseudoTerminal(
            arguments: ["drafts", "migrate", draftId] + online(),
            environment: TerminalCommandTests.kiosk(intake).merging(["INTAKE_LANGUAGE": "en"]) { $1 })
        #expect(terminal.read { $0.contains("Answer the 1 question now and send the record? [Y/n]") }, "\(terminal.text)")
        #expect(terminal.text.contains("set aside  marital"), "\(terminal.text)")
        terminal.type("y\r")
        #expect(terminal.read { $0.contains("Can the patient be reached by phone?") }, "\(terminal.text)")
        terminal.type("y\r")
        terminal.type(":finish\r")
        #expect(terminal.read { $0.contains("Sent to the server.") }, "\(terminal.text)")
        #expect(terminal.wait() == 0, "\(terminal.text)")

        // The queued record moves with --all: what was carried and what was set aside is listed,
        // naming no answer.
        let moved = try intake.run(["drafts", "migrate", "--all"])
        #expect(moved.status == 0, "\(moved.stdout)\(moved.stderr)")
        for id in [queuedId] {
            #expect(moved.stdout.contains("\(id) moved from version \(v1.version) to \(v2.version)"), "\(moved.stdout)")
            #expect(moved.stdout.contains("1 required question to answer (reachable): intake fill --resume \(id)"), "\(moved.stdout)")
        }
        #expect(moved.stdout.contains("set aside  marital (question 1.7): version \(v2.version) has no such question"), "\(moved.stdout)")
        #expect(moved.stdout.contains("set aside  education (question 1.6)"), "\(moved.stdout)")
        #expect(!moved.stdout.contains("carried  "), "renumbered answers are not listed: \(moved.stdout)")
        #expect(
            !moved.stdout.contains("Amina") && !moved.stdout.contains("primary") && !moved.stdout.contains("married"), "no answers shown")
        let history = try intake.run(["drafts", "history", queuedId])
        #expect(
            history.stdout.contains("refugee-health@\(v1.version) → refugee-health@\(v2.version): 2 answers set aside"), "\(history.stdout)"
        )
        let kept = try intake.run(["drafts", "history", queuedId, "--json"]).stdout
        #expect(kept.contains(#""answer":{"choice":"married"}"#) && kept.contains(#""answer":{"choice":"primary"}"#), "\(kept)")
        #expect(try intake.run(["drafts", "migrate", "--all"]).stdout.contains("Nothing to move"))

        // The question that became required is asked; it is sent too.
        for id in [queuedId] {
            let finished = try intake.run(["fill", "--resume", id] + online(), input: ["y", ":finish"])
            #expect(finished.status == 0 && finished.stdout.contains("Sent to the server."), "\(finished.stdout)\(finished.stderr)")
        }
        #expect(try intake.run(["drafts", "list"]).stdout.contains("No drafts"))

        // The server holds both on version 2: every answer of version 1 is there, or set aside.
        for original in originals {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records/\(original.id.uuidString.lowercased())")!)
            request.setValue("Bearer \(cora)", forHTTPHeaderField: "Authorization")
            let (body, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let wrapped = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let stored = try PatientResponse(jsonData: try JSONSerialization.data(withJSONObject: try #require(wrapped["record"])))
            #expect(stored.questionnaire == v2.reference && stored.patient == original.patient)
            #expect(stored[v2.question(id: "reachable")!.position] == .yesNo(true))
            for (position, answer) in original.allAnswers {
                let key = try #require(v1.question(at: position)).key
                if key == "marital" || key == "education" {
                    let now = v2.question(id: key).flatMap { stored[$0.position] }
                    #expect(now == nil, "\(key) was set aside")
                } else if case .instances(let instances) = answer {
                    // A repeat's instances keep every answer, each at its question's index in the new version.
                    let group = try #require(v2.question(id: key))
                    guard case .instances(let moved)? = stored[group.position] else {
                        Issue.record("\(key) was not carried")
                        continue
                    }
                    #expect(moved.count == instances.count)
                    for (before, after) in zip(instances, moved) {
                        let byKey = { (instance: [Int: Answer], version: Questionnaire) in
                            Dictionary(
                                uniqueKeysWithValues: instance.map {
                                    (
                                        version.question(at: QuestionPosition(section: group.position.section, index: $0.key))?.key ?? "?",
                                        $0.value
                                    )
                                })
                        }
                        #expect(byKey(before, v1) == byKey(after, v2), "\(key)")
                    }
                } else {
                    #expect(stored[try #require(v2.question(id: key)).position] == answer, "\(key)")
                }
            }
            #expect(stored.answerCount == original.answerCount - 2 + 1)
        }
    }

    static func shortId(in text: String) -> String? {
        text.split(whereSeparator: { !$0.isHexDigit }).first { $0.count == 8 }.map(String.init)
    }

    /// The bundled questionnaire changed: marital status removed, the `primary` schooling choice
    /// removed, a required question added at the end of section 1; English only.
    static func versionTwo() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("intake-migrate-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("Questionnaires/refugee-health")
        try FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"), to: folder)
        try FileManager.default.copyItem(
            at: IntakeProcess.repositoryRoot.appendingPathComponent("Data"), to: root.appendingPathComponent("Data"))
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".ar.txt") {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(file))
        }
        func edit(_ name: String, _ change: (String) -> String) throws {
            let url = folder.appendingPathComponent(name)
            try change(try String(contentsOf: url, encoding: .utf8)).write(to: url, atomically: true, encoding: .utf8)
        }
        try edit("manifest.txt") {
            $0.split(separator: "\n").filter { !$0.hasPrefix("title.ar") }.joined(separator: "\n").replacingOccurrences(
                of: "languages: en, ar", with: "languages: en") + "\n"
        }
        try edit("1-demographics.txt") { text in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("id: marital") }
            return lines.joined(separator: "\n").replacingOccurrences(
                of: "none=No formal schooling, primary=Primary, ", with: "none=No formal schooling, "
            )
            .trimmingCharacters(in: .newlines) + "\nCan the patient be reached by phone? | id: reachable | yesno | required\n"
        }
        return folder
    }
}
