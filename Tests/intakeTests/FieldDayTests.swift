import Foundation
import FoundationNetworking
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A field worker's day as the README starts it, in a real pseudo-terminal: records filled before
/// anyone signed in reach the server as the account that signs in; a number typed for a choice
/// means what the screen shows.
@Suite(.serialized)
struct FieldDayTests {
    /// A person at a terminal of a machine where nobody has signed in: no collector named anywhere.
    static func newcomer(_ intake: IntakeProcess) -> [String: String] {
        var environment = TerminalCommandTests.person(intake, unlockMinutes: 30)
        environment["INTAKE_COLLECTOR"] = nil
        environment["INTAKE_LANGUAGE"] = "en"
        return environment
    }

    /// Answers every question of the bundled questionnaire at its prompt, then `:finish`.
    static func fillWhole(_ terminal: PseudoTerminal, answers: [String] = Answers.all) {
        let before = terminal.prompts
        for (index, answer) in (answers + [":finish"]).enumerated() {
            #expect(terminal.prompt(before + index + 1), "prompt \(index + 1): \(terminal.text.suffix(400))")
            terminal.type(answer + "\r")
        }
    }

    /// The first 8 characters of the first record id on the screen.
    static func recordId(in text: String) -> String {
        guard let range = text.range(of: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", options: .regularExpression) else {
            return "none"
        }
        return String(text[range].prefix(8))
    }

    /// The collector of each record the server holds, by id.
    static func serverCollectors(_ intake: IntakeProcess) throws -> [String: String] {
        let db = try DatabaseQueue(path: intake.dataDirectory.appendingPathComponent("server.sqlite").path)
        return try db.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT id, collector FROM record").map { ($0["id"], $0["collector"]) })
        }
    }

    @Test func recordsFilledBeforeSigningInAreSentAsTheAccountThatSignsIn() async throws {
        var intake = IntakeProcess()
        intake.environment["INTAKE_COLLECTOR"] = .some(nil)
        let environment = Self.newcomer(intake)
        defer { _ = try? intake.run(["key", "lock"]) }

        // The README's first command on a new machine: a passphrase is chosen, the record is filled.
        let first = try PseudoTerminal(arguments: ["fill"], environment: environment)
        #expect(first.read { $0.contains("New passphrase: ") }, "\(first.text)")
        first.type("correct horse battery\r")
        #expect(first.read { $0.contains("Type it again: ") }, "\(first.text)")
        first.type("correct horse battery\r")
        Self.fillWhole(first)
        #expect(first.wait() == 0, "\(first.text.suffix(600))")
        // Said at :finish, not at a later flush.
        #expect(first.text.contains("It has no collector yet (nobody has signed in here"), "\(first.text.suffix(600))")
        let second = try PseudoTerminal(arguments: ["fill"], environment: environment)
        Self.fillWhole(second)
        #expect(second.wait() == 0, "\(second.text.suffix(600))")
        #expect(!second.text.contains("Passphrase"), "unlocked once for the session: \(second.text.prefix(400))")

        // A server, and amina, a field worker of its team, signs in on this machine.
        try intake.prepareClinic()
        _ = try intake.run(
            ["admin", "user", "create", "amina", "--role", "fieldworker", "--team", "clinic", "--password-stdin"], input: ["amina-pass-1"])
        let (server, port) = try intake.startServer(arguments: ["--publish", "refugee-health"])
        defer { server.terminate() }
        let login = try PseudoTerminal(
            arguments: ["login", "--server", "http://127.0.0.1:\(port)", "--username", "amina"], environment: environment)
        #expect(login.read { $0.contains("assword") }, "\(login.text)")
        login.type("amina-pass-1\r")
        #expect(login.wait() == 0, "\(login.text)")

        let flush = try PseudoTerminal(arguments: ["flush"], environment: environment)
        #expect(flush.wait() == 0, "\(flush.text)")
        #expect(flush.text.contains("2 records were filled here before you signed in; they will be sent as amina's."), "\(flush.text)")
        #expect(flush.text.contains("Uploaded: 2. Already on the server: 0. Set aside: 0. Still queued: 0."), "\(flush.text)")
        let collectors = try Self.serverCollectors(intake)
        #expect(collectors.count == 2 && collectors.values.allSatisfy { $0 == "amina" }, "\(collectors)")

        // A record set aside for its collector (a name the team does not know) comes back with
        // the documented command.
        let stray = try PseudoTerminal(
            arguments: ["fill", "--collector", "ghost", "--server", "http://127.0.0.1:1"], environment: environment)
        Self.fillWhole(stray)
        #expect(stray.wait() == 0, "\(stray.text.suffix(600))")
        let refused = try PseudoTerminal(arguments: ["flush"], environment: environment)
        #expect(refused.wait() == 1, "\(refused.text)")
        #expect(refused.text.contains("Set aside: 1"), "\(refused.text)")
        #expect(refused.text.contains("intake queue retry ID --collector NAME"), "the reason says the way back: \(refused.text)")
        let retry = try PseudoTerminal(arguments: ["queue", "retry", "--collector", "amina"], environment: environment)
        #expect(retry.wait() == 0, "\(retry.text)")
        #expect(retry.text.contains("1 record back in line (1 now collected by amina)"), "\(retry.text)")
        let sent = try PseudoTerminal(arguments: ["flush"], environment: environment)
        #expect(sent.wait() == 0, "\(sent.text)")
        #expect(sent.text.contains("Uploaded: 1."), "\(sent.text)")
        #expect(try Self.serverCollectors(intake).values.filter { $0 == "amina" }.count == 3)

        // The end of the day on a shared machine: signed out, the token revoked, the store locked.
        let saved =
            try JSONSerialization.jsonObject(with: Data(contentsOf: intake.dataDirectory.appendingPathComponent("client.json")))
            as? [String: Any]
        let token = try #require(saved?["token"] as? String)
        let logout = try PseudoTerminal(arguments: ["logout"], environment: environment)
        #expect(logout.wait() == 0, "\(logout.text)")
        #expect(logout.text.contains("Signed out as amina from http://127.0.0.1:\(port); the token is revoked."), "\(logout.text)")
        #expect(logout.text.contains("The store is locked"), "\(logout.text)")
        var me = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/me")!)
        me.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, answer) = try await URLSession.shared.data(for: me)
        #expect((answer as? HTTPURLResponse)?.statusCode == 401, "the token no longer works")
        let next = try PseudoTerminal(arguments: ["drafts", "list"], environment: environment)
        #expect(next.read { $0.contains("Passphrase of the local store: ") }, "the next person is asked: \(next.text)")
        next.type("correct horse battery\r")
        #expect(next.wait() == 0, "\(next.text)")
    }

    /// Country of birth: `s` numbers the ten matches; after a refused `xyz`, `9` is the ninth of
    /// those (Syria), not the ninth of the 69 the screen never showed. At the next question, where
    /// nothing is numbered, a number is refused.
    @Test(arguments: ["9", "٩"]) func aNumberMeansWhatTheScreenShows(nine: String) throws {
        let intake = IntakeProcess()
        let terminal = try PseudoTerminal(arguments: ["fill"], environment: TerminalCommandTests.kiosk(intake))
        for (index, answer) in Answers.patient.enumerated() {
            #expect(terminal.prompt(index + 1), "\(terminal.text.suffix(400))")
            terminal.type(answer + "\r")
        }
        var prompts = Answers.patient.count
        func answer(_ text: String) {
            prompts += 1
            #expect(terminal.prompt(prompts), "\(terminal.text.suffix(400))")
            terminal.type(text + "\r")
        }
        answer("s")
        answer("xyz")
        answer(nine)
        #expect(terminal.read { $0.contains("→ Syria") }, "\(terminal.text.suffix(600))")
        answer(nine)
        #expect(terminal.read { $0.contains("is not one of the numbers on the screen") }, "\(terminal.text.suffix(600))")
        answer(":quit")
        #expect(terminal.wait() == 0)
        let draft = try intake.run(["drafts", "show", Self.recordId(in: terminal.text)])
        #expect(draft.stdout.contains("\"SY\""), "\(draft.stdout)")
        #expect(!draft.stdout.contains("\"CF\""), "the ninth of the whole list: \(draft.stdout)")
    }

    /// Other languages in Arabic: `فرن، ك` finds French, then asks only which Kurdish; the pick
    /// (in Arabic-Indic digits) keeps French beside it.
    @Test func settlingOneItemOfAMultipleChoiceKeepsTheOthers() throws {
        let intake = IntakeProcess()
        var environment = TerminalCommandTests.kiosk(intake)
        environment["INTAKE_LANGUAGE"] = "ar"
        // A terminal that lays out right-to-left text itself: the text arrives as written.
        environment["INTAKE_BIDI"] = "marks"
        let terminal = try PseudoTerminal(arguments: ["fill", "--language", "ar"], environment: environment)
        var prompts = 0
        func answer(_ text: String) {
            prompts += 1
            #expect(terminal.prompt(prompts), "\(terminal.text.suffix(400))")
            terminal.type(text + "\r")
        }
        // The patient, then country of birth, citizenship, preferred language, other languages? yes.
        for text in Answers.patient + ["SY", "SY", "arabic", "y"] { answer(text) }
        answer("فرن، كرد")
        #expect(terminal.read { $0.contains("أكثر من اختيار يطابق") }, "\(terminal.text.suffix(600))")
        answer("٢")
        answer(":quit")
        #expect(terminal.wait() == 0, "\(terminal.text.suffix(600))")
        let draft = try intake.run(["drafts", "show", Self.recordId(in: terminal.text)])
        #expect(draft.stdout.contains("\"fr\""), "French is kept: \(draft.stdout)")
        #expect(draft.stdout.contains("\"ckb\""), "the Kurdish picked: \(draft.stdout)")
    }

    /// A server that accepts the connection and never answers: the flush says at once where it
    /// sends and how long it may take, says each failed try, ends within the bound it stated, and
    /// Ctrl-C leaves at once; the record stays queued throughout.
    @Test func aFlushToAServerThatNeverAnswersIsNeverSilentAndKeepsItsBound() throws {
        let (listener, port) = TerminalCommandTests.stalledServer()
        defer { close(listener) }
        let intake = IntakeProcess()
        #expect(try intake.run(["fill"], input: Answers.all + [":finish"]).status == 0)
        let arguments = ["flush", "--server", "http://127.0.0.1:\(port)", "--token", "t", "--timeout", "2", "--attempts", "3"]

        let started = Date()
        let flush = try PseudoTerminal(arguments: arguments, environment: TerminalCommandTests.kiosk(intake))
        #expect(flush.read(seconds: 2) { $0.contains("Sending 1 record to 127.0.0.1") }, "\(flush.text)")
        #expect(Date().timeIntervalSince(started) < 2)
        // The bound said: 3 tries of at most 2 s, and at most 8 s between them.
        #expect(flush.text.contains("each try waits at most 2 s, 3 tries at most (22 s in all)"), "\(flush.text)")
        #expect(flush.read(seconds: 10) { $0.contains("Try 1 of 3 failed") }, "\(flush.text)")
        #expect(flush.wait(seconds: 40) == 1, "\(flush.text)")
        #expect(Date().timeIntervalSince(started) < 23, "ended after \(Date().timeIntervalSince(started)) s")
        #expect(flush.text.contains("Still queued: 1"), "\(flush.text)")

        let stopped = try PseudoTerminal(arguments: arguments, environment: TerminalCommandTests.kiosk(intake))
        #expect(stopped.read(seconds: 2) { $0.contains("Sending 1 record") }, "\(stopped.text)")
        stopped.type("\u{03}")
        let interrupted = Date()
        #expect(stopped.wait(seconds: 5) == 130, "\(stopped.text)")
        #expect(Date().timeIntervalSince(interrupted) < 1.5)
        #expect(try intake.run(["queue", "list"]).stdout.contains("1 waiting, 0 set aside."))
    }

    /// The server's refusal is said in the form's language where the client knows its code: in
    /// Arabic, a collector the team does not know is explained in Arabic, with the way back.
    @Test func aRefusalIsSaidInTheFormsLanguage() throws {
        let intake = IntakeProcess()
        let token = try intake.prepareServerWithCoordinator()
        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        var environment = TerminalCommandTests.kiosk(intake)
        environment["INTAKE_LANGUAGE"] = "ar"
        environment["INTAKE_BIDI"] = "marks"
        let terminal = try PseudoTerminal(
            arguments: ["fill", "--language", "ar", "--collector", "ghost", "--server", "http://127.0.0.1:\(port)", "--token", token],
            environment: environment)
        Self.fillWhole(terminal)
        #expect(terminal.wait() == 1, "\(terminal.text.suffix(600))")
        #expect(terminal.text.contains("رفض الخادم السجل: جامع السجل ليس عضوًا في هذا الفريق"), "\(terminal.text.suffix(800))")
        #expect(!terminal.text.contains("is not a member of this team"), "not the server's English: \(terminal.text.suffix(800))")
    }
}
