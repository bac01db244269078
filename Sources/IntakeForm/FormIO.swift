import Foundation
import IntakeTerminal

/// Where a form reads its input and writes its questions: a terminal, a pipe, or a test.
public protocol FormIO: AnyObject {
    /// Writes text followed by a line break.
    func write(_ text: String)
    /// Shows `prompt` and reads one line without its line break; nil at the end of input.
    func readLine(prompt: String) -> String?
    /// Told when the form's language is written right to left (Arabic), so lines are laid out
    /// for the terminal (``BidiText``).
    func setRightToLeft(_ rightToLeft: Bool)
}

extension FormIO {
    public func setRightToLeft(_ rightToLeft: Bool) {}
}

/// Standard input and output. On a terminal, lines are read with a line editor (``LineEditor``:
/// arrow keys, Home/End, this form's earlier answers, paste). When input is piped, each line read
/// is echoed after its prompt so that a transcript reads like the typed session.
public final class StandardIO: FormIO {
    private let echoInput: Bool
    private let editor: LineEditor?
    /// How right-to-left lines reach this terminal (`INTAKE_BIDI`, see ``BidiMode``).
    public let bidi: BidiMode
    private var rightToLeft = false

    public init(
        echoInput: Bool = isatty(STDIN_FILENO) == 0, editing: Bool = LineEditor.isAvailable,
        bidi: BidiMode = .from(environment: ProcessInfo.processInfo.environment)
    ) {
        self.echoInput = echoInput
        self.bidi = bidi
        editor = editing ? LineEditor() : nil
        editor?.bidi = bidi
    }

    public func setRightToLeft(_ rightToLeft: Bool) {
        self.rightToLeft = rightToLeft
        editor?.rightToLeft = rightToLeft
    }

    public func write(_ text: String) {
        Console.out(TerminalText.shown(text, bidi: bidi, rightToLeft: rightToLeft) + "\n")
    }

    public func readLine(prompt: String) -> String? {
        let prompt = BidiText.render(prompt, mode: bidi, rightToLeft: rightToLeft)
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
