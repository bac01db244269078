import Crypto
import Foundation

/// How deliveries are signed: `Intake-Signature: t=SECONDS,v1=HEX`, where HEX is
/// HMAC-SHA256, keyed with the webhook's secret, of `SECONDS.` followed by the body's bytes.
/// The receiver recomputes it, compares in constant time, and refuses times far from its own
/// clock (a replayed delivery).
public enum WebhookSignature {
    public static let header = "Intake-Signature"

    /// A new secret: 32 random bytes, base64url, prefixed `whsec_`.
    public static func newSecret() -> String {
        let bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        return "whsec_"
            + bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The header's value for `body` sent at `time`.
    public static func sign(_ body: Data, secret: String, at time: Date) -> String {
        let seconds = Int64(time.timeIntervalSince1970)
        return "t=\(seconds),v1=\(mac(body, secret: secret, seconds: seconds))"
    }

    /// Whether `header` is a valid signature of `body` made within `tolerance` of `now`.
    public static func verify(_ header: String, body: Data, secret: String, now: Date, tolerance: TimeInterval = 300) -> Bool {
        var seconds: Int64?
        var given: String?
        for part in header.split(separator: ",") {
            if part.hasPrefix("t=") { seconds = Int64(part.dropFirst(2)) }
            if part.hasPrefix("v1=") { given = String(part.dropFirst(3)) }
        }
        guard let seconds, let given, abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else { return false }
        let expected = mac(body, secret: secret, seconds: seconds)
        // Constant time: every byte is compared whatever the first difference.
        guard expected.utf8.count == given.utf8.count else { return false }
        return zip(expected.utf8, given.utf8).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private static func mac(_ body: Data, secret: String, seconds: Int64) -> String {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: Data(secret.utf8)))
        hmac.update(data: Data("\(seconds).".utf8))
        hmac.update(data: body)
        return hmac.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
