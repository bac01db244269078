import Foundation

extension StringProtocol {
    /// The first character that is the one ASCII byte `byte` alone (as `firstIndex(of:)` of that
    /// character finds it), told by its bytes: comparing characters goes through Unicode's
    /// normalization for every letter that is not ASCII (a choice list in Arabic, say).
    ///
    /// A character equals such a character only when it is that one byte: no other character is
    /// canonically equivalent to it. That holds for every ASCII character but three, `;`, `K` and
    /// `` ` `` (U+037E, U+212A and U+1FEF are equivalent to them), which `byte` must not be.
    package func firstIndex(ofASCII byte: UInt8) -> Index? {
        precondition(Self.alone(byte), "no other character may be equivalent to the byte's")
        let bytes = utf8
        var index = startIndex
        while index < endIndex {
            let after = self.index(after: index)
            if bytes[index] == byte, bytes.index(after: index) == after { return index }
            index = after
        }
        return nil
    }

    /// The parts between the characters that are the one ASCII byte `byte` alone, each with its
    /// count of characters: `split(separator:omittingEmptySubsequences: false)` of that character,
    /// told by bytes as ``firstIndex(ofASCII:)`` tells them.
    package func split(atASCII byte: UInt8) -> [(part: SubSequence, characters: Int)] {
        precondition(Self.alone(byte), "no other character may be equivalent to the byte's")
        let bytes = utf8
        var parts: [(part: SubSequence, characters: Int)] = []
        var start = startIndex
        var characters = 0
        var index = startIndex
        while index < endIndex {
            let after = self.index(after: index)
            if bytes[index] == byte, bytes.index(after: index) == after {
                parts.append((self[start..<index], characters))
                start = after
                characters = 0
            } else {
                characters += 1
            }
            index = after
        }
        parts.append((self[start..<endIndex], characters))
        return parts
    }

    /// An ASCII byte no other character is canonically equivalent to.
    private static func alone(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != UInt8(ascii: ";") && byte != UInt8(ascii: "K") && byte != UInt8(ascii: "`")
    }
}
