import Foundation

/// Why a deployment's store cannot be opened or copied, said once, with what to do about it;
/// never holds a password.
public struct StoreOpeningError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
