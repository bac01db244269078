/// Text that a translation leaves in the base language. Its readers see the base language's text
/// there instead, which is allowed (a questionnaire loads), but is rarely meant: a choice a
/// translation's `labels:` forgot, or a label that a comma cut in two in the base file (the
/// second half gets a code of its own, which no translation labels).
public struct UntranslatedText: Sendable, Hashable, CustomStringConvertible {
    /// The language whose readers see the base text.
    public var language: String
    /// The file where the translation belongs: the section's translation, the manifest for the
    /// title, a shared list's translation for its choices.
    public var path: String
    /// The question, when it is a question's text.
    public var question: QuestionPosition?
    /// The question's id, when it has one.
    public var questionId: String?
    /// What is left untranslated: `the label of choice 'seen'`, `the help`, `the title`.
    public var what: String

    public var description: String {
        let question = question.map { " question \($0)\(questionId.map { " (\($0))" } ?? ""):" } ?? ""
        return "\(path):\(question) \(what) has no '\(language)' text; the base language's is shown"
    }
}

extension Questionnaire {
    /// Every text a language of the manifest leaves in the base language, in the order of the
    /// questionnaire (a shared list's missing labels once per list and language).
    public var untranslated: [UntranslatedText] {
        var found: [UntranslatedText] = []
        for language in languages.dropFirst() {
            func missing(_ text: LocalizedText?) -> Bool {
                guard let text, !text.base.isEmpty else { return false }
                return (text.translations[language] ?? "").isEmpty
            }
            if missing(title) {
                found.append(UntranslatedText(language: language, path: manifestPath, what: "the title (title.\(language):)"))
            }
            var listsSeen: Set<String> = []
            for section in sections where !section.path.isEmpty {
                let path = Self.translationPath(section.path, language: language)
                if missing(section.title) {
                    found.append(UntranslatedText(language: language, path: path, what: "the section's title (@title)"))
                }
                for question in section.questions {
                    func add(_ what: String, path: String = path) {
                        found.append(
                            UntranslatedText(
                                language: language, path: path, question: question.position, questionId: question.id, what: what))
                    }
                    if missing(question.help) { add("the help") }
                    if missing(question.constraint?.message) { add("the constraint's message") }
                    if missing(question.alert?.message) { add("the alert") }
                    var choiceSets: [(prefix: String, set: ChoiceSet)] = question.type.choices.map { [("", $0)] } ?? []
                    if case .compound(let fields) = question.type {
                        for field in fields {
                            if missing(field.label) { add("the label of field '\(field.key)' (fields:)") }
                            if let set = field.type.choices { choiceSets.append(("\(field.key).", set)) }
                        }
                    }
                    for (fieldPrefix, set) in choiceSets {
                        // A shared list's file names its codes bare; a field's inline choices are labelled `field.code`.
                        let prefix = set.listName == nil ? fieldPrefix : ""
                        let codes = set.choices.filter { missing($0.label) }.map { "'\(prefix)\($0.code)'" }
                        guard !codes.isEmpty else { continue }
                        let what =
                            codes.count == 1 ? "the label of choice \(codes[0])" : "the labels of choices \(codes.joined(separator: ", "))"
                        if let list = set.listName {
                            guard listsSeen.insert(list).inserted else { continue }
                            found.append(UntranslatedText(language: language, path: "\(list).\(language).txt", what: what))
                        } else {
                            add(what + " (labels:)")
                        }
                    }
                }
            }
        }
        return found
    }

    /// The manifest's path, beside the sections' files.
    private var manifestPath: String {
        guard let path = sections.first?.path, let slash = path.lastIndex(of: "/") else { return "manifest.txt" }
        return path[...slash] + "manifest.txt"
    }

    /// `…/2-history.txt` → `…/2-history.ar.txt`.
    static func translationPath(_ path: String, language: String) -> String {
        guard path.hasSuffix(".txt") else { return path + ".\(language)" }
        return String(path.dropLast(4)) + ".\(language).txt"
    }
}
