extension StringProtocol {
    /// Whether the text has a character other than white space: what the OpenAPI patterns `\S`
    /// ask (ECMAScript's white space: Unicode White_Space and U+FEFF).
    package var hasVisibleCharacter: Bool {
        unicodeScalars.contains { !$0.properties.isWhitespace && $0 != "\u{FEFF}" }
    }
}
