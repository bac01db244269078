/// Why a field worker's command cannot go on, and what to do instead.
public struct FieldworkError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
