import Foundation

/// A parsed questionnaire: a manifest and its numbered sections of questions.
///
/// Load one with ``QuestionnaireLoader``; its ``version`` is a hash of every file it was read
/// from, so a response that records the version can always be mapped back to the exact questions
/// it answered.
public struct Questionnaire: Sendable {
    /// The stable id from the manifest, e.g. `refugee-health`.
    public var id: String
    public var title: LocalizedText
    /// The first 16 hex digits of a SHA-256 over the questionnaire's files (see the format docs).
    public var version: String
    /// The version of the text format the files are written in.
    public var formatVersion: Int
    /// The base language first, then the translations.
    public var languages: [String]
    /// How the questionnaire names its languages (`fr` → `Français`), where its manifest does.
    public var languageNames: [String: String] = [:]
    /// The case list it follows and the cases it opens (`cases.txt`).
    public var cases = CaseRules()
    public var sections: [Section] {
        didSet {
            (allQuestions, checks, ordinals) = Self.index(sections)
            hasCalculations = allQuestions.contains { $0.calculation != nil || $0.isRepeat }
            repeatMembers = Self.members(allQuestions)
        }
    }
    /// All questions in order, section by section (kept, as every record's check walks them).
    public private(set) var allQuestions: [Question]
    /// What validation needs of each question, in the same order: small, so that walking every
    /// question for every record stays cheap.
    package private(set) var checks: [QuestionCheck]
    /// Finds a position's ordinal without hashing.
    package private(set) var ordinals: QuestionOrdinals

    public init(id: String, title: LocalizedText, version: String, formatVersion: Int, languages: [String], sections: [Section]) {
        self.id = id
        self.title = title
        self.version = version
        self.formatVersion = formatVersion
        self.languages = languages
        self.sections = sections
        (allQuestions, checks, ordinals) = Self.index(sections)
        hasCalculations = allQuestions.contains { $0.calculation != nil || $0.isRepeat }
        repeatMembers = Self.members(allQuestions)
    }

    /// Whether any question is calculated or repeated: a record's answers then need settling
    /// beyond show-if (kept, as every record's check asks).
    public private(set) var hasCalculations = false

    /// By repeat group: the ordinals of the questions asked in each instance (not those of a
    /// repeat inside it, which are its own group's).
    package private(set) var repeatMembers: [QuestionPosition: [Int]] = [:]

    /// Whether any question is a repeat group.
    public var hasRepeats: Bool { !repeatMembers.isEmpty }

    /// The questions asked in each instance of the repeat group at `position`, in order.
    public func members(of position: QuestionPosition) -> [Question] {
        (repeatMembers[position] ?? []).map { allQuestions[$0] }
    }

    private static func members(_ questions: [Question]) -> [QuestionPosition: [Int]] {
        var members: [QuestionPosition: [Int]] = [:]
        for (ordinal, question) in questions.enumerated() {
            if question.isRepeat, members[question.position] == nil { members[question.position] = [] }
            if let group = question.group { members[group, default: []].append(ordinal) }
        }
        return members
    }

    private static func index(_ sections: [Section]) -> ([Question], [QuestionCheck], QuestionOrdinals) {
        let questions = sections.flatMap(\.questions)
        return (
            questions,
            questions.enumerated().map { ordinal, question in
                QuestionCheck(
                    position: question.position, type: question.type, isRequired: question.isRequired, showIf: question.showIf,
                    ordinal: ordinal,
                    hasRules: question.constraint != nil || question.requiredIf != nil || question.calculation != nil
                        || question.choiceFilter != nil || !question.takesAnswer || question.isRepeat,
                    inRepeat: question.group != nil)
            },
            QuestionOrdinals(sections)
        )
    }

    /// Where the question at `position` is in ``allQuestions`` (and `checks`), if it exists.
    package func ordinal(of position: QuestionPosition) -> Int? { ordinals[position] }

    /// What settling show-if for a record needs, small enough to keep beside every record.
    package var visibility: Visibility {
        Visibility(
            ordinals: ordinals, questionCount: checks.count,
            conditions: checks.compactMap { check in check.inRepeat ? nil : check.showIf.map { (check.ordinal, $0) } })
    }

    public var baseLanguage: String { languages.first ?? "en" }

    public var reference: QuestionnaireReference {
        QuestionnaireReference(id: id, version: version)
    }

    public var questionCount: Int { sections.reduce(0) { $0 + $1.questions.count } }

    public func section(_ number: Int) -> Section? {
        sections.first { $0.number == number }
    }

    public func question(at position: QuestionPosition) -> Question? {
        guard let section = section(position.section), section.questions.indices.contains(position.index - 1)
        else { return nil }
        return section.questions[position.index - 1]
    }

    /// The questions shown for a response's answers: those without a condition and those whose
    /// condition holds, where hidden questions count as unanswered.
    public func visiblePositions(in response: PatientResponse) -> Set<QuestionPosition> {
        let hidden = hiddenPositions(in: response)
        return Set(checks.lazy.map(\.position).filter { !hidden.contains($0) })
    }

    /// The questions show-if hides for a response's answers (usually a handful): the cheap side
    /// to compute for every record of an export or an upload. Conditions read only earlier
    /// questions (the parser makes sure), so one pass in order settles every question.
    public func hiddenPositions(in response: PatientResponse) -> Set<QuestionPosition> {
        hiddenQuestions(in: response).positions(in: self)
    }

    public func question(id: String) -> Question? {
        allQuestions.first { $0.id == id }
    }
}

/// Where each question is in a questionnaire's order, found from its position by arithmetic.
package struct QuestionOrdinals: Sendable {
    /// By section number: the ordinal of the section's first question and its question count
    /// (count 0 for numbers no section has).
    private let starts: [(first: Int, count: Int)]

    init(_ sections: [Section]) {
        var starts = [(first: Int, count: Int)](repeating: (0, 0), count: (sections.map(\.number).max() ?? 0) + 1)
        var first = 0
        for section in sections where section.number >= 0 {
            starts[section.number] = (first, section.questions.count)
            first += section.questions.count
        }
        self.starts = starts
    }

    package subscript(position: QuestionPosition) -> Int? {
        guard starts.indices.contains(position.section) else { return nil }
        let start = starts[position.section]
        guard position.index >= 1, position.index <= start.count else { return nil }
        return start.first + position.index - 1
    }
}

/// A questionnaire's show-if conditions by ordinal: ``Questionnaire/hiddenPositions(in:)`` for
/// answers laid out in an array rather than a record.
package struct Visibility: Sendable {
    package let ordinals: QuestionOrdinals
    package let questionCount: Int
    let conditions: [(ordinal: Int, condition: Condition)]

    /// Sets `hidden[ordinal]` for each question show-if hides; `answers` and `hidden` are by
    /// ordinal (`hidden` is resized to the question count). Conditions read only earlier
    /// questions, so one pass in order settles every question.
    package func markHidden(_ hidden: inout [Bool], answers: [Answer?]) {
        hidden.removeAll(keepingCapacity: true)
        hidden.append(contentsOf: repeatElement(false, count: questionCount))
        let ordinals = ordinals
        for (ordinal, condition) in conditions {
            let shown = condition.isSatisfied { position in
                guard let source = ordinals[position], !hidden[source] else { return nil }
                return answers[source]
            }
            if !shown { hidden[ordinal] = true }
        }
    }
}

/// A question as validation sees it; `ordinal` finds the whole question in `allQuestions`.
package struct QuestionCheck: Sendable {
    package var position: QuestionPosition
    package var type: QuestionType
    package var isRequired: Bool
    package var showIf: Condition?
    package var ordinal: Int
    /// Whether the question has a constraint, a `required if`, a calculation or takes no answer:
    /// only those need the whole question.
    package var hasRules: Bool
    /// Asked once per instance of a repeat group: its answers are in the group's, never at the top.
    package var inRepeat: Bool
}

/// The id and version a response was collected with.
public struct QuestionnaireReference: Hashable, Codable, Sendable, CustomStringConvertible {
    public var id: String
    public var version: String

    public init(id: String, version: String) {
        self.id = id
        self.version = version
    }

    public var description: String { "\(id)@\(version)" }
}

/// Where a question stands: its section number and 1-based index within the section.
public struct QuestionPosition: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var index: Int

    public init(section: Int, index: Int) {
        self.section = section
        self.index = index
    }

    /// `2.5`: section 2, question 5.
    public var description: String { "\(section).\(index)" }

    /// One word to hash, not two: positions are hashed on every answer a check or a condition
    /// reads (`Set<QuestionPosition>` of hidden questions).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(section &<< 32 ^ index)
    }

    public static func < (lhs: QuestionPosition, rhs: QuestionPosition) -> Bool {
        (lhs.section, lhs.index) < (rhs.section, rhs.index)
    }
}

/// Text in the questionnaire's base language with its translations.
public struct LocalizedText: Hashable, Sendable {
    public var base: String
    public var translations: [String: String]

    public init(_ base: String, translations: [String: String] = [:]) {
        self.base = base
        self.translations = translations
    }

    /// The text in `language`, or the base text when there is no translation.
    public func text(in language: String?) -> String {
        guard let language, let translated = translations[language], !translated.isEmpty else { return base }
        return translated
    }
}

extension Questionnaire {
    /// Whether a shared choice-list file (`countries.txt`, `countries.ar.txt`) is one this
    /// questionnaire's questions use: those are sent with it when it is published.
    public func uses(listFile fileName: String) -> Bool {
        let listName = String(fileName.prefix { $0 != "." })
        return allQuestions.contains { question in
            if question.type.choices?.listName == listName { return true }
            if case .compound(let fields) = question.type { return fields.contains { $0.type.choices?.listName == listName } }
            return false
        }
    }
}
