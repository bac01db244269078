import IntakeForm

/// Feeds typed lines to a form and records everything it writes.
final class ScriptedIO: FormIO {
    private var lines: [String]
    private(set) var output: [String] = []

    init(_ lines: [String]) {
        self.lines = lines
    }

    var transcript: String { output.joined(separator: "\n") }

    func write(_ text: String) {
        output.append(text)
    }

    func readLine(prompt: String) -> String? {
        guard !lines.isEmpty else { return nil }
        let line = lines.removeFirst()
        output.append(prompt + line)
        return line
    }
}
