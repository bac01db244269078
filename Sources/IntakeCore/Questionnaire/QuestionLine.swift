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
        // Columns count characters, as a person sees them; a segment's text is copied a run of
        // plain characters at a time (escapes end a run), not character by character. A
        // character is told apart by its first byte when it is that one byte: comparing
        // characters goes through Unicode's normalization for every letter that is not ASCII.
        let bytes = line.utf8
        func single(_ index: String.Index, _ after: String.Index) -> UInt8? {
            bytes.index(after: index) == after ? bytes[index] : nil
        }
        var segments: [Segment] = []
        var current = ""
        var start: Int?
        var column = 0
        var run = line.startIndex
        var index = line.startIndex
        while index < line.endIndex {
            let after = line.index(after: index)
            let byte = single(index, after)
            column += 1
            if byte == UInt8(ascii: "\\"), after < line.endIndex, case let afterNext = line.index(after: after),
                let next = single(after, afterNext), next == UInt8(ascii: "|") || next == UInt8(ascii: "#") || next == UInt8(ascii: "@")
            {
                current += line[run..<index]
                if start == nil { start = column }
                current.append(Character(Unicode.Scalar(next)))
                column += 1
                index = afterNext
                run = index
            } else if byte == UInt8(ascii: "|") {
                current += line[run..<index]
                segments.append(Segment(text: current.trimmingSpaces(), column: start ?? column))
                current = ""
                start = nil
                index = after
                run = index
            } else {
                if start == nil, !(byte.map { $0 == 0x20 || (0x09...0x0D).contains($0) } ?? line[index].isWhitespace) { start = column }
                index = after
            }
        }
        current += line[run..<line.endIndex]
        segments.append(Segment(text: current.trimmingSpaces(), column: start ?? column + 1))
        return .question(text: segments[0], annotations: Array(segments.dropFirst()))
    }
}
