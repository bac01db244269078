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

    /// A tab or a space separator. Of ASCII only the space is one; asked first, it spares the
    /// Unicode tables a lookup for nearly every character a questionnaire holds.
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar == " " || scalar == "\t" }
        return scalar.properties.generalCategory == .spaceSeparator
    }
}
