import Crypto
import Foundation

extension SHA256.Digest {
    /// The digest as lowercase hexadecimal.
    package var hex: String {
        var text = ""
        text.reserveCapacity(64)
        for byte in self {
            text.append(Self.hexDigits[Int(byte >> 4)])
            text.append(Self.hexDigits[Int(byte & 0xF)])
        }
        return text
    }

    private static let hexDigits = Array("0123456789abcdef")
}

extension RecordCodec {
    /// SHA-256 of a record's canonical bytes, in hexadecimal: equal records have equal hashes.
    public static func contentHash(ofCanonical bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).hex
    }
}
