import Foundation

/// A small JSON reader for hot paths (exports decode millions of records), where
/// `JSONDecoder` costs most of the time. It gives up (nil) on anything unusual; callers then use
/// `JSONDecoder`, which decides and explains.
package indirect enum RawJSON: Sendable {
    case object([String: RawJSON])
    case array([RawJSON])
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null

    package static func parse(_ data: Data) -> RawJSON? {
        data.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            guard let value = reader.value() else { return nil }
            reader.skipSpace()
            return reader.index == reader.bytes.count ? value : nil
        }
    }

    package subscript(key: String) -> RawJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    package var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    package var integer: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var depth = 0

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 32 || bytes[index] == 10 || bytes[index] == 13 || bytes[index] == 9 { index += 1 }
        }

        mutating func value() -> RawJSON? {
            skipSpace()
            guard index < bytes.count, depth < 32 else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string().map(RawJSON.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        private mutating func literal(_ word: StaticString, _ value: RawJSON) -> RawJSON? {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return nil }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
            index += count
            return value
        }

        private mutating func object() -> RawJSON? {
            index += 1
            depth += 1
            defer { depth -= 1 }
            var members: [String: RawJSON] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = value(), members.updateValue(value, forKey: key) == nil,
                    let more = separator(closing: UInt8(ascii: "}"))
                else { return nil }
                if !more { return .object(members) }
            }
        }

        private mutating func array() -> RawJSON? {
            index += 1
            depth += 1
            defer { depth -= 1 }
            var items: [RawJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                guard let item = value(), let more = separator(closing: UInt8(ascii: "]")) else { return nil }
                items.append(item)
                if !more { return .array(items) }
            }
        }

        /// After a member: true past a comma, false past the closing bracket, nil for anything else.
        private mutating func separator(closing: UInt8) -> Bool? {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") || bytes[index] == closing else { return nil }
            index += 1
            return bytes[index - 1] == UInt8(ascii: ",")
        }

        /// A string without escapes, or nil (escaped strings are left to JSONDecoder).
        private mutating func string() -> String? {
            index += 1
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    return String(validating: slice, as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        private mutating func number() -> RawJSON? {
            let start = index
            var isInteger = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") || byte == UInt8(ascii: "-") {
                    index += 1
                } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+") {
                    isInteger = false
                    index += 1
                } else {
                    break
                }
            }
            guard index > start, let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self) else {
                return nil
            }
            // JSON numbers only: no leading zeros, no '+', no bare '.' (Swift's parsers accept more).
            let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
            guard let first = digits.first, first.isNumber,
                !(first == "0" && digits.count > 1 && digits.dropFirst().first?.isNumber == true)
            else { return nil }
            if isInteger { return Int(text).map(RawJSON.integer) }
            guard !text.hasSuffix("."), !text.contains(".e"), !text.contains(".E"), let value = Double(text), value.isFinite else {
                return nil
            }
            return .number(value)
        }
    }
}
