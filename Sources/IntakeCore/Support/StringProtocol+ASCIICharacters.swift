import Foundation

extension StringProtocol {
    /// The first character that is the one ASCII byte `byte` alone (as `firstIndex(of:)` of that
    /// character finds it), told by its bytes: comparing characters goes through Unicode's
    /// normalization for every letter that is not ASCII (a choice list in Arabic, say). A
    /// character equals an ASCII character only when it is that one byte.
    package func firstIndex(ofASCII byte: UInt8) -> Index? {
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
}
