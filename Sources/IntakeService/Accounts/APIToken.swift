import Crypto
import Foundation
import IntakeCore

/// How a new token is spelled.
public enum TokenStyle: Sendable {
    /// `itk_` and 32 random bytes in URL-safe base64: Intake's bearer tokens.
    case intake
    /// 32 upper-case hexadecimal characters (16 random bytes), as REDCap issues them: what REDCap
    /// clients (PyCap checks the length) send in the `token` field. It works as a bearer token too.
    case redcap
}

/// Bearer tokens: 32 random bytes, shown once as `itk_…` (or 16 as REDCap's 32 hexadecimal
/// characters), stored only as a SHA-256 hash.
enum APIToken {
    static func generate(_ style: TokenStyle = .intake) -> String {
        if style == .redcap {
            var generator = SystemRandomNumberGenerator()
            return (0..<16).map { _ in String(format: "%02X", UInt8.random(in: 0...255, using: &generator)) }.joined()
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let base64 = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "itk_" + base64
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).hex
    }
}
