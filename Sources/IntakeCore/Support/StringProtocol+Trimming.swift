extension StringProtocol {
    /// Without leading and trailing spaces and tabs: what `trimmingCharacters(in: .whitespaces)`
    /// gives, without going through Foundation's NSString (which made loading a questionnaire,
    /// and so starting `intake fill`, several times slower).
    package func trimmingSpaces() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !Self.isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !Self.isSpace($0) })!
        return String(self[first..<scalars.index(after: last)])
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
    }
}
