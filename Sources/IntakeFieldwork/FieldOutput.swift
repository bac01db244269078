import Foundation
import IntakeTerminal

/// Where a command's report goes: lines for the person, and problems (standard error on a terminal).
public protocol FieldOutput: AnyObject {
    func write(_ text: String)
    func writeError(_ text: String)
}

/// Standard output and standard error; right-to-left lines laid out for the terminal (``BidiText``).
public final class StandardOutput: FieldOutput {
    let rightToLeft: Bool
    let bidi: BidiMode

    public init(rightToLeft: Bool = false, bidi: BidiMode = .from(environment: ProcessInfo.processInfo.environment)) {
        self.rightToLeft = rightToLeft
        self.bidi = bidi
    }

    public func write(_ text: String) {
        Console.out(BidiText.render(TerminalText.escaped(text, lines: true), mode: bidi, rightToLeft: rightToLeft, width: TerminalSize.columns(STDOUT_FILENO)) + "\n")
    }

    public func writeError(_ text: String) {
        Console.error(BidiText.render(TerminalText.escaped(text, lines: true), mode: bidi, rightToLeft: rightToLeft, width: TerminalSize.columns(STDERR_FILENO)) + "\n")
    }
}
