/// JSON written with keys in the order given, without Foundation's encoder, for streaming output:
/// the export's files, and the FHIR REST resources around them (IntakeFHIR).
package enum OrderedJSON: Sendable {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case array([OrderedJSON])
    case object([(String, OrderedJSON)])
    /// JSON text written elsewhere (a resource ``FHIRResources`` wrote), put in as it is.
    case raw(String)

    package var text: String {
        var out = ""
        write(into: &out)
        return out
    }

    package func write(into out: inout String) {
        var bytes: [UInt8] = []
        write(into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the JSON text to `out` as UTF-8 bytes (a string's bytes are copied as runs, not a
    /// scalar at a time).
    package func write(into out: inout [UInt8]) {
        switch self {
        case .raw(let text): out.append(contentsOf: text.utf8)
        case .string(let value): Self.writeString(value, into: &out)
        case .integer(let value): out.append(contentsOf: String(value).utf8)
        case .number(let value): out.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(member.0, into: &out)
                out.append(UInt8(ascii: ":"))
                member.1.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`, `\r`, `\t` or `\u00xx`,
    /// and U+2028 and U+2029 as `\u2028` and `\u2029` (JavaScript reads them as line ends).
    static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var run = 0  // the start of the bytes not yet copied
            var index = 0
            func escape(_ text: String, skipping count: Int) {
                out.append(contentsOf: bytes[run..<index])
                out.append(contentsOf: text.utf8)
                index += count
                run = index
            }
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""): escape("\\\"", skipping: 1)
                case UInt8(ascii: "\\"): escape("\\\\", skipping: 1)
                case 10: escape("\\n", skipping: 1)
                case 13: escape("\\r", skipping: 1)
                case 9: escape("\\t", skipping: 1)
                case 0..<0x20:
                    let hex = String(byte, radix: 16)
                    escape("\\u" + String(repeating: "0", count: 4 - hex.count) + hex, skipping: 1)
                // U+2028 and U+2029: E2 80 A8 and E2 80 A9 (a String's bytes are valid UTF-8).
                case 0xE2
                where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                    escape(bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029", skipping: 3)
                default: index += 1
                }
            }
            out.append(contentsOf: bytes[run..<index])
        }
        out.append(UInt8(ascii: "\""))
    }
}
