import Foundation

extension UUID {
    /// Reads `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in either case, as `UUID(uuidString:)` does,
    /// without its scanf: records carry one each, and millions are read in an export.
    package init?(canonical text: String) {
        var bytes = [UInt8](repeating: 0, count: 16)
        var count = 0
        var high: UInt8?
        var position = 0
        for character in text.utf8 {
            defer { position += 1 }
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch character {
            case 0x30...0x39: nibble = character - 0x30
            case 0x41...0x46: nibble = character - 0x41 + 10
            case 0x61...0x66: nibble = character - 0x61 + 10
            default: return nil
            }
            if let first = high {
                guard count < 16 else { return nil }
                bytes[count] = first << 4 | nibble
                count += 1
                high = nil
            } else {
                high = nibble
            }
        }
        guard position == 36, count == 16 else { return nil }
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
