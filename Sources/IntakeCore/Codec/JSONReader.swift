import Foundation

/// A strict JSON reader over UTF-8 bytes, one value at a time, for the record codec and the
/// documents that carry records (batches, edits, server answers).
///
/// Strict by construction (RFC 8259 with no extensions): no trailing commas, no comments, no
/// byte order mark, no UTF-16/32, no invalid UTF-8, no lone surrogates, no leading zeros.
/// Duplicate keys are caught by the code that reads an object, which knows its keys. Every
/// error carries the byte offset and the path of keys that led there, and never a value.
package struct JSONReader {
    package let bytes: UnsafeBufferPointer<UInt8>
    package private(set) var index = 0
    /// How many objects and arrays the value being read is inside.
    private var depth = 0
    private static let maxDepth = 64

    package init(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONReadError) {
        self.bytes = bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            throw JSONReadError(offset: 0, path: "", "the document starts with a byte order mark; send UTF-8 without one")
        }
        if bytes.count >= 2,
            bytes[0] == 0 || bytes[1] == 0 || (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE)
        {
            throw JSONReadError(offset: 0, path: "", "the document is UTF-16 or UTF-32; send UTF-8")
        }
    }

    /// Reads `bytes` as one JSON document with `read`, and checks nothing follows it.
    package static func document<T>(_ data: some ContiguousBytes, _ read: (inout JSONReader) throws(JSONReadError) -> T)
        throws(JSONReadError) -> T
    {
        let result: Result<T, JSONReadError> = data.withUnsafeBytes { raw in
            do throws(JSONReadError) {
                var reader = try JSONReader(raw.bindMemory(to: UInt8.self))
                let value = try read(&reader)
                try reader.end()
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Checks that `data` is one strict JSON document (see the type's rules) whose objects
    /// have no key twice and whose strings are valid UTF-8 without NUL: what every request body
    /// must be before anything reads it.
    package static func check(_ data: some ContiguousBytes) throws(JSONReadError) {
        try document(data) { reader throws(JSONReadError) in try reader.checkValue() }
    }

    private mutating func checkValue() throws(JSONReadError) {
        switch peek() {
        case UInt8(ascii: "{"):
            var seen: Set<String> = []
            try objectKeys { key, reader throws(JSONReadError) in
                guard seen.insert(key.string).inserted else {
                    throw reader.error("the key '\(key.string)' appears twice in one object; send it once")
                }
                try reader.checkValue()
            }
        case UInt8(ascii: "["): try array { _, reader throws(JSONReadError) in try reader.checkValue() }
        case UInt8(ascii: "\""): _ = try string()
        default: try skipValue()
        }
    }

    // MARK: Errors

    /// An error at the current position (or `offset`). The keys and indices that lead to it are
    /// added as it travels out through the objects and arrays it is in, so reading that goes
    /// well pays nothing for them.
    package func error(_ message: String, at offset: Int? = nil) -> JSONReadError {
        JSONReadError(offset: offset ?? index, path: "", message)
    }

    // MARK: Structure

    package mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// The next byte after white space, without taking it; nil at the end.
    package mutating func peek() -> UInt8? {
        skipSpace()
        return index < bytes.count ? bytes[index] : nil
    }

    package mutating func end() throws(JSONReadError) {
        skipSpace()
        guard index == bytes.count else { throw error("unexpected text after the end of the document") }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONReadError) {
        guard peek() == byte else {
            throw error(index < bytes.count ? "expected \(what)" : "the document ends early; expected \(what)")
        }
        index += 1
    }

    /// Reads `{`, then calls `member` with each key; `member` must read the value.
    package mutating func object(_ member: (String, inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        try objectKeys { key, reader throws(JSONReadError) in try member(key.string, &reader) }
    }

    /// ``object(_:)`` handing over keys as they stand in the document, so that known keys are
    /// recognised without making a string of each.
    package mutating func objectKeys(_ member: (JSONKey, inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        guard depth < Self.maxDepth else { throw error("nested more than \(Self.maxDepth) levels deep") }
        try expect(UInt8(ascii: "{"), "an object ('{')")
        depth += 1
        defer { depth -= 1 }
        if peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            guard peek() == UInt8(ascii: "\"") else {
                throw error(
                    index < bytes.count ? "expected a key in double quotes (a trailing comma?)" : "the document ends early inside an object"
                )
            }
            let key = try self.key()
            try expect(UInt8(ascii: ":"), "':' after the key")
            do {
                try member(key, &self)
            } catch {
                throw error.inside(key: key.string)
            }
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            case nil: throw error("the document ends early inside an object")
            default: throw error("expected ',' or '}' after a value")
            }
        }
    }

    /// Reads `[`, then calls `element` with each position; `element` must read the value.
    package mutating func array(_ element: (Int, inout JSONReader) throws(JSONReadError) -> Void) throws(JSONReadError) {
        guard depth < Self.maxDepth else { throw error("nested more than \(Self.maxDepth) levels deep") }
        try expect(UInt8(ascii: "["), "an array ('[')")
        depth += 1
        defer { depth -= 1 }
        if peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        var position = 0
        while true {
            guard peek() != UInt8(ascii: "]") else { throw error("expected a value (a trailing comma?)") }
            do {
                try element(position, &self)
            } catch {
                throw error.inside(index: position)
            }
            position += 1
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return
            case nil: throw error("the document ends early inside an array")
            default: throw error("expected ',' or ']' after a value")
            }
        }
    }

    /// Reads `null` if it comes next and says so; otherwise reads nothing.
    package mutating func null() -> Bool {
        guard peek() == UInt8(ascii: "n"), literal("null") else { return false }
        return true
    }

    package mutating func bool() throws(JSONReadError) -> Bool {
        switch peek() {
        case UInt8(ascii: "t") where literal("true"): return true
        case UInt8(ascii: "f") where literal("false"): return false
        default: throw error("expected true or false")
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        if index + count < bytes.count, Self.isWordByte(bytes[index + count]) { return false }
        index += count
        return true
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F
    }

    /// Skips one value of any kind, checking its syntax, and returns the bytes it spans.
    @discardableResult
    package mutating func skipValue() throws(JSONReadError) -> Range<Int> {
        guard let first = peek() else { throw error("the document ends early; expected a value") }
        let start = index
        switch first {
        case UInt8(ascii: "{"): try object { _, reader throws(JSONReadError) in try reader.skipValue() }
        case UInt8(ascii: "["): try array { _, reader throws(JSONReadError) in try reader.skipValue() }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"):
            guard null() else { throw error("expected a value") }
        default: _ = try numberText()
        }
        return start..<index
    }

    // MARK: Strings

    /// Passes over a string without making it: its escapes are checked, its UTF-8 is checked
    /// when it is read for real.
    private mutating func skipString() throws(JSONReadError) {
        let start = index
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    index += 1
                    guard try hex4() != 0 else { throw Self.nulError(self, at: index - 6) }
                default: throw error("unknown escape in a string", at: index - 1)
                }
            case 0..<0x20: throw error("a control character inside a string must be escaped (\\n, \\t, \\u0000)")
            default: index += 1
            }
        }
        throw error("the document ends early inside a string", at: start)
    }

    /// A key: its bytes when it is plain ASCII without escapes (most are), else the string.
    private mutating func key() throws(JSONReadError) -> JSONKey {
        let start = index + 1
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                index = position + 1
                return JSONKey(bytes: UnsafeBufferPointer(rebasing: bytes[start..<position]))
            }
            if byte == UInt8(ascii: "\\") || byte >= 0x80 || byte < 0x20 { break }
            position += 1
        }
        return JSONKey(text: try string())
    }

    package mutating func string() throws(JSONReadError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw error("expected a string") }
        index += 1
        let start = index
        var high: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII needs no validation; anything else is validated, never repaired.
                if high < 0x80 { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw error("a string is not valid UTF-8", at: start)
                }
                return text
            }
            high |= byte
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if byte < 0x20 { throw error("a control character inside a string must be escaped (\\n, \\t, \\u0000)") }
            index += 1
        }
        throw error("the document ends early inside a string", at: start - 1)
    }

    private mutating func escapedString(from start: Int) throws(JSONReadError) -> String {
        var buffer = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else { throw error("a string is not valid UTF-8", at: start) }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"): buffer.append(contentsOf: try unicodeEscape())
                default: throw error("unknown escape '\\\(Character(Unicode.Scalar(escape)))' in a string", at: index - 2)
                }
            default:
                if byte < 0x20 { throw error("a control character inside a string must be escaped (\\n, \\t, \\u0000)") }
                buffer.append(byte)
                index += 1
            }
        }
        throw error("the document ends early inside a string", at: start - 1)
    }

    /// After `\u`: four hex digits, or a surrogate pair written as two escapes; the UTF-8 bytes.
    private mutating func unicodeEscape() throws(JSONReadError) -> [UInt8] {
        let at = index - 2
        var value = try hex4()
        guard value != 0 else { throw Self.nulError(self, at: at) }
        if (0xD800...0xDBFF).contains(value) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("a \\u escape holds half a surrogate pair; write the whole character", at: at)
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error("a \\u escape holds half a surrogate pair; write the whole character", at: at)
            }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(value) {
            throw error("a \\u escape holds half a surrogate pair; write the whole character", at: at)
        }
        return Array(String(Character(Unicode.Scalar(value)!)).utf8)
    }

    private mutating func hex4() throws(JSONReadError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// U+0000 is refused in every string: databases and C libraries cut text at it, so a name
    /// or password with one would not be what was sent.
    private static func nulError(_ reader: JSONReader, at offset: Int) -> JSONReadError {
        reader.error("a string holds \\u0000 (NUL), which Intake does not accept; remove it", at: offset)
    }

    // MARK: Numbers

    /// A JSON number's text, checked against the grammar (no '+', no leading zeros, no bare '.').
    private mutating func numberText() throws(JSONReadError) -> (range: Range<Int>, isInteger: Bool) {
        skipSpace()
        let start = index
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else {
            throw error(index < bytes.count ? "expected a value" : "the document ends early; expected a value", at: start)
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) { throw error("a number has a leading zero", at: start) }
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("a number needs digits after '.'", at: start) }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("a number needs digits in its exponent", at: start) }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, Self.isWordByte(bytes[index]) || bytes[index] == UInt8(ascii: ".") {
            throw error("expected a value", at: start)
        }
        return (start..<index, isInteger)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// A whole number that fits 64 bits. As in JSON Schema, a number whose value is whole is one
    /// however it is spelled: `12`, `12.0` and `1.2e1` are all 12; `12.5` is refused.
    package mutating func integer() throws(JSONReadError) -> Int {
        guard let next = peek(), next == UInt8(ascii: "-") || Self.isDigit(next) else { throw error("expected a whole number") }
        let (range, isInteger) = try numberText()
        let negative = bytes[range.lowerBound] == UInt8(ascii: "-")
        let digitsStart = negative ? range.lowerBound + 1 : range.lowerBound
        guard isInteger else { return try wholeValue(digitsStart..<range.upperBound, negative: negative, at: range.lowerBound) }
        guard let value = Self.accumulate(bytes[digitsStart..<range.upperBound], negative: negative) else {
            throw error("a whole number is too large (64 bits at most)", at: range.lowerBound)
        }
        return value
    }

    /// The value of a number written with a fraction or exponent, when it is whole.
    private func wholeValue(_ range: Range<Int>, negative: Bool, at start: Int) throws(JSONReadError) -> Int {
        var digits: [UInt8] = []
        var fractionDigits = 0
        var index = range.lowerBound
        var inFraction = false
        while index < range.upperBound, bytes[index] != UInt8(ascii: "e"), bytes[index] != UInt8(ascii: "E") {
            if bytes[index] == UInt8(ascii: ".") {
                inFraction = true
            } else {
                digits.append(bytes[index])
                if inFraction { fractionDigits += 1 }
            }
            index += 1
        }
        var exponent = 0
        if index < range.upperBound {
            index += 1
            let exponentNegative = bytes[index] == UInt8(ascii: "-")
            if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            while index < range.upperBound {
                exponent = min(exponent * 10 + Int(bytes[index] - 0x30), 1_000)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // The value is digits × 10^(exponent − fractionDigits).
        while let first = digits.first, first == UInt8(ascii: "0") { digits.removeFirst() }
        var shift = exponent - fractionDigits
        while shift < 0, let last = digits.last, last == UInt8(ascii: "0") {
            digits.removeLast()
            shift += 1
        }
        if digits.isEmpty { return 0 }
        guard shift >= 0 else { throw error("expected a whole number; this one has a fraction", at: start) }
        guard digits.count + shift <= 19 else { throw error("a whole number is too large (64 bits at most)", at: start) }
        digits += repeatElement(UInt8(ascii: "0"), count: shift)
        guard let value = Self.accumulate(digits, negative: negative) else {
            throw error("a whole number is too large (64 bits at most)", at: start)
        }
        return value
    }

    private static func accumulate<Digits: Collection<UInt8>>(_ digits: Digits, negative: Bool) -> Int? {
        var value = 0
        for byte in digits {
            let digit = Int(byte - 0x30)
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// Any finite number.
    package mutating func number() throws(JSONReadError) -> Double {
        guard let next = peek(), next == UInt8(ascii: "-") || Self.isDigit(next) else { throw error("expected a number") }
        let (range, _) = try numberText()
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("a number is too large", at: range.lowerBound) }
        return value
    }
}

/// An object's key as read: see ``JSONReader/objectKeys(_:)``.
package struct JSONKey {
    private let bytes: UnsafeBufferPointer<UInt8>?
    private let text: String?

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.text = nil
    }

    init(text: String) {
        self.bytes = nil
        self.text = text
    }

    package var string: String { text ?? String(decoding: bytes!, as: UTF8.self) }

    /// Whether the key is exactly `word`.
    package func `is`(_ word: StaticString) -> Bool {
        guard let bytes else { return text == word.description }
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        for offset in 0..<bytes.count where bytes[offset] != word.utf8Start[offset] { return false }
        return true
    }

    /// `1`, `25`: a positive whole number without sign, leading zeros or anything else.
    package var position: Int? {
        guard let bytes, let first = bytes.first, first >= UInt8(ascii: "1"), first <= UInt8(ascii: "9"), bytes.count <= 9 else {
            return nil
        }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}

/// Where and why a JSON document could not be read. Never holds a value from the document.
public struct JSONReadError: Error, Equatable, CustomStringConvertible {
    /// Byte offset from the start of the document.
    public var offset: Int
    /// Keys and indices leading to the value, such as `answers.2.5.integer`; empty at the top.
    public var path: String
    public var message: String

    package init(offset: Int, path: String, _ message: String) {
        self.offset = offset
        self.path = path
        self.message = message
    }

    /// The same error, one level further out: inside the member `key`.
    func inside(key: String) -> JSONReadError {
        var outer = self
        outer.path = key + (path.isEmpty ? "" : (path.hasPrefix("[") ? "" : ".") + path)
        return outer
    }

    /// The same error, one level further out: inside the element at `index`.
    func inside(index: Int) -> JSONReadError {
        var outer = self
        outer.path = "[\(index)]" + (path.isEmpty || path.hasPrefix("[") ? "" : ".") + path
        return outer
    }

    public var description: String {
        "at byte \(offset)" + (path.isEmpty ? "" : " (\(path))") + ": \(message)"
    }
}
