/// One numbered section file of a questionnaire, e.g. `2-history.txt`.
public struct Section: Sendable {
    /// The number in the file name's prefix; sections are numbered 1, 2, 3… without gaps.
    public var number: Int
    /// The file name without number and extension: `history`.
    public var name: String
    public var title: LocalizedText
    public var questions: [Question]
    /// The section file's path as given to the loader, for messages.
    public var path: String
}
