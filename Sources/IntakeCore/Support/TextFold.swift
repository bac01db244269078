import Foundation

/// Text folded for matching what a person types against labels and names: case, accents and
/// letter variants that people type either way do not count.
///
/// Latin and other scripts lose case and diacritics (`Türkiye` → `turkiye`, `Côte` → `cote`);
/// Arabic loses its short vowels and tatweel, and its letter variants become one, as in the
/// server's lookup keys (``NameKey/arabicFoldings``: `أ إ آ ٱ` → `ا`, `ة` → `ه`, `ى ئ` → `ي`,
/// `ؤ` → `و`), so `الاحمد` finds `الأحمد`. Arabic-Indic and Persian digits become ASCII digits.
public enum TextFold {
    public static func fold(_ text: String) -> String {
        let folded = NameKey.foldingArabic(
            text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil))
        guard folded.unicodeScalars.contains(where: { asciiDigit($0) != nil }) else { return folded }
        return String(String.UnicodeScalarView(folded.unicodeScalars.map { asciiDigit($0) ?? $0 }))
    }

    /// A whole number typed in either digit set (`٣`, ` 3 `); nil when the text is not one.
    public static func number(_ text: String) -> Int? {
        Int(asciiDigits(text.trimmingCharacters(in: .whitespaces)))
    }

    /// The ASCII digit of an Arabic-Indic (`٠…٩`) or Persian (`۰…۹`) digit.
    static func asciiDigit(_ scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x0660...0x0669: Unicode.Scalar(0x30 + scalar.value - 0x0660)
        case 0x06F0...0x06F9: Unicode.Scalar(0x30 + scalar.value - 0x06F0)
        default: nil
        }
    }

    /// `text` with Arabic-Indic and Persian digits (and the Arabic decimal and thousands
    /// separators) as ASCII, for numbers and dates typed in either digit set: `٣٧٫٥` → `37.5`.
    public static func asciiDigits(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value >= 0x0660 }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x066B: scalars.append(".")
            case 0x066C: scalars.append(",")
            default: scalars.append(asciiDigit(scalar) ?? scalar)
            }
        }
        return String(scalars)
    }

    /// How many single-character edits (insert, delete, replace, swap two neighbours) turn `a` into `b`.
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], previous2[j - 2] + 1) }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
