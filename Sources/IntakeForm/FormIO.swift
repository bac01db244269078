import Foundation

/// Where a form reads its input and writes its questions: a terminal, a pipe, or a test.
public protocol FormIO: AnyObject {
    /// Writes text followed by a line break.
    func write(_ text: String)
    /// Shows `prompt` and reads one line without its line break; nil at the end of input.
    func readLine(prompt: String) -> String?
}

/// Standard input and output. When input is piped, each line read is echoed after its prompt so
/// that a transcript reads like the typed session.
public final class StandardIO: FormIO {
    private let echoInput: Bool

    public init(echoInput: Bool = isatty(STDIN_FILENO) == 0) {
        self.echoInput = echoInput
    }

    public func write(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    public func readLine(prompt: String) -> String? {
        FileHandle.standardOutput.write(Data(prompt.utf8))
        guard let line = Swift.readLine(strippingNewline: true) else {
            FileHandle.standardOutput.write(Data("\n".utf8))
            return nil
        }
        if echoInput { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }
}
