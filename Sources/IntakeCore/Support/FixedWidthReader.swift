/// Reads fixed-width ASCII fields byte by byte (`2026-11-22`, `05:19:08.123Z`): the dates and
/// times records carry, read without formatters or splitting.
package struct FixedWidthReader {
    private var utf8: String.UTF8View.Iterator

    package init(_ text: String) {
        utf8 = text.utf8.makeIterator()
    }

    /// The next `count` bytes as a decimal number, or nil when one of them is not a digit.
    package mutating func digits(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let byte = utf8.next(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Whether the next byte is `byte` (taking it either way).
    package mutating func expect(_ byte: UInt8) -> Bool { utf8.next() == byte }

    package mutating func next() -> UInt8? { utf8.next() }
}
