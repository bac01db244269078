import Crypto
import Foundation

/// A small real file to upload: a 1×1 PNG, and its SHA-256.
package enum AttachmentFixture {
    package static let png = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
    package static let digest = SHA256.hash(data: png).map { String(format: "%02x", $0) }.joined()

    /// A PNG of `size` bytes, different for each `seed` (a signature, then filler).
    package static func png(size: Int, seed: UInt8) -> Data {
        var bytes = Array(png.prefix(8))
        bytes += (0..<max(0, size - 8)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
        return Data(bytes)
    }

    package static func digest(of data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }
}
