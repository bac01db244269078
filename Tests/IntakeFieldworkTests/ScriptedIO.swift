import IntakeFieldwork
import IntakeForm

/// Feeds typed lines to a session and records everything it writes.
final class ScriptedIO: FormIO, FieldOutput {
    private var lines: [String]
    private(set) var output: [String] = []
    private(set) var errors: [String] = []

    init(_ lines: [String] = []) {
        self.lines = lines
    }

    var transcript: String { output.joined(separator: "\n") }

    func write(_ text: String) {
        output.append(text)
    }

    func writeError(_ text: String) {
        errors.append(text)
    }

    func readLine(prompt: String) -> String? {
        guard !lines.isEmpty else { return nil }
        let line = lines.removeFirst()
        output.append(prompt + line)
        return line
    }
}
