import Crypto
import Foundation
import IntakeCore

/// Bearer tokens: 32 random bytes, shown once as `itk_…`, stored only as a SHA-256 hash.
enum APIToken {
    static func generate() -> String {
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
