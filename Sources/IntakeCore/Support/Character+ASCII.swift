extension Character {
    /// `isLetter`, answered without Unicode's tables for ASCII (nearly every character of a
    /// questionnaire's keywords): the tables' first look costs more than the rest of a parse.
    var isLetterQuickly: Bool {
        if let ascii = asciiValue { return (ascii | 0x20) >= 0x61 && (ascii | 0x20) <= 0x7A }
        return isLetter
    }
}

extension Unicode.Scalar {
    /// `a`–`z` or `A`–`Z`: what `isASCII && properties.isAlphabetic` says, without the tables.
    var isASCIILetter: Bool {
        let folded = value | 0x20
        return value < 0x80 && folded >= 0x61 && folded <= 0x7A
    }
}
