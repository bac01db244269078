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

    /// On random text of ASCII, Arabic, combining marks, joiners, prepended marks, emoji and
    /// line ends, as a whole string and as a substring of one.
    @Test func theyFindWhatCharactersFind() {
        let pieces = [
            "a", "Z", "7", " ", ",", "=", ":", ";", "ب", "ع", "،", "\u{301}", "\u{A0}", "👍🏽", "é", "\r\n", "\u{600}", "\u{200D}",
            "\u{903}",
        ]
        var generator = SeededGenerator(seed: 49)
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...20, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let sub = ("x" + text + "y").dropFirst().dropLast()
            for byte in [UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: ":")] {
                let character = Character(Unicode.Scalar(byte))
                #expect(text.firstIndex(ofASCII: byte) == text.firstIndex(of: character), "\(text.debugDescription)")
                #expect(sub.firstIndex(ofASCII: byte) == sub.firstIndex(of: character), "\(text.debugDescription)")
                let expected = sub.split(separator: character, omittingEmptySubsequences: false)
                let found = sub.split(atASCII: byte)
                // Bytes, not strings: == on strings takes canonically equivalent text as equal.
                #expect(found.map { Array($0.part.utf8) } == expected.map { Array($0.utf8) }, "\(text.debugDescription)")
                #expect(found.map(\.characters) == expected.map(\.count), "\(text.debugDescription)")
            }
        }
    }
}
