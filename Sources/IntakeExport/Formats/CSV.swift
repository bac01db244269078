/// RFC 4180 output: fields separated by commas, lines by CRLF, a field quoted (and its quotes
/// doubled) when it holds a comma, a quote or a line break.
///
/// Cells of collected text go through ``escape(_:marker:)`` first (unless the export asks for raw
/// cells), so that a spreadsheet shows them as text and a reader can tell them from the
/// unanswered marker.
package enum CSV {
    package static func line(_ fields: [String]) -> String {
        var out = ""
        for (index, field) in fields.enumerated() {
            if index > 0 { out += "," }
            append(field, to: &out)
        }
        out += "\r\n"
        return out
    }

    static func append(_ field: String, to out: inout [UInt8]) {
        // Through the string's own bytes: a cell is copied at once, not a code unit at a time.
        var field = field
        field.withUTF8 { bytes in
            let quoted = bytes.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
            guard quoted else { return out.append(contentsOf: bytes) }
            out.append(UInt8(ascii: "\""))
            for byte in bytes {
                out.append(byte)
                if byte == UInt8(ascii: "\"") { out.append(byte) }
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// As the bytes are written: every quote byte doubled. (Replacing `"` as a Character missed
    /// a quote that a combining mark or joiner after it makes part of a larger character, so
    /// `"` followed by U+0301 stayed single and the line could not be read back.)
    static func append(_ field: String, to out: inout String) {
        var bytes: [UInt8] = []
        append(field, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// A cell of collected text as the CSV files write it: with one leading `'` added when a
    /// spreadsheet could run it as a formula (OWASP's rule: it starts with `=`, `+`, `-`, `@`, a
    /// tab or a carriage return and is not a plain number such as `-3`), when it is exactly the
    /// unanswered `marker`, or when it already starts with `'`. A reader removes one leading `'`
    /// to get the value back; a bare `marker` is always "asked, not answered".
    package static func escape(_ text: String, marker: String?) -> String {
        guard let first = text.utf8.first else { return text }
        if first == UInt8(ascii: "'") || needsGuard(text) || text == marker { return "'" + text }
        return text
    }

    /// Whether a spreadsheet could take `field` for a formula: it starts with one of `= + - @`,
    /// a tab or a carriage return, and is not a plain number such as `-3` or `+1.5`.
    static func needsGuard(_ field: String) -> Bool {
        guard let first = field.utf8.first else { return false }
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "@"), 9, 13: return true
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return !isPlainNumber(Array(field.utf8.dropFirst()))
        default: return false
        }
    }

    /// Digits, an optional fraction and an optional exponent (`3`, `1.5`, `2.5e-05`): what the
    /// export writes for numbers, after the sign.
    private static func isPlainNumber(_ bytes: [UInt8]) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - start
        }
        guard digits() > 0 else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == bytes.count
    }

    /// `text` with `\` as `\b`, a line feed as `\n` and a carriage return as `\r`. Every `\` of
    /// the result starts one of these pairs, so undoing them one kind after another (`\n`, `\r`,
    /// then `\b`) gives `text` back exactly.
    static func escapingLineBreaks(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == UInt8(ascii: "\\") }) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            switch byte {
            case 10: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 13: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Counts the rows of CSV text read in pieces: line ends outside quoted fields.
struct CSVRowCounter {
    private(set) var rows = 0
    private var quoted = false

    mutating func count(_ bytes: [UInt8]) {
        for byte in bytes {
            if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if byte == 10, !quoted {
                rows += 1
            }
        }
    }
}
