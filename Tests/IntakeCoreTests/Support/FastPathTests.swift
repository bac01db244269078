import Foundation
import Testing

@testable import IntakeCore

/// The hand-written fast paths on the record path give what Foundation gives.
struct FastPathTests {
    @Test func byteSearchFindsWhatFoundationFinds() {
        var random = SeededGenerator(seed: TestSeed.make("byte search"))
        #expect(ByteSearch.contains([], in: []))
        #expect(!ByteSearch.contains([1], in: []))
        #expect(ByteSearch.contains(Array(#""collector":"""#.utf8), in: Array(#"{"a":1,"collector":""}"#.utf8)))
        #expect(!ByteSearch.contains(Array(#""collector":"""#.utf8), in: Array(#"{"a":1,"collector":"x"}"#.utf8)))
        for _ in 0..<5000 {
            // A small alphabet, so that partial matches and overlaps are common.
            let haystack = (0..<Int.random(in: 0..<40, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) }
            let needle = (0..<Int.random(in: 0..<5, using: &random)).map { _ in UInt8.random(in: 0...3, using: &random) }
            let foundation = needle.isEmpty || Data(haystack).range(of: Data(needle)) != nil
            #expect(ByteSearch.contains(needle, in: haystack) == foundation, "\(needle) in \(haystack)")
        }
    }

    @Test func uuidsReadLikeFoundationReadsThem() {
        var random = SeededGenerator(seed: TestSeed.make("uuids"))
        for _ in 0..<2000 {
            let id = UUID()
            var text = Bool.random(using: &random) ? id.uuidString : id.uuidString.lowercased()
            #expect(UUID(canonical: text) == id)
            if Bool.random(using: &random) {
                var bytes = Array(text.utf8)
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = Array("g-0 Z{".utf8).randomElement(using: &random)!
                text = String(decoding: bytes, as: UTF8.self)
                // Foundation's reader lets some damaged ids through; ours reads only the canonical
                // spelling, and reads that as Foundation does.
                if let read = UUID(canonical: text) { #expect(read == UUID(uuidString: text), "\(text)") }
                let canonical =
                    text.utf8.count == 36
                    && text.utf8.enumerated().allSatisfy { offset, byte in
                        [8, 13, 18, 23].contains(offset) ? byte == UInt8(ascii: "-") : Character(UnicodeScalar(byte)).isHexDigit
                    }
                #expect((UUID(canonical: text) != nil) == canonical, "\(text)")
            }
        }
        for bad in ["", "6f9619ff8b86d011b42d00c04fc964ff", "6f9619ff-8b86-d011-b42d-00c04fc964f", "6f9619ff-8b86-d011-b42d-00c04fc964fff"]
        {
            #expect(UUID(canonical: bad) == nil)
        }
    }

    @Test func asciiNamesFoldLikeFoundationFoldsThem() {
        var random = SeededGenerator(seed: TestSeed.make("names"))
        let alphabet = Array("aZ m-'.\t\n  Xy0")
        for _ in 0..<2000 {
            let name = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let foundation = name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
                .split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(NameKey.fold(name) == foundation, "\(name.debugDescription)")
        }
        #expect(NameKey.fold("  Şahin ") == "sahin")
    }

    @Test func spacesAreTrimmedLikeFoundationTrimsThem() {
        var random = SeededGenerator(seed: TestSeed.make("trimming"))
        let pieces = [" ", "\t", "\u{00A0}", "\u{3000}", "a", "é", "\n", "مرحبا", "x y"]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
    }

    @Test func datesAreReadOnlyWhenTheyExist() {
        #expect(LocalDate(iso: "2024-02-29") != nil)
        for bad in ["2023-02-29", "2024-13-01", "+202-01-01", "2024-1-01", "2024-01-01 ", "２０２４-01-01"] {
            #expect(LocalDate(iso: bad) == nil, "\(bad)")
        }
    }
}
