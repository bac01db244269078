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
    let errorBidi: BidiMode

    public init(rightToLeft: Bool = false) {
        let environment = ProcessInfo.processInfo.environment
        self.rightToLeft = rightToLeft
        bidi = .from(environment: environment)
        errorBidi = .from(environment: environment, terminal: isatty(STDERR_FILENO) == 1)
    }

    public func write(_ text: String) {
        Console.out(TerminalText.shown(text, bidi: bidi, rightToLeft: rightToLeft) + "\n")
    }

    public func writeError(_ text: String) {
        Console.error(TerminalText.shown(text, bidi: errorBidi, rightToLeft: rightToLeft, fd: STDERR_FILENO) + "\n")
    }
}
