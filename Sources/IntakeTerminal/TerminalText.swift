/// Text on its way to or from a terminal: what may be stored from a prompt, and how text from
/// elsewhere (the server, a file) is shown without letting it drive the terminal.
public enum TerminalText {
    /// Whether `scalar` is a control character a terminal would act on: C0 (but tab and line
    /// feed), DEL, C1, and the bidirectional overrides and isolates that reorder what follows.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether `text` holds any control character a terminal would act on.
    public static func hasControls(_ text: String) -> Bool { text.unicodeScalars.contains(where: isControl) }

    /// `text` made safe to print: each control character (and, unless `lines`, each line break
    /// and tab) shown as its escape, such as `\u{1B}`, so nothing typed or stored elsewhere can
    /// move the cursor, change colours or rewrite the screen.
    public static func escaped(_ text: String, lines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || (!lines && ($0 == "\n" || $0 == "\t")) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) || (!lines && (scalar == "\n" || scalar == "\t")) {
                let shown: String
                switch scalar {
                case "\n": shown = "\\n"
                case "\t": shown = "\\t"
                case "\r": shown = "\\r"
                default: shown = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                }
                out.append(contentsOf: shown.unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
