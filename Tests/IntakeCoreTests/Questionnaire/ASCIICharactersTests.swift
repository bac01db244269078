import Testing

@testable import IntakeCore

/// `firstIndex(ofASCII:)` and `split(atASCII:)` find the characters that `firstIndex(of:)` and
/// `split(separator:)` find, told by bytes instead of compared as characters.
struct ASCIICharactersTests {
    @Test func aMarkedSeparatorIsOneCharacterNotASeparator() {
        let text = "a=b,\u{301}c,d"
        #expect(text.split(atASCII: UInt8(ascii: ",")).map { String($0.part) } == ["a=b,\u{301}c", "d"])
        #expect(text.split(atASCII: UInt8(ascii: ",")).map(\.characters) == [5, 1])
        #expect("=\u{301}x=y".firstIndex(ofASCII: UInt8(ascii: "=")) == "=\u{301}x=y".firstIndex(of: "="))
        #expect("نعم=Yes".firstIndex(ofASCII: UInt8(ascii: "=")).map { "نعم=Yes".distance(from: "نعم=Yes".startIndex, to: $0) } == 3)
    }

    /// On random text of ASCII, Arabic, combining marks, joiners, prepended and spacing marks,
    /// emoji, line ends and characters equivalent to other ASCII ones, as a whole string and as
    /// substrings of it cut at any scalar (a cut may fall inside a character).
    @Test func theyFindWhatCharactersFind() {
        let pieces = [
            "a", "Z", "7", " ", ",", "=", ":", ";", "ب", "ع", "،", "\u{301}", "\u{A0}", "👍🏽", "🇸🇾", "é", "\r\n", "\u{600}",
            "\u{200D}", "\u{903}", "\u{37E}", "\u{212A}", "\u{338}",
        ]
        var generator = SeededGenerator(seed: 49)
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...20, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let scalars = text.unicodeScalars
            let lower = Int.random(in: 0...scalars.count, using: &generator)
            let upper = Int.random(in: lower...scalars.count, using: &generator)
            let cut = Substring(
                scalars[scalars.index(scalars.startIndex, offsetBy: lower)..<scalars.index(scalars.startIndex, offsetBy: upper)])
            for byte in [UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: ":")] {
                let character = Character(Unicode.Scalar(byte))
                #expect(text.firstIndex(ofASCII: byte) == text.firstIndex(of: character), "\(text.debugDescription)")
                #expect(cut.firstIndex(ofASCII: byte) == cut.firstIndex(of: character), "\(cut.debugDescription)")
                Self.expectSameSplit(Substring(text), at: byte)
                Self.expectSameSplit(cut, at: byte)
            }
        }
    }

    private static func expectSameSplit(_ text: Substring, at byte: UInt8) {
        let expected = text.split(separator: Character(Unicode.Scalar(byte)), omittingEmptySubsequences: false)
        let found = text.split(atASCII: byte)
        // Bytes, not strings: == on strings takes canonically equivalent text as equal.
        #expect(found.map { Array($0.part.utf8) } == expected.map { Array($0.utf8) }, "\(text.debugDescription)")
        #expect(found.map(\.characters) == expected.map(\.count), "\(text.debugDescription)")
    }
}
