import Foundation
import Testing

/// `intake fill --language ar` as an Arabic-speaking field worker sees it, in a real
/// pseudo-terminal: the screen matches the captures in `Tests/Captures`, laid out for a terminal
/// without bidi (tmux, the Linux console) and marked for one with it (GNOME Terminal, Konsole).
///
/// A capture is the terminal's text with escape sequences removed and the record's id and the
/// questionnaire's version replaced by placeholders. After a deliberate change of wording, run
/// with `INTAKE_UPDATE_CAPTURES=1` to write them again, and read the difference before committing.
@Suite(.serialized)
struct ArabicScreenTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Captures")

    /// The first screens of a new record: the title, the patient section, one answer, a wrong
    /// one explained, `:help`, and `:quit`.
    func screen(bidi: String, term: String = "xterm-256color", extra: [String: String] = [:]) throws -> String {
        let intake = IntakeProcess()
        var environment = TerminalCommandTests.kiosk(intake)
        environment["INTAKE_BIDI"] = bidi
        environment["TERM"] = term
        environment.merge(extra) { $1 }
        let terminal = try PseudoTerminal(arguments: ["fill", "--language", "ar"], environment: environment)
        #expect(terminal.prompt(1), "\(terminal.text)")
        terminal.type("ليلى\r")
        #expect(terminal.prompt(2), "\(terminal.text)")
        terminal.type("الأحمد\r")
        #expect(terminal.prompt(3), "\(terminal.text)")
        terminal.type("١٩٩٠-٠٥-٠١\r")
        #expect(terminal.prompt(4), "\(terminal.text)")
        terminal.type("x\r")
        #expect(terminal.prompt(5), "\(terminal.text)")
        terminal.type("أنثى\r")
        #expect(terminal.prompt(6), "\(terminal.text)")
        terminal.type(":help\r")
        #expect(terminal.prompt(7), "\(terminal.text)")
        terminal.type(":quit\r")
        #expect(terminal.wait() == 0, "\(terminal.text)")
        return terminal.text
            .replacing(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, with: "<record>")
            .replacing(/--resume [0-9a-f]{8}/, with: "--resume <id>")
            .replacing(/\b[0-9a-f]{16}\b/, with: "<version>")
    }

    func check(_ screen: String, against name: String) throws {
        let file = Self.captures.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["INTAKE_UPDATE_CAPTURES"] == "1" {
            try screen.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        let (got, want) = (screen.components(separatedBy: "\n"), expected.components(separatedBy: "\n"))
        for (index, (line, wanted)) in zip(got, want).enumerated() where line != wanted {
            Issue.record("\(name) line \(index + 1):\n  got:  \(line)\n  want: \(wanted)")
            return
        }
        #expect(got.count == want.count, "\(name): \(got.count) lines, the capture has \(want.count)")
    }

    @Test func aTerminalWithoutBidiShowsArabicInDisplayOrderAndJoined() throws {
        let screen = try screen(bidi: "reorder")
        // The title's first word, الفحص, joined (alef, lam, feh, hah, sad) and in display order.
        #expect(screen.contains("\u{FEBA}\u{FEA4}\u{FED4}\u{FEDF}\u{FE8D}"), "\(screen)")
        try check(screen, against: "fill-ar-reorder.txt")
    }

    @Test func tmuxGetsTheLayoutWithoutBeingAsked() throws {
        let screen = try screen(bidi: "", term: "screen-256color", extra: ["TMUX": "/tmp/tmux-1000/default,1,0"])
        try check(screen, against: "fill-ar-reorder.txt")
    }

    @Test func aTerminalWithBidiGetsMarkedLines() throws {
        let screen = try screen(bidi: "marks")
        #expect(screen.contains("\u{200F}── بيانات المريض ──"), "\(screen)")
        try check(screen, against: "fill-ar-marks.txt")
    }
}

/// A person whose language is Arabic (`INTAKE_LANGUAGE=ar`): fill picks the Arabic translation by
/// itself, and the passphrase prompt, Ctrl-C and the daily summaries speak Arabic too.
@Suite(.serialized)
struct ArabicCommandTests {
    @Test func thePassphrasePromptAndCtrlCSpeakTheLanguage() throws {
        let intake = IntakeProcess()
        var environment = TerminalCommandTests.person(intake)
        environment["INTAKE_LANGUAGE"] = "ar"
        environment["INTAKE_BIDI"] = "off"
        let terminal = try PseudoTerminal(arguments: ["fill"], environment: environment)
        #expect(terminal.read { $0.contains("عبارة المرور الجديدة: ") }, "\(terminal.text)")
        #expect(terminal.text.contains("لا يمكن استعادتها"), "the person is told before choosing it: \(terminal.text)")
        terminal.type("secret")
        terminal.type("\u{03}")
        #expect(terminal.wait() == 130, "\(terminal.text)")
        #expect(terminal.text.contains("أُلغي؛ لم يتغير شيء."), "\(terminal.text)")
    }

    @Test func fillStatusAndFlushSayTheirSummariesInArabic() throws {
        var intake = IntakeProcess()
        intake.environment["INTAKE_LANGUAGE"] = "ar"
        intake.environment["INTAKE_BIDI"] = "off"
        // Piped, with no --language: the questionnaire has Arabic, so the form is in Arabic.
        let fill = try intake.run(["fill"], input: ["ليلى", "الأحمد", "", "ذكر", "", ":quit"])
        #expect(fill.stdout.contains("── بيانات المريض ──"), "\(fill.stdout)")
        #expect(fill.stdout.contains("حُفظت المسودة."), "\(fill.stdout)")
        let status = try intake.run(["status"])
        #expect(status.stdout.contains("لا شيء ينتظر الإرسال."), "\(status.stdout)")
        #expect(status.stdout.contains("مسودات غير مكتملة: 1."), "\(status.stdout)")
        intake.environment["INTAKE_LANGUAGE"] = "en"
        #expect(try intake.run(["status"]).stdout.contains("Nothing waits to be sent."))
    }
}
