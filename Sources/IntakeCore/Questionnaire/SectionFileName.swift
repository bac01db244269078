import Foundation

/// `2-history.txt` (section 2, base language) or `2-history.ar.txt` (its Arabic translation).
struct SectionFileName: Hashable {
    var number: Int
    var name: String
    var language: String?

    init?(_ fileName: String) {
        guard fileName.hasSuffix(".txt"), let dash = fileName.firstIndex(of: "-") else { return nil }
        let digits = fileName[..<dash]
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits) else { return nil }
        var stem = fileName[fileName.index(after: dash)...].dropLast(4)
        if let dot = stem.lastIndex(of: ".") {
            language = String(stem[stem.index(after: dot)...])
            stem = stem[..<dot]
        }
        guard !stem.isEmpty else { return nil }
        self.number = number
        self.name = String(stem)
    }

    /// `history` → `History`, `social-needs` → `Social needs`.
    var defaultTitle: String {
        let words = String(name.map { $0 == "-" || $0 == "_" ? " " : $0 })
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
