import Foundation

/// Names folded for lookup: case, accents and extra spaces do not matter
/// (`  Şahin ` matches `sahin`, `Ḥaddād` matches `haddad`).
package enum NameKey {
    package static func fold(_ name: String) -> String {
        if let ascii = foldASCII(name) { return ascii }
        return name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The same folding for plain ASCII names, without Foundation's (slow) general case; nil
    /// when the name has any other character.
    private static func foldASCII(_ name: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        var pendingSpace = false
        for byte in name.utf8 {
            guard byte < 0x80 else { return nil }
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                pendingSpace = !bytes.isEmpty
                continue
            }
            if pendingSpace {
                bytes.append(0x20)
                pendingSpace = false
            }
            bytes.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Escapes `%`, `_` and `\` for a LIKE pattern with `ESCAPE '\'`.
    package static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
