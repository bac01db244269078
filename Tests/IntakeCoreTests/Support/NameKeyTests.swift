import Foundation
import Testing

@testable import IntakeCore

/// Lookup keys: `fold`, then the Arabic letters people write either way made one.
struct NameKeyTests {
    @Test func arabicLetterVariantsGiveOneKey() {
        let same: [(String, String)] = [
            ("الأحمد", "الاحمد"), ("إبراهيم", "ابراهيم"), ("آمنة", "امنه"), ("ٱلله", "الله"), ("فاطمة", "فاطمه"),
            ("مؤمن", "مومن"), ("هانئ", "هاني"), ("موسى", "موسي"), ("مُحَمَّد", "محمد"), ("مـحـمـد", "محمد"),
            ("یاسر", "ياسر"), ("کریم", "كريم"), ("رحمٰن", "رحمن"),
            // Hamza above as a mark of its own (the decomposed spelling of أ).
            ("\u{0627}\u{0654}حمد", "احمد"),
            ("  Al-أحمد   فاطمة ", "al-احمد فاطمه"),
        ]
        for (name, key) in same {
            #expect(NameKey.lookupKey(name) == key, "\(name)")
            #expect(NameKey.lookupKey(key) == key, "\(key) is a key already")
        }
        #expect(NameKey.lookupKey("الأحمد") == NameKey.lookupKey("الاحمد"))
    }

    @Test func namesWithoutArabicKeyAsFoldKeysThem() {
        var random = SeededGenerator(seed: TestSeed.make("name keys"))
        let pieces = ["a", "Z", " ", "\t", "-", "'", "Ş", "ḥ", "ā", "é", "Ø", "ß", "Ｗ", "李", "Ж", "\u{00A0}", "שׁ"]
        for _ in 0..<2000 {
            let name = (0..<Int.random(in: 0...10, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(NameKey.lookupKey(name) == NameKey.fold(name), "\(name.debugDescription)")
        }
        #expect(NameKey.lookupKey("  Ḥaddād ") == "haddad")
    }

    @Test func aKeyIsFoldThenArabicFoldingAndHoldsNoVariant() {
        var random = SeededGenerator(seed: TestSeed.make("arabic name keys"))
        let pieces = [
            "ا", "أ", "إ", "آ", "ٱ", "ى", "ي", "ة", "ه", "ؤ", "ئ", "ی", "ک", "ك", "ـ", "\u{064E}", "\u{0651}", "\u{0670}", "\u{0654}",
            " ", "A", "é", "ح", "م", "د",
        ]
        for _ in 0..<2000 {
            let name = (0..<Int.random(in: 0...10, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let key = NameKey.lookupKey(name)
            #expect(key == NameKey.foldingArabic(NameKey.fold(name)), "\(name.debugDescription)")
            #expect(!key.unicodeScalars.contains { scalar in NameKey.arabicFoldings.contains { $0.from == scalar } })
        }
    }

    /// The migrations apply the list with nested SQL `replace()`, one entry after another: that
    /// must give what `foldingArabic` gives, all at once.
    @Test func theFoldingsOneAfterAnotherGiveWhatTheyGiveAllAtOnce() {
        let foldings = NameKey.arabicFoldings
        #expect(foldings.count == 12 + 21, "ten letters, tatweel, superscript alef, and the harakat U+064B–U+065F")
        #expect(Set(foldings.map(\.from)).count == foldings.count, "each letter once")
        for folding in foldings {
            #expect(NameKey.arabicBlock.contains(folding.from.value))
            let replacedAgain = folding.to.unicodeScalars.contains { scalar in foldings.contains { $0.from == scalar } }
            #expect(!replacedAgain, "\(folding.from) → \(folding.to)")
        }
        let passes = NameKey.foldingArabicSQL("k")
        #expect(passes.map { $0.components(separatedBy: "replace(").count - 1 } == [10, 10, 10, 3], "each entry once, ten deep at most")
        #expect(passes[0].hasPrefix(String(repeating: "replace(", count: 10) + "k, '\u{0623}', '\u{0627}'), '\u{0625}', '\u{0627}')"))
        let (a, b) = (NameKey.foldingArabicSQL("a")[1], NameKey.foldingArabicSQL("b")[1])
        let updates = NameKey.foldingArabicUpdates(table: "t", columns: ["a", "b"])
        #expect(updates.count == passes.count && updates[1] == "UPDATE t SET a = \(a), b = \(b) WHERE a <> \(a) OR b <> \(b)")
        #expect(NameKey.holdsArabicVariantSQL("k") == "(" + passes.map { "k <> \($0)" }.joined(separator: " OR ") + ")")
        var random = SeededGenerator(seed: TestSeed.make("arabic replace"))
        let scalars = foldings.map(\.from) + Array("احمد يه A".unicodeScalars)
        for _ in 0..<500 {
            let picked = (0..<Int.random(in: 0...12, using: &random)).map { _ in scalars.randomElement(using: &random)! }
            let text = String(String.UnicodeScalarView(picked))
            var replaced = text
            for folding in foldings {
                var view = String.UnicodeScalarView()
                for scalar in replaced.unicodeScalars {
                    if scalar == folding.from { view.append(contentsOf: folding.to.unicodeScalars) } else { view.append(scalar) }
                }
                replaced = String(view)
            }
            #expect(Array(replaced.unicodeScalars) == Array(NameKey.foldingArabic(text).unicodeScalars), "\(text.debugDescription)")
        }
    }
}
