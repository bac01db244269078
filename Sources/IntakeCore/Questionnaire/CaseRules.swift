import Foundation

/// What a questionnaire does with cases, as its `cases.txt` declares (docs/questionnaire-format.md#cases):
/// the case list it is filled for, if any, with the properties it reads as `case.name`; what a
/// visit sets on that case, and when it closes it; and the cases it opens.
///
/// ```
/// follows: follow-up
/// property: phq2 integer 0..6
/// set: last_visit = visit_date
/// close if: outcome = resolved
///
/// opens: pregnancy
/// if: pregnant = yes
/// set: edd = edd
/// ```
public struct CaseRules: Sendable, Hashable {
    /// The file that declares them, in a questionnaire folder.
    public static let fileName = "cases.txt"
    /// At most this many `opens:` in one questionnaire.
    public static let maxOpenings = 16
    /// Names a case keeps for itself (its status, its due date): no property takes them.
    public static let reservedPropertyNames: Set<String> = ["status", "due"]

    /// The list whose open cases this questionnaire is filled for.
    public var follows: Follow?
    /// The cases a complete record opens, each when its condition holds.
    public var opens: [Opening] = []

    public init(follows: Follow? = nil, opens: [Opening] = []) {
        self.follows = follows
        self.opens = opens
    }

    /// Whether the questionnaire touches cases at all.
    public var isEmpty: Bool { follows == nil && opens.isEmpty }

    /// One line for `intake questionnaire check`: `follows follow-up (reads 5 properties, sets 4,
    /// closes when a condition holds); opens follow-up when a condition holds`.
    public var summary: String? {
        var parts: [String] = []
        if let follows {
            var what = ["reads \(follows.properties.count) propert\(follows.properties.count == 1 ? "y" : "ies")"]
            what.append("sets \(follows.assignments.count)")
            if follows.due != nil { what.append("sets when it is due") }
            if follows.closeIf != nil { what.append("closes it when a condition holds") }
            parts.append("follows \(follows.list) (\(what.joined(separator: ", ")))")
        }
        for opening in opens {
            parts.append(
                "opens \(opening.list)\(opening.condition == nil ? "" : " when a condition holds"), for the \(opening.assignment == .collector ? "collector" : "team")"
            )
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The property a follow-up reads as `case.name`, with where an expression finds it.
    public func property(named name: String) -> (property: Property, position: QuestionPosition)? {
        guard let follows, let offset = follows.properties.firstIndex(where: { $0.name == name }) else { return nil }
        return (follows.properties[offset], Self.position(ofProperty: offset + 1))
    }

    /// Case properties are read by expressions at section -1, by their 1-based place among the
    /// followed list's ``Follow/properties`` (as a record stores them in ``CaseLink/properties``).
    public static let section = -1

    public static func position(ofProperty index: Int) -> QuestionPosition {
        QuestionPosition(section: section, index: index)
    }

    /// A case property as a follow-up reads it: a name and the type of its value.
    public struct Property: Sendable, Hashable {
        public var name: String
        public var type: QuestionType
        /// Whether its value may name or reach a person: de-identified exports leave it out.
        public var isIdentifying: Bool

        public init(name: String, type: QuestionType, isIdentifying: Bool = false) {
            self.name = name
            self.type = type
            self.isIdentifying = isIdentifying
        }
    }

    /// A property set from an expression over the record's answers (and, in a follow-up, the case).
    public struct Assignment: Sendable, Hashable {
        public var property: String
        public var value: BoundExpression

        public init(property: String, value: BoundExpression) {
            self.property = property
            self.value = value
        }
    }

    /// `follows: list`: the questionnaire is filled for an open case of the list.
    public struct Follow: Sendable, Hashable {
        public var list: String
        /// What it reads of the case, in order: a record's ``CaseLink/properties`` are keyed by place here.
        public var properties: [Property] = []
        /// What a complete visit sets.
        public var assignments: [Assignment] = []
        /// The case's next due date after the visit.
        public var due: BoundExpression?
        /// A complete visit closes the case when this holds.
        public var closeIf: BoundExpression?

        public init(list: String) {
            self.list = list
        }
    }

    /// `opens: list`: a complete record opens a case of the list when ``condition`` holds (always
    /// without one). The case's id is made from the record's id and the opening's place, so a
    /// record sent again opens no second case.
    public struct Opening: Sendable, Hashable {
        public var list: String
        public var condition: BoundExpression?
        public var assignments: [Assignment] = []
        public var due: BoundExpression?
        public var assignment: CaseAssignment = .collector

        public init(list: String) {
            self.list = list
        }
    }
}

/// Who a newly opened case goes to.
public enum CaseAssignment: String, Sendable, Hashable, CaseIterable {
    /// The field worker who collected the record that opened it.
    case collector
    /// No one yet: the team's coordinators assign it (it reaches every machine of the team until then).
    case team
}

extension CaseRules.Property {
    /// The value `text` spells for this property (ODK's entities hold text): a number, a date
    /// `YYYY-MM-DD`, yes or no, a choice's code, codes separated by spaces; nil when it spells none.
    public func answer(fromText text: String) -> Answer? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .text: return trimmed.isEmpty ? nil : .text(text)
        case .integer: return Int(trimmed).map(Answer.integer)
        case .decimal: return Double(trimmed).flatMap { $0.isFinite ? .decimal($0) : nil }
        case .date: return LocalDate(iso: trimmed).map(Answer.date)
        case .yesNo:
            switch trimmed.lowercased() {
            case "yes", "true", "1": return .yesNo(true)
            case "no", "false", "0": return .yesNo(false)
            default: return nil
            }
        default: return Answer(.text(trimmed), for: type)
        }
    }

    /// The value as people read it: a choice by its label (in `language` when the declaration
    /// gives one), several separated by commas, a code the declaration lacks as it stands; any
    /// other value as expressions write it. A code a screening set as text (`set: reason =
    /// "low_mood"`) is read as the choice, as a follow-up reads it.
    public func text(of value: Answer, language: String? = nil) -> String {
        guard let set = type.choices else { return ExpressionValue(value).text }
        func label(_ code: String) -> String { set.choice(code: code)?.label.text(in: language) ?? code }
        var value = value
        if case .text = value, let read = Answer(ExpressionValue(value), for: type) { value = read }
        switch value {
        case .choice(let code): return label(code)
        case .choices(let codes): return codes.map(label).joined(separator: ", ")
        default: return ExpressionValue(value).text
        }
    }
}

/// A list's name: lowercase letters, digits, `-` and `_`, starting with a letter (`follow-up`).
public enum CaseListName {
    /// A property's name: letters, digits and `_`, starting with a letter or `_`, at most 64.
    public static func isPropertyName(_ name: String) -> Bool { name.count <= 64 && ConditionParser.isIdentifier(name) }

    public static func isValid(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 64 else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }
}

extension CaseRules.Follow {
    /// The link a follow-up record carries for the case `caseId` whose properties are `values`
    /// (by name, as the case holds them): each property the questionnaire reads, in its declared
    /// type (a code set as text is read as the choice; a value that fits no longer is left out).
    public func link(caseId: UUID, revision: Int = 1, values: [String: Answer]) -> CaseLink {
        var properties: [Int: Answer] = [:]
        for (offset, property) in self.properties.enumerated() {
            guard let value = values[property.name] else { continue }
            if let typed = Answer(ExpressionValue(value), for: property.type) { properties[offset + 1] = typed }
        }
        return CaseLink(id: caseId, list: list, revision: revision, properties: properties)
    }
}
