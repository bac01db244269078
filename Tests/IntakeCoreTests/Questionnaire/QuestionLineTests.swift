import Testing

@testable import IntakeCore

struct QuestionLineTests {
    @Test func columnsCountCharactersAsAPersonSeesThem() {
        guard case .question(let text, let annotations) = QuestionLine.split("  هل تسعل؟ | id: cough |  yesno") else {
            Issue.record("expected a question")
            return
        }
        #expect(text.text == "هل تسعل؟" && text.column == 3)
        #expect(annotations.map(\.text) == ["id: cough", "yesno"])
        #expect(annotations.map(\.column) == [14, 27])
    }

    @Test func escapesAndBarsThatAreNotBars() {
        guard case .question(let text, let annotations) = QuestionLine.split(##"\#hash \| bar \@at | optional"##) else {
            Issue.record("expected a question")
            return
        }
        #expect(text.text == "#hash | bar @at" && text.column == 1)
        #expect(annotations.map(\.text) == ["optional"])
        // A bar with a combining mark on it is one character, not a separator.
        guard case .question(let marked, let none) = QuestionLine.split("a |\u{301} b") else {
            Issue.record("expected a question")
            return
        }
        #expect(marked.text == "a |\u{301} b" && none.isEmpty)
    }

    /// The reading by bytes gives what reading character by character gives, on random lines of
    /// ASCII, Arabic, combining marks, emoji, spaces of both kinds, bars and escapes.
    @Test func splitsAsTheCharacterByCharacterReadingDoes() {
        let pieces = [
            "a", "Z", "7", " ", "\t", "|", "\\", "#", "@", ":", "ب", "ع", "؟", "\u{301}", "\u{A0}", "\u{3000}", "👍🏽", "é", "\r\n",
            "\u{600}", "\u{85}", "\u{1C}", "\u{200D}",
        ]
        var generator = SeededGenerator(seed: 48)
        for _ in 0..<3_000 {
            let line = (0..<Int.random(in: 0...24, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let trimmed = line.trimmingSpaces()
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#"), !trimmed.hasPrefix("@") else { continue }
            guard case .question(let text, let annotations) = QuestionLine.split(line) else {
                Issue.record("expected a question: \(line.debugDescription)")
                continue
            }
            let expected = Self.characterByCharacter(line)
            // Bytes, not strings: == on strings takes canonically equivalent text as equal.
            #expect(
                ([text] + annotations).map { [UInt8]("\($0.column):".utf8) + Array($0.text.utf8) }
                    == expected.map { [UInt8]("\($0.column):".utf8) + Array($0.text.utf8) },
                "\(line.debugDescription)")
        }
    }

    /// The reading the byte-wise one replaced: a character at a time, compared as characters.
    private static func characterByCharacter(_ line: String) -> [QuestionLine.Segment] {
        var segments: [QuestionLine.Segment] = []
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
                segments.append(QuestionLine.Segment(text: current.trimmingSpaces(), column: start ?? column))
                current = ""
                start = nil
            } else {
                if start == nil, !c.isWhitespace { start = column }
                current.append(c)
            }
        }
        segments.append(QuestionLine.Segment(text: current.trimmingSpaces(), column: start ?? column + 1))
        return segments
    }
}
