/// RFC 4180 output: fields separated by commas, lines by CRLF, a field quoted (and its quotes
/// doubled) when it holds a comma, a quote or a line break.
enum CSV {
    static func line(_ fields: [String]) -> String {
        var out = ""
        for (index, field) in fields.enumerated() {
            if index > 0 { out += "," }
            append(field, to: &out)
        }
        out += "\r\n"
        return out
    }

    static func append(_ field: String, to out: inout [UInt8]) {
        let quoted = field.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
        guard quoted else { return out.append(contentsOf: field.utf8) }
        out.append(UInt8(ascii: "\""))
        for byte in field.utf8 {
            out.append(byte)
            if byte == UInt8(ascii: "\"") { out.append(byte) }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func append(_ field: String, to out: inout String) {
        if field.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) {
            out += "\""
            out += field.replacingOccurrences(of: "\"", with: "\"\"")
            out += "\""
        } else {
            out += field
        }
    }
}
