import Foundation

/// One line of a section file, split into its text and `|`-separated annotations.
///
/// `Do you have a cough? | id: cough | yesno | required | help: Any cough counts`
struct QuestionLine {
    struct Segment {
        var text: String
        /// The column of the segment's first non-blank character.
        var column: Int
    }

    enum Kind {
        case blank
        /// `@title Demographics`.
        case directive(name: String, value: String, column: Int)
        case question(text: Segment, annotations: [Segment])
    }

    /// Splits a line; `\|` stands for a literal bar, and a leading `\#` or `\@` for those characters.
    static func split(_ line: String) -> Kind {
        let trimmed = line.trimmingSpaces()
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return .blank }
        if trimmed.hasPrefix("@") {
            let body = trimmed.dropFirst()
            let name = body.prefix { !$0.isWhitespace }
            let value = body.dropFirst(name.count).trimmingSpaces()
            let column = (line.distance(from: line.startIndex, to: line.firstIndex(of: "@")!)) + 1
            return .directive(name: String(name), value: value, column: column)
        }
        var segments: [Segment] = []
        var current = ""
        var start: Int?
        var column = 0
        var chars = Array(line)[...]
        while let c = chars.popFirst() {
            column += 1
            if c == "\\", let next = chars.first, next == "|" || next == "#" || next == "@" {
                chars.removeFirst()
                if start == nil { start = column }
                current.append(next)
                column += 1
            } else if c == "|" {
                segments.append(Segment(text: current.trimmingSpaces(), column: start ?? column))
                current = ""
                start = nil
            } else {
                if start == nil, !c.isWhitespace { start = column }
                current.append(c)
            }
        }
        segments.append(Segment(text: current.trimmingSpaces(), column: start ?? column + 1))
        return .question(text: segments[0], annotations: Array(segments.dropFirst()))
    }
}
