import Foundation
import IntakeTerminal

/// Where a command's report goes: lines for the person, and problems (standard error on a terminal).
public protocol FieldOutput: AnyObject {
    func write(_ text: String)
    func writeError(_ text: String)
}

/// Standard output and standard error.
public final class StandardOutput: FieldOutput {
    public init() {}

    public func write(_ text: String) {
        Console.out(TerminalText.escaped(text, lines: true) + "\n")
    }

    public func writeError(_ text: String) {
        Console.error(TerminalText.escaped(text, lines: true) + "\n")
    }
}
