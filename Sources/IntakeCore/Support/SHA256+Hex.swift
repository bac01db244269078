import Crypto
import Foundation

extension SHA256.Digest {
    /// The digest as lowercase hexadecimal.
    package var hex: String {
        // Written as ASCII bytes into the string's own storage (appending Characters one at a
        // time was 6 % of the store's CPU: an audit event and a content hash per record).
        String(unsafeUninitializedCapacity: 2 * Self.byteCount) { text in
            var position = 0
            for byte in self {
                text[position] = Self.hexDigits[Int(byte >> 4)]
                text[position + 1] = Self.hexDigits[Int(byte & 0xF)]
                position += 2
            }
            return position
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}

extension RecordCodec {
    /// SHA-256 of a record's canonical bytes, in hexadecimal: equal records have equal hashes.
    public static func contentHash(ofCanonical bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hex
    }
}
