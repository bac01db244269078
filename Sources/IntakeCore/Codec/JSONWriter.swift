import Foundation

/// Writes JSON in the canonical spelling the record codec fixes (docs/record-format.md):
/// no white space, strings as UTF-8 with only `"`, `\` and control characters escaped, whole
/// numbers in decimal, other numbers in their shortest round-trip spelling.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether the next value in the current object or array needs a comma before it.
    private var needsComma = false

    package init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A key inside an object; the value written next belongs to it.
    package mutating func key(_ key: String) {
        separate()
        quoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key that is a whole number, as section and question keys are.
    package mutating func key(_ number: Int) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        digits(number)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key the program spells, of letters only (an answer's kind): copied as it is, with
    /// nothing to escape.
    package mutating func letterKey(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }  // a one-letter literal may be kept as a scalar, not bytes
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A day as a string, `YYYY-MM-DD` (``LocalDate/description``), its digits written in place.
    package mutating func date(_ day: LocalDate) {
        guard (0...9999).contains(day.year) else { return string(day.description) }
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: "0") + UInt8(day.year / 1000))
        bytes.append(UInt8(ascii: "0") + UInt8(day.year / 100 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(day.year / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(day.year % 10))
        bytes.append(UInt8(ascii: "-"))
        bytes.append(UInt8(ascii: "0") + UInt8(day.month / 10))
        bytes.append(UInt8(ascii: "0") + UInt8(day.month % 10))
        bytes.append(UInt8(ascii: "-"))
        bytes.append(UInt8(ascii: "0") + UInt8(day.day / 10))
        bytes.append(UInt8(ascii: "0") + UInt8(day.day % 10))
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func digits(_ value: Int) {
        guard value != 0 else { return bytes.append(UInt8(ascii: "0")) }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var reversed:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8
            ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &reversed) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(magnitude % 10) + 0x30
                magnitude /= 10
                count += 1
            }
            for position in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[position]) }
        }
    }

    package mutating func string(_ value: String) {
        separate()
        quoted(value)
        needsComma = true
    }

    package mutating func integer(_ value: Int) {
        separate()
        digits(value)
        needsComma = true
    }

    /// A finite number in Swift's shortest round-trip spelling (`5.0`, `0.1`, `1e-07`).
    package mutating func number(_ value: Double) {
        precondition(value.isFinite, "JSON has no spelling for \(value)")
        separate()
        bytes.append(contentsOf: value.description.utf8)
        needsComma = true
    }

    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// A value that is already JSON (a record's canonical bytes inside a larger document).
    package mutating func raw(_ json: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func quoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for position in 0..<utf8.count {
                let byte = utf8[position]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
                runStart = position + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default: bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONWriter {
    /// Compact JSON (as this writer makes it) indented by two spaces a level, for people to read.
    package static func indented(_ compact: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(compact.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        func newline() {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
        }
        for (position, byte) in compact.enumerated() {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                let next = position + 1 < compact.count ? compact[position + 1] : 0
                if next != UInt8(ascii: "}") && next != UInt8(ascii: "]") {
                    depth += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let previous = position > 0 ? compact[position - 1] : 0
                if previous != UInt8(ascii: "{") && previous != UInt8(ascii: "[") {
                    depth -= 1
                    newline()
                }
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
            default:
                out.append(byte)
            }
        }
        return out
    }
}
