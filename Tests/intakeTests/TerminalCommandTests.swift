import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `intake fill` as a field worker meets it, in a real pseudo-terminal: keys edit, secrets are
/// asked once and Ctrl-C leaves them, a stalled server never holds the form past the timeout.
@Suite(.serialized)
struct TerminalCommandTests {
    /// The environment of a person at a terminal: no kiosk key file, no passphrase in the environment.
    static func person(_ intake: IntakeProcess, unlockMinutes: Int = 0) -> [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": intake.dataDirectory.path,
            "TERM": "xterm-256color",
            "INTAKE_DATA_DIR": intake.dataDirectory.path, "INTAKE_COLLECTOR": "test.worker",
            "INTAKE_UNLOCK_MINUTES": String(unlockMinutes),
        ]
    }

    static func kiosk(_ intake: IntakeProcess) -> [String: String] {
        person(intake).merging(["INTAKE_KIOSK": "1"]) { $1 }
    }

    @Test func ctrlCAtThePassphrasePromptEndsWith130AndChangesNothing() throws {
        let intake = IntakeProcess()
        let terminal = try PseudoTerminal(arguments: ["fill"], environment: Self.person(intake))
        #expect(terminal.read { $0.contains("New passphrase: ") }, "\(terminal.text)")
        #expect(terminal.text.contains("cannot be recovered"), "the person is told before choosing it")
        terminal.type("secret")
        terminal.type("\u{03}")
        #expect(terminal.wait() == 130, "\(terminal.text)")
        #expect(!terminal.text.contains("secret"), "never echoed")
        #expect(terminal.text.contains("Cancelled; nothing was changed."), "\(terminal.text)")
        // Nothing changed: the store still has no key, and the terminal was put back (echo on).
        let status = try intake.run(["key", "status"])
        #expect(status.stdout.contains("No key yet"), "\(status.stdout)")
    }

    @Test func thePassphraseIsAskedOnceBeforeTheFormThreeTriesAndKeptForTheSession() throws {
        var intake = IntakeProcess()
        intake.environment["INTAKE_KIOSK"] = .some(nil)
        intake.environment["INTAKE_PASSPHRASE"] = "correct horse battery"
        // The store gets its passphrase-protected key.
        #expect(try intake.run(["fill"], input: ["Amina", ":quit"]).status == 0)
        let person = Self.person(intake, unlockMinutes: 30)
        intake.environment["INTAKE_PASSPHRASE"] = .some(nil)
        defer { _ = try? intake.run(["key", "lock"]) }

        let first = try PseudoTerminal(arguments: ["fill", "--resume"], environment: person)
        #expect(first.read { $0.contains("Passphrase of the local store: ") }, "\(first.text)")
        #expect(first.prompts == 0, "asked before the form, not in its middle")
        first.type("wrong one\r")
        #expect(first.read { $0.contains("Wrong passphrase (2 tries left). Passphrase of the local store: ") }, "\(first.text)")
        first.type("correct horse battery\r")
        #expect(first.prompt(1), "the form starts once unlocked: \(first.text)")
        first.type(":quit\r")
        #expect(first.wait() == 0, "\(first.text)")

        // The next command of the session does not ask again.
        let second = try PseudoTerminal(arguments: ["fill", "--resume"], environment: person)
        #expect(second.prompt(1), "\(second.text)")
        #expect(!second.text.contains("Passphrase"), "kept unlocked for the session: \(second.text)")
        second.type(":quit\r")
        #expect(second.wait() == 0)

        // Locked: asked again; three wrong tries end the command, nothing changed.
        let locked = try intake.run(["key", "lock"])
        #expect(locked.stdout.contains("Locked"), "\(locked.stdout)\(locked.stderr)")
        let third = try PseudoTerminal(arguments: ["fill", "--resume"], environment: person)
        for _ in 0..<3 {
            #expect(third.read { $0.hasSuffix("Passphrase of the local store: ") })
            third.type("nope nope\r")
            _ = third.read(seconds: 2) { !$0.hasSuffix("Passphrase of the local store: ") }
        }
        #expect(third.wait() == 1, "\(third.text)")
        #expect(third.text.contains("wrong passphrase"), "\(third.text)")
    }

    /// The tester's case: in a tmux (or screen) outliving the login that started it, whose session
    /// keyring pam_keyinit revoked at logout, the passphrase chosen by the first command was asked
    /// again by the next one. Each command here starts with such a revoked session keyring (see
    /// ``SessionKeyring/revoked(_:)``; spawning with POSIX_SPAWN_SETSID alone changes no keyring).
    @Test func thePassphraseChosenIsAskedOnceAcrossThreeCommands() throws {
        let intake = IntakeProcess()
        let person = Self.person(intake, unlockMinutes: 30)
        func command(_ arguments: [String]) throws -> PseudoTerminal {
            try SessionKeyring.revoked { try PseudoTerminal(arguments: arguments, environment: person) }
        }
        defer { _ = try? command(["key", "lock"]).wait() }

        // A new store: the passphrase is chosen (typed twice) before the form.
        let first = try command(["fill"])
        #expect(first.read { $0.contains("New passphrase: ") }, "\(first.text)")
        first.type("correct horse battery\r")
        #expect(first.read { $0.contains("Type it again: ") }, "\(first.text)")
        first.type("correct horse battery\r")
        #expect(first.prompt(1), "the form starts once the passphrase is chosen: \(first.text)")
        first.type("Amina\r")
        #expect(first.prompt(2), "\(first.text)")
        first.type(":quit\r")
        #expect(first.wait() == 0, "\(first.text)")
        #expect(first.text.contains("Draft saved."), "\(first.text)")

        // The next two commands of the session read the sealed drafts without asking.
        let second = try command(["drafts", "list"])
        #expect(!second.read { $0.contains("Passphrase") }, "asked again right after it was chosen: \(second.text)")
        #expect(second.wait() == 0, "\(second.text)")
        let listed = second.text.components(separatedBy: .whitespacesAndNewlines).contains { $0.count == 8 && $0.allSatisfy(\.isHexDigit) }
        #expect(listed, "\(second.text)")
        let third = try command(["fill", "--resume"])
        #expect(third.prompt(1), "\(third.text)")
        #expect(!third.text.contains("Passphrase"), "kept unlocked for the session: \(third.text)")
        third.type(":quit\r")
        #expect(third.wait() == 0, "\(third.text)")

        // Locked from the same session: the next command asks again (and the passphrase opens it).
        let lock = try command(["key", "lock"])
        #expect(lock.wait() == 0, "\(lock.text)")
        #expect(lock.text.contains("Locked"), "the key kept was found and forgotten: \(lock.text)")
        let fourth = try command(["drafts", "list"])
        #expect(fourth.read { $0.contains("Passphrase of the local store: ") }, "locked: \(fourth.text)")
        fourth.type("correct horse battery\r")
        #expect(fourth.wait() == 0, "\(fourth.text)")
    }

    @Test func arrowKeysEditAnAnswerAndPastedEscapesNeverReachIt() throws {
        let intake = IntakeProcess()
        let terminal = try PseudoTerminal(arguments: ["fill"], environment: Self.kiosk(intake))
        #expect(terminal.prompt(1), "\(terminal.text)")
        // Lyla, two steps left, an X: LyXla; then Home and an "A": ALyXla.
        terminal.type("Lyla\u{1B}[D\u{1B}[DX\u{1B}[HA\r")
        #expect(terminal.prompt(2), "\(terminal.text)")
        // A pasted name carrying a colour escape goes in as its text only.
        terminal.type("\u{1B}[200~Had\u{1B}[31mdad\u{1B}[201~\r")
        #expect(terminal.prompt(3), "\(terminal.text)")
        // Up brings back an earlier answer of this form, which can be edited.
        terminal.type("\u{1B}[A\u{1B}[A\u{7F}\u{7F}\r")
        #expect(terminal.prompt(4))
        terminal.type(":quit\r")
        #expect(terminal.wait() == 0, "\(terminal.text)")
        let drafts = try intake.run(["drafts", "list"])
        let words = drafts.stdout.components(separatedBy: .whitespacesAndNewlines)
        let id = try #require(words.first { $0.count == 8 && $0.allSatisfy(\.isHexDigit) }, "\(drafts.stdout)")
        let shown = try intake.run(["drafts", "show", id]).stdout
        #expect(shown.contains("\"givenName\": \"ALyXla\""), "\(shown)")
        #expect(shown.contains("\"familyName\": \"Haddad\""), "\(shown)")
        #expect(!shown.contains("\\u001b") && !shown.contains("[31m"), "\(shown)")
    }

    @Test func aLineLongerThanTheTerminalScrollsSidewaysAndIsKeptWhole() throws {
        let intake = IntakeProcess()
        let terminal = try PseudoTerminal(arguments: ["fill"], environment: Self.kiosk(intake))
        #expect(terminal.prompt(1), "\(terminal.text)")
        // 150 letters on an 80-column terminal, then an edit at its start (Home, then a letter).
        let long = String(repeating: "abcdefghij", count: 15)
        terminal.type(long)
        terminal.type("\u{1B}[HZ\r")
        #expect(terminal.prompt(2), "\(terminal.text)")
        terminal.type(":quit\r")
        #expect(terminal.wait() == 0, "\(terminal.text)")
        // No drawing of the line is wider than the terminal, so none wraps.
        let drawings = terminal.output.components(separatedBy: .newlines).map {
            $0.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z~]", with: "", options: .regularExpression)
        }.filter { $0.hasPrefix("> ") }
        #expect(drawings.count > 100 && drawings.allSatisfy { $0.count < 80 }, "\(drawings.filter { $0.count >= 80 })")
        let drafts = try intake.run(["drafts", "list"])
        let id = try #require(
            drafts.stdout.components(separatedBy: .whitespacesAndNewlines).first { $0.count == 8 && $0.allSatisfy(\.isHexDigit) })
        #expect(try intake.run(["drafts", "show", id]).stdout.contains("\"givenName\": \"Z\(long)\""))
    }

    /// A server that accepts connections and never answers: its socket (to close) and port.
    static func stalledServer() -> (socket: Int32, port: UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = TestPorts.loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        listen(listener, 16)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// `intake fill` in a kiosk's store, sending to the server on `port` with a timeout of `timeout` seconds.
    static func fill(against port: UInt16, timeout: Int, intake: IntakeProcess = IntakeProcess()) throws -> PseudoTerminal {
        try PseudoTerminal(
            arguments: ["fill", "--server", "http://127.0.0.1:\(port)", "--token", "t", "--timeout", String(timeout)],
            environment: kiosk(intake))
    }

    @Test func ctrlCWhileSendingKeepsTheRecordQueuedAndSaysSo() throws {
        let (listener, port) = Self.stalledServer()
        defer { close(listener) }
        let intake = IntakeProcess()
        let terminal = try Self.fill(against: port, timeout: 60, intake: intake)
        for (index, answer) in (Answers.all + [":finish"]).enumerated() {
            #expect(terminal.prompt(index + 1), "prompt \(index + 1): \(terminal.text.suffix(400))")
            terminal.type(answer + "\r")
        }
        #expect(terminal.read { $0.contains("Ctrl-C keeps it offline") }, "\(terminal.text.suffix(600))")
        terminal.type("\u{03}")
        #expect(terminal.wait() == 130, "\(terminal.text.suffix(600))")
        #expect(terminal.text.contains("Stopped sending. The record is kept, encrypted, in the queue"), "\(terminal.text.suffix(600))")
        let status = try intake.run(["status"])
        #expect(status.stdout.contains("1 record waits to be sent"), "\(status.stdout)")
    }

    /// Once a server is set, the form's questions come to be read on the dispatch pool's threads,
    /// which block signals: Ctrl-C there must still interrupt (it was read as the input ending).
    @Test func ctrlCAfterAWhileWithAServerSetStillInterrupts() throws {
        let (listener, port) = Self.stalledServer()
        defer { close(listener) }
        let terminal = try Self.fill(against: port, timeout: 30)
        #expect(terminal.prompt(1), "\(terminal.text)")
        terminal.type(Answers.all[0] + "\r")
        #expect(terminal.prompt(2), "\(terminal.text)")
        // The moment that once lost Ctrl-C: the form reading the terminal on a pool thread (whose
        // signals are blocked), looked for in /proc rather than waited for.
        let deadline = Date().addingTimeInterval(60)
        while !Self.readsOffTheMainThread(terminal.pid), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(Self.readsOffTheMainThread(terminal.pid), "the form reads the terminal on a pool thread")
        terminal.type("\u{03}")
        #expect(terminal.wait() == 130, "\(terminal.text.suffix(600))")
        #expect(terminal.text.contains("Interrupted. Every answer given so far is saved"), "\(terminal.text.suffix(600))")
    }

    /// Whether a thread of `pid` other than its main one waits in read(2) (`/proc`: the system
    /// call each thread waits in): the form reading the terminal on a pool thread.
    static func readsOffTheMainThread(_ pid: pid_t) -> Bool {
        #if arch(x86_64)
            let readCall = "0"
        #else
            let readCall = "63"
        #endif
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            guard task != String(pid), let call = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8) else {
                return false
            }
            // "0 0x0 …": read(2) on file descriptor 0, the terminal.
            let fields = call.split(separator: " ")
            return fields.first.map(String.init) == readCall && fields.dropFirst().first == "0x0"
        }
    }

    @Test func aStalledServerReleasesTheFormWithinTheTimeout() throws {
        let (listener, port) = Self.stalledServer()
        defer { close(listener) }
        let terminal = try Self.fill(against: port, timeout: 2)
        for (index, answer) in (Answers.all + [":finish"]).enumerated() {
            #expect(terminal.prompt(index + 1), "prompt \(index + 1): \(terminal.text.suffix(400))")
            terminal.type(answer + "\r")
        }
        let finished = Date()
        #expect(terminal.read(seconds: 15) { $0.contains("Saved offline") }, "\(terminal.text.suffix(600))")
        let waited = Date().timeIntervalSince(finished)
        #expect(waited < 4.5, "held \(waited) s with --timeout 2")
        #expect(terminal.text.contains("Sending to 127.0.0.1"), "the screen says what it is doing: \(terminal.text.suffix(600))")
        #expect(terminal.wait() == 0)
    }
}

/// How commands end: a mistaken command line shows the usage (64); anything else is one line
/// saying what happened (1); a reader that goes away ends the output quietly.
struct CommandEndingTests {
    @Test func aRuntimeErrorIsOneLineAndExit1AndAMistakenCommandLineShowsTheUsage() throws {
        let intake = IntakeProcess()
        // Nothing listens there: a runtime failure, not a mistaken command line.
        let login = try intake.run(
            ["login", "--server", "http://127.0.0.1:9", "--username", "ana", "--password-stdin"], input: ["password"])
        #expect(login.status == 1, "\(login.stderr)")
        #expect(login.stderr.hasPrefix("Error: Could not sign in") && !login.stderr.contains("Usage:"), "\(login.stderr)")
        let mistaken = try intake.run(["fill", "--langauge", "ar"])
        #expect(mistaken.status == 64 && mistaken.stderr.contains("Usage:"), "\(mistaken.stderr)")
        #expect(mistaken.stderr.contains("Did you mean '--language'?") && !mistaken.stderr.contains("--resume ar"), "\(mistaken.stderr)")
    }

    @Test func aClosedPipeEndsTheOutputQuietly() throws {
        let intake = IntakeProcess()
        let process = intake.process(["sample", "--count", "2000"])
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read a little, as `head -3` would, and go away.
        _ = output.fileHandleForReading.readData(ofLength: 64)
        try output.fileHandleForReading.close()
        #expect(IntakeProcess.waitForExit(process, seconds: 20))
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(complaint.isEmpty, "no error, no stack trace: \(complaint)")
        #expect(
            process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGPIPE,
            "ended as the pipe's signal ends other tools")
    }
}

/// The small things of a field worker's day.
@Suite(.serialized)
struct DailyCommandTests {
    @Test func quittingBeforeTypingAnythingLeavesNoDraft() throws {
        let intake = IntakeProcess()
        let quit = try intake.run(["fill"], input: [":quit"])
        #expect(quit.status == 0 && quit.stdout.contains("Nothing was typed; no draft was kept."), "\(quit.stdout)")
        let ended = try intake.run(["fill"], input: [])
        #expect(ended.status == 3 && ended.stderr.contains("no draft was kept"), "\(ended.stderr)")
        #expect(try intake.run(["drafts", "list"]).stdout.contains("No drafts."))
        // Something typed is kept, as before.
        #expect(try intake.run(["fill"], input: ["Amina", ":quit"]).stdout.contains("Draft saved."))
        #expect(try intake.run(["status"]).stdout.contains("1 unfinished draft"))
    }

    @Test func statusSaysWhatWaitsAndAQueuedRecordCanBeDiscarded() throws {
        let intake = IntakeProcess()
        // Finished with no server: queued.
        #expect(try intake.run(["fill"], input: Answers.all + [":finish"]).status == 0)
        #expect(try intake.run(["fill"], input: Answers.all + [":finish"]).status == 0)
        let status = try intake.run(["status"])
        #expect(status.status == 0 && status.stdout.contains("2 records wait to be sent: run 'intake flush'."), "\(status.stdout)")
        #expect(status.stdout.contains("Not signed in"), "\(status.stdout)")
        let list = try intake.run(["queue", "list"]).stdout
        let id = try #require(list.components(separatedBy: .whitespacesAndNewlines).first { $0.count == 8 && $0.allSatisfy(\.isHexDigit) })
        let refused = try intake.run(["queue", "discard", id])
        #expect(refused.status == 1 && refused.stderr.contains("--yes"), "no terminal to confirm on: \(refused.stderr)")
        let discarded = try intake.run(["queue", "discard", id, "--yes"])
        #expect(discarded.status == 0 && discarded.stdout.contains("Discarded \(id)"), "\(discarded.stdout)\(discarded.stderr)")
        #expect(try intake.run(["status"]).stdout.contains("1 record waits to be sent"))
        let unknown = try intake.run(["queue", "discard", "ffffffff", "--yes"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no record here has an id starting with 'ffffffff'"), "\(unknown.stderr)")
    }

    @Test func aBusyPortIsOneClearLine() throws {
        let intake = IntakeProcess()
        let (first, port) = try intake.startServer()
        defer { first.terminate() }
        var second = IntakeProcess()
        second.serverDatabase = intake.dataDirectory.appendingPathComponent("other.sqlite").path
        let busy = try second.run(["serve", "--port", "\(port)"])
        #expect(busy.status == 1, "\(busy.stdout)\(busy.stderr)")
        #expect(busy.stderr.contains("port \(port) of 127.0.0.1 is in use by another program"), "\(busy.stderr)")
        #expect(!busy.stdout.contains("Serving on") && !busy.stderr.contains("errno"), "\(busy.stdout)\(busy.stderr)")
    }
}

/// A cheap field laptop's disk fills up: the form says so at the prompt, keeps the answers in
/// memory, damages nothing saved, and goes on once there is room again.
@Suite(.serialized)
struct FullDiskCommandTests {
    /// Runs `intake <command> --server url --token token` under a 32 KiB file size limit (so the
    /// store cannot grow); its exit status and standard error.
    static func runWithFullDisk(_ intake: IntakeProcess, _ command: String, url: String, token: String) throws -> (Int32, String) {
        let process = intake.process([])
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "ulimit -S -f 64; exec \"$0\" \"$1\" --server \"$2\" --token \"$3\"", IntakeProcess.binary.path, command, url, token,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        #expect(IntakeProcess.waitForExit(process, seconds: 60))
        return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// A flush that cannot write to the store after the server took the records says so and keeps
    /// them queued; the next flush finds them already on the server: nothing lost, nothing twice.
    @Test func aFlushOnAFullDiskKeepsTheQueueAndTheNextOneFinishesIt() throws {
        var intake = IntakeProcess()
        let cora = try intake.prepareServerWithCoordinator()
        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        intake.environment["INTAKE_COLLECTOR"] = "cora"
        for _ in 0..<3 { #expect(try intake.run(["fill"], input: Answers.all + [":finish"]).status == 0) }
        let url = "http://127.0.0.1:\(port)"
        let (status, complaint) = try Self.runWithFullDisk(intake, "flush", url: url, token: cora)
        #expect(status == 1 && complaint.contains("the disk cannot take more"), "\(complaint)")
        #expect(try intake.run(["status"]).stdout.contains("3 records wait to be sent"), "still queued")
        let again = try intake.run(["flush", "--server", url, "--token", cora])
        #expect(again.status == 0 && again.stdout.contains("Already on the server: 3"), "\(again.stdout)\(again.stderr)")
        #expect(try intake.run(["status"]).stdout.contains("Nothing waits to be sent."))
        let revisions = try intake.serverRevisionsById()
        #expect(revisions.count == 3 && revisions.values.allSatisfy { $0 == 1 }, "each record once: \(revisions)")
    }

    /// A sync that cannot write its copy says so; the copy it had is still there, and the next
    /// sync, with room again, brings the whole team.
    @Test func aSyncOnAFullDiskSaysSoKeepsTheCopyAndTheNextOneCatchesUp() throws {
        var intake = IntakeProcess()
        let cora = try intake.prepareServerWithCoordinator()
        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        intake.environment["INTAKE_COLLECTOR"] = "cora"
        let url = "http://127.0.0.1:\(port)"
        let online = ["--server", url, "--token", cora]
        #expect(try intake.run(["fill"] + online, input: Answers.all + [":finish"]).status == 0)
        let first = try intake.run(["sync"] + online)
        #expect(first.status == 0 && first.stdout.contains("holds 1 record(s)"), "\(first.stdout)\(first.stderr)")
        // Forty more records on the server: more than the store may grow by under the limit.
        for _ in 0..<40 { #expect(try intake.run(["fill"] + online, input: Answers.all + [":finish"]).status == 0) }
        let (status, complaint) = try Self.runWithFullDisk(intake, "sync", url: url, token: cora)
        #expect(status == 1 && complaint.contains("the disk cannot take more"), "\(complaint)")
        #expect(!complaint.contains("Fatal") && complaint.split(separator: "\n").count <= 2, "one clear line: \(complaint)")
        // What was synced before is still there and readable.
        let offline = try intake.run(["lookup", "--offline", "--family-name", "HADDAD"], input: [":quit"])
        #expect(offline.stdout.contains("synced copy of team"), "\(offline.stdout)\(offline.stderr)")
        let again = try intake.run(["sync"] + online)
        #expect(again.status == 0 && again.stdout.contains("holds 41 record(s)"), "\(again.stdout)\(again.stderr)")
    }

    @Test func aFullDiskKeepsTheAnswersInMemoryAndTheFormGoesOnWhenThereIsRoom() throws {
        let intake = IntakeProcess()
        #expect(try intake.run(["fill"], input: ["Amina", ":quit"]).status == 0)
        // The store can no longer grow: a (soft) file size limit of 32 KiB on the process.
        let process = intake.process([])
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -S -f 64; exec \"$0\" fill --resume", IntakeProcess.binary.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let log = LogBuffer()
        output.fileHandleForReading.readabilityHandler = { log.append($0.availableData) }
        try process.run()
        func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }
        func wait(for text: String, after count: Int = 0) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if log.text.components(separatedBy: text).count - 1 > count { return true }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
        // Each line once the form has answered the one before (saved it and asked the next
        // question), until the store refuses one (a save writes a few pages of the log: it takes
        // some answers to reach the limit). Each answer has what `drafts show` then says of it.
        let lines = [
            ("Haddad", "\"familyName\": \"Haddad\""), ("1990-05-01", "\"dateOfBirth\": \"1990-05-01\""), ("f", "\"sex\": \"female\""),
            ("CASE-9", "\"externalId\": \"CASE-9\""), ("SY", "\"SY\""), ("syr", "\"syr\""), ("arabic", "\"arabic\""),
        ]
        var sent = 0
        for (line, _) in lines {
            let before = log.text.count
            send(line)
            sent += 1
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, !log.text.contains("Could not save"), log.text.count == before {
                Thread.sleep(forTimeInterval: 0.02)
            }
            Thread.sleep(forTimeInterval: 0.1)
            if log.text.contains("Could not save") { break }
        }
        #expect(wait(for: "Could not save the draft"), "\(log.text)")
        #expect(log.text.contains("kept here, in memory"), "\(log.text)")
        send(":quit")
        #expect(wait(for: "The draft cannot be saved yet, so the form stays open"), "\(log.text)")
        // Room again: the limit lifted from outside, as freeing space would.
        let lift = Process()
        lift.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        lift.arguments = ["--pid", "\(process.processIdentifier)", "--fsize=unlimited"]
        try lift.run()
        lift.waitUntilExit()
        send(":quit")
        #expect(wait(for: "Draft saved."), "\(log.text)")
        #expect(IntakeProcess.waitForExit(process, seconds: 20))
        #expect(process.terminationStatus == 0, "\(log.text)")
        #expect(log.text.contains("Saved again: every answer so far is on disk."), "\(log.text)")
        let drafts = try intake.run(["drafts", "list"]).stdout
        let id = try #require(
            drafts.components(separatedBy: .whitespacesAndNewlines).first { $0.count == 8 && $0.allSatisfy(\.isHexDigit) })
        let shown = try intake.run(["drafts", "show", id]).stdout
        // Every answer sent, the one the full disk refused (held in memory) included.
        for (_, said) in lines.prefix(sent) { #expect(shown.contains(said), "\(said) in \(shown)") }
        #expect(shown.contains("\"givenName\": \"Amina\""), "what was saved before is intact")
    }
}
