import Crypto
import Foundation

/// Invitation passcodes: six random digits, given out once and kept only as a salted SHA-256.
///
/// A six-digit code is short; what keeps it safe is that an invitation locks after a few wrong
/// tries and expires within days, and that comparisons take the same time whatever matches.
package enum PasscodeHash {
    /// Six digits, each equally likely.
    package static func newPasscode() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(format: "%06d", Int.random(in: 0..<1_000_000, using: &generator))
    }

    /// `sha256$<salt>$<digest>`, in hex.
    package static func make(_ passcode: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return "sha256$" + hex(salt) + "$" + hex(digest(salt: salt, passcode))
    }

    /// Whether `passcode` is the one `stored` was made from, compared in constant time.
    package static func matches(_ passcode: String, _ stored: String) -> Bool {
        let parts = stored.split(separator: "$")
        guard parts.count == 3, parts[0] == "sha256", let salt = bytes(hex: parts[1]), let expected = bytes(hex: parts[2]) else {
            return false
        }
        let actual = digest(salt: salt, passcode)
        guard actual.count == expected.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(actual, expected) { difference |= a ^ b }
        return difference == 0
    }

    private static func digest(salt: [UInt8], _ passcode: String) -> [UInt8] {
        Array(SHA256.hash(data: salt + Array(passcode.utf8)))
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    private static func bytes(hex: Substring) -> [UInt8]? {
        guard hex.count.isMultiple(of: 2) else { return nil }
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }
}
