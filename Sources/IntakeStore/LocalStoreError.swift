/// A local-store failure, saying what could not be done and what to do about it.
///
/// Messages never include answers or patient identities.
public struct LocalStoreError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var fix: String

    public init(_ message: String, fix: String) {
        self.message = message
        self.fix = fix
    }

    public var description: String { "\(message): \(fix)" }
}
