import Foundation

/// Names folded for lookup: case, accents and extra spaces do not matter
/// (`  Şahin ` matches `sahin`, `Ḥaddād` matches `haddad`).
package enum NameKey {
    /// The key the server stores and looks names up by (records and the patient registry, on
    /// both stores): ``fold(_:)``, then Arabic letter variants made one (``foldingArabic(_:)``), so
    /// `الاحمد` finds `الأحمد` and `فاطمه` finds `فاطمة`. Export pseudonyms keep ``fold(_:)``.
    package static func lookupKey(_ name: String) -> String {
        if let ascii = foldASCII(name) { return ascii }
        return foldingArabic(foldGeneral(name))
    }

    package static func fold(_ name: String) -> String {
        if let ascii = foldASCII(name) { return ascii }
        return foldGeneral(name)
    }

    private static func foldGeneral(_ name: String) -> String {
        name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
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

    /// The Arabic letters people write either way, each with what it becomes in a lookup key:
    /// `أ إ آ ٱ` → `ا`, `ى ئ` and Persian `ی` → `ي`, `ة` → `ه`, `ؤ` → `و`, Persian `ک` → `ك`;
    /// tatweel, the harakat (U+064B–U+065F) and the superscript alef are removed.
    ///
    /// One rule for both places that apply it: ``foldingArabic(_:)`` in Swift, and
    /// ``foldingArabicSQL(_:)`` in the stores' migrations that recomputed the keys stored before
    /// (SQLite v26, PostgreSQL v24). Each entry is one scalar of U+0600–U+06FF and no replacement
    /// holds one, so replacing them one after another (SQL `replace()`) gives what replacing
    /// them all at once gives. Changing this list needs a new migration in each store.
    package static let arabicFoldings: [(from: Unicode.Scalar, to: String)] = {
        let alef = "\u{0627}", yeh = "\u{064A}"
        var foldings: [(from: Unicode.Scalar, to: String)] = [
            ("\u{0623}", alef), ("\u{0625}", alef), ("\u{0622}", alef), ("\u{0671}", alef),
            ("\u{0649}", yeh), ("\u{0626}", yeh), ("\u{06CC}", yeh),
            ("\u{0629}", "\u{0647}"), ("\u{0624}", "\u{0648}"), ("\u{06A9}", "\u{0643}"),
            ("\u{0640}", ""), ("\u{0670}", ""),
        ]
        foldings += (UInt32(0x064B)...0x065F).map { (from: Unicode.Scalar($0)!, to: "") }
        return foldings
    }()

    /// The scalars ``arabicFoldings`` may change; text without any is left as it is, quickly.
    static let arabicBlock: ClosedRange<UInt32> = 0x0600...0x06FF
    private static let arabicTable = Dictionary(uniqueKeysWithValues: arabicFoldings.map { ($0.from, $0.to) })

    /// `text` with ``arabicFoldings`` applied.
    package static func foldingArabic(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { arabicBlock.contains($0.value) }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let replacement = arabicTable[scalar] {
                scalars.append(contentsOf: replacement.unicodeScalars)
            } else {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// SQL expressions (SQLite and PostgreSQL alike) that, applied one after another to the text
    /// `expression`, apply ``arabicFoldings``: nested `replace()` calls, one per entry, at most
    /// ``arabicSQLNesting`` to an expression (SQLite's parser refuses much deeper nesting).
    package static func foldingArabicSQL(_ expression: String) -> [String] {
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        return stride(from: 0, to: arabicFoldings.count, by: arabicSQLNesting).map { start in
            arabicFoldings[start..<min(start + arabicSQLNesting, arabicFoldings.count)].reduce(expression) { sql, folding in
                "replace(\(sql), \(literal(String(folding.from))), \(literal(folding.to)))"
            }
        }
    }

    /// How deep ``foldingArabicSQL(_:)`` nests `replace()`: SQLite 3.40 refuses 28 in an UPDATE.
    package static let arabicSQLNesting = 10

    /// `UPDATE` statements (SQLite and PostgreSQL alike) that apply ``arabicFoldings`` to
    /// `columns` of `table`, one statement per ``foldingArabicSQL(_:)`` pass, on the rows each
    /// pass changes.
    package static func foldingArabicUpdates(table: String, columns: [String]) -> [String] {
        let passes = columns.map { (column: $0, passes: foldingArabicSQL($0)) }
        return passes[0].passes.indices.map { pass in
            let set = passes.map { "\($0.column) = \($0.passes[pass])" }.joined(separator: ", ")
            let changed = passes.map { "\($0.column) <> \($0.passes[pass])" }.joined(separator: " OR ")
            return "UPDATE \(table) SET \(set) WHERE \(changed)"
        }
    }

    /// An SQL condition (SQLite and PostgreSQL alike): `column` holds a letter ``arabicFoldings`` changes.
    package static func holdsArabicVariantSQL(_ column: String) -> String {
        "(" + foldingArabicSQL(column).map { "\(column) <> \($0)" }.joined(separator: " OR ") + ")"
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
