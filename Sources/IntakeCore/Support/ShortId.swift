/// The start of an id as listings show it (`d78265ce`): 4 to 36 hex digits and dashes. What a
/// short id may be wherever one is taken for a record, a patient or a draft, so that no other
/// text (a `%`, a `_`) ever reaches a `LIKE` pattern.
public enum ShortId {
    public static func isPrefix(_ text: String) -> Bool {
        (4...36).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isHexDigit || $0 == "-") }
    }
}
