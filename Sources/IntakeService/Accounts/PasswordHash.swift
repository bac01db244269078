import HummingbirdBcrypt

/// Passwords kept as bcrypt hashes: the one place IntakeService uses a Hummingbird module
/// (hummingbird-auth's bcrypt, which needs nothing of HTTP); `scripts/check-imports` allows it
/// here and nowhere else in the target.
enum PasswordHash {
    /// The hash of `password` at `cost` (each step doubles the work).
    static func make(_ password: String, cost: UInt8) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// Whether `password` is the one `hash` was made from.
    static func matches(_ password: String, hash: String) -> Bool {
        Bcrypt.verify(password, hash: hash)
    }
}
