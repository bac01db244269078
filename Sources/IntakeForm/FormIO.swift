import Foundation
import IntakeTerminal

/// Where a form reads its input and writes its questions: a terminal, a pipe, or a test.
public protocol FormIO: AnyObject {
    /// Writes text followed by a line break.
    func write(_ text: String)
    /// Shows `prompt` and reads one line without its line break; nil at the end of input.
    func readLine(prompt: String) -> String?
}

/// Standard input and output. On a terminal, lines are read with a line editor (``LineEditor``:
/// arrow keys, Home/End, this form's earlier answers, paste). When input is piped, each line read
/// is echoed after its prompt so that a transcript reads like the typed session.
public final class StandardIO: FormIO {
    private let echoInput: Bool
    private let editor: LineEditor?

    public init(echoInput: Bool = isatty(STDIN_FILENO) == 0, editing: Bool = LineEditor.isAvailable) {
        self.echoInput = echoInput
        editor = editing ? LineEditor() : nil
    }

    public func write(_ text: String) {
        Console.out(TerminalText.escaped(text, lines: true) + "\n")
    }

    public func readLine(prompt: String) -> String? {
        if let editor {
            guard let line = editor.readLine(prompt: prompt) else { return nil }
            if !line.isEmpty, editor.history.last != line { editor.history.append(line) }
            return line
        }
        Console.out(prompt)
        guard let line = Swift.readLine(strippingNewline: true) else {
            Console.out("\n")
            return nil
        }
        if echoInput { Console.out(line + "\n") }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }
}
