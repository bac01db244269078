/// A questionnaire text file split into lines, with encoding problems reported per line.
struct TextFile {
    struct Line {
        var number: Int
        var text: String
    }

    static let maxLineLength = 4_096
    static let maxFileSize = 4 * 1024 * 1024

    var path: String
    var lines: [Line] = []
    var diagnostics: [QuestionnaireDiagnostic] = []

    /// Decodes UTF-8 text; accepts a byte-order mark and LF, CRLF or CR line endings.
    /// Lines with NUL bytes, invalid UTF-8 or too many characters are reported and left out.
    init(path: String, bytes: [UInt8]) {
        self.path = path
        guard bytes.count <= Self.maxFileSize else {
            diagnostics.append(
                QuestionnaireDiagnostic(
                    path: path, message: "file is \(bytes.count) bytes; a questionnaire file may be at most \(Self.maxFileSize)",
                    hint: "split the questions across more section files"))
            return
        }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        var number = 0
        var start = body.startIndex
        var index = body.startIndex
        while index <= body.endIndex {
            let atEnd = index == body.endIndex
            if atEnd || body[index] == 0x0A || body[index] == 0x0D {
                number += 1
                if !(atEnd && start == index && number > 1) {
                    decodeLine(body[start..<index], number: number)
                }
                if atEnd { break }
                if body[index] == 0x0D, body.index(after: index) < body.endIndex, body[body.index(after: index)] == 0x0A {
                    index = body.index(after: index)
                }
                start = body.index(after: index)
            }
            index = body.index(after: index)
        }
    }

    private mutating func decodeLine(_ bytes: ArraySlice<UInt8>, number: Int) {
        if let nul = bytes.firstIndex(of: 0) {
            let column = Self.characterCount(bytes[bytes.startIndex..<nul]) + 1
            diagnostics.append(
                QuestionnaireDiagnostic(
                    path: path, line: number, column: column, message: "line contains a NUL byte",
                    hint: "this looks like a binary file; questionnaire files are plain UTF-8 text"))
            return
        }
        // Valid UTF-8 (nearly every line) is checked in one pass; a line that is not is decoded
        // again scalar by scalar, to find the column of its first bad byte.
        guard let text = String(validating: bytes, as: UTF8.self) else {
            diagnostics.append(
                QuestionnaireDiagnostic(
                    path: path, line: number, column: Self.validPrefixCount(bytes) + 1,
                    message: "bytes that are not valid UTF-8",
                    hint: "save the file as UTF-8 (in most editors: Save with Encoding → UTF-8)"))
            return
        }
        // A line of no more bytes than the limit has no more characters either.
        guard bytes.count <= Self.maxLineLength || text.count <= Self.maxLineLength else {
            diagnostics.append(
                QuestionnaireDiagnostic(
                    path: path, line: number, column: Self.maxLineLength + 1,
                    message: "line is \(text.count) characters long; a line may be at most \(Self.maxLineLength)",
                    hint: "shorten the question, or move long explanations into a shorter help text"))
            return
        }
        lines.append(Line(number: number, text: text))
    }

    /// The characters before the first byte that is not valid UTF-8.
    private static func validPrefixCount(_ bytes: ArraySlice<UInt8>) -> Int {
        var scalars = String.UnicodeScalarView()
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while case .scalarValue(let scalar) = decoder.decode(&iterator) { scalars.append(scalar) }
        return String(scalars).count
    }

    private static func characterCount(_ bytes: ArraySlice<UInt8>) -> Int {
        String(decoding: bytes, as: UTF8.self).count
    }
}
