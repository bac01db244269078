import Foundation
import Synchronization

/// One question: one line of a section file.
public struct Question: Sendable {
    public var position: QuestionPosition
    /// The stable id given with `id:`, if any. Show-if conditions and exports use it.
    public var id: String?
    public var text: LocalizedText
    public var type: QuestionType
    public var isRequired: Bool
    public var help: LocalizedText?
    /// The question is asked only when this holds; hidden questions have no answer.
    public var showIf: Condition?
    /// `| identifying`: its answer may name or reach a person (a contact's name or phone, free
    /// text that may name people); de-identified exports leave it out.
    public var isIdentifying: Bool = false
    /// `| calculate: weight / ((height / 100) * (height / 100))`: the answer is computed from
    /// earlier answers, never typed; nil when it cannot be (an input unanswered).
    public var calculation: BoundExpression?
    /// `| constraint: . > bp_diastolic`, `| pattern: [A-Z]{3}-[0-9]{4}` and `| message: …`.
    public var constraint: AnswerConstraint?
    /// `| required if: pregnant = yes`: required when this holds.
    public var requiredIf: BoundExpression?
    /// `| default: today()`: the answer offered before the field worker gives one.
    public var defaultValue: BoundExpression?
    /// `| alert if: . = yes | alert: Urgent: follow the referral protocol`.
    public var alert: QuestionAlert?
    /// `| filter: region`: the earlier single-choice question whose answer picks the choices
    /// offered (each tagged `region_code:code=Label`).
    public var choiceFilter: QuestionPosition?
    /// The repeat group the question is asked in, once per instance (the group's own position).
    public var group: QuestionPosition?
    /// A repeat group's `count: household_size`: how many instances it has, when it says.
    public var repeatCount: BoundExpression?
    /// The line in the section file, for messages.
    public var line: Int

    /// Whether the question takes an answer (a note does not).
    public var takesAnswer: Bool { type != .note }

    /// Whether the field worker types the answer (a calculated question is computed, a note
    /// shown, a repeat group's questions asked once per instance).
    public var isAsked: Bool { calculation == nil && takesAnswer && !isRepeat }

    /// Whether this is a repeat group: its answer is the instances of the questions in it.
    public var isRepeat: Bool {
        if case .repeatGroup = type { return true }
        return false
    }

    /// The id, or `s2_q5` for a question without one.
    public var key: String { id ?? "s\(position.section)_q\(position.index)" }
}

/// What kind of answer a question takes.
public enum QuestionType: Sendable, Hashable {
    case text
    case yesNo
    case singleChoice(ChoiceSet)
    case multipleChoice(ChoiceSet)
    case integer(ClosedBounds<Int>)
    case decimal(ClosedBounds<Double>)
    case date(ClosedBounds<DateBound>)
    /// An answer made of named sub-answers, e.g. a medication's name, dose and frequency.
    case compound([CompoundField])
    /// Read-only text shown in the form; `{bmi}` in it shows that question's answer.
    case note
    /// A place: latitude, longitude, and altitude and accuracy when known.
    case geopoint
    /// The questions up to `@end`, answered once per instance; at least and at most this many.
    case repeatGroup(ClosedBounds<Int>)
    /// A file: a photo, an audio recording, a document or a signature (see ``AttachmentKind``).
    case attachment(AttachmentKind)

    /// The keyword used in question files.
    public var keyword: String {
        switch self {
        case .text: "text"
        case .yesNo: "yesno"
        case .singleChoice: "single"
        case .multipleChoice: "multiple"
        case .integer: "integer"
        case .decimal: "decimal"
        case .date: "date"
        case .compound: "compound"
        case .note: "note"
        case .geopoint: "geopoint"
        case .repeatGroup: "repeat"
        case .attachment(let kind): kind.rawValue
        }
    }

    public var choices: ChoiceSet? {
        switch self {
        case .singleChoice(let set), .multipleChoice(let set): set
        default: nil
        }
    }
}

extension QuestionType {
    /// The named parts of an answer, for those that have them: a compound question's fields, and
    /// a geopoint's latitude, longitude, altitude and accuracy. Exports give each part a column.
    public var parts: [CompoundField]? {
        switch self {
        case .compound(let fields): fields
        case .geopoint: GeoPoint.fields
        default: nil
        }
    }
}

extension Answer {
    /// The answer's named parts: a compound answer's fields, a geopoint's coordinates.
    public var parts: [String: Answer]? {
        switch self {
        case .dictionary(let fields): fields
        case .geopoint(let point): point.parts
        default: nil
        }
    }
}

/// What repeat groups may hold, so a record stays a size a form and a server handle.
public enum RepeatLimits {
    /// Instances of one repeat group in one record.
    public static let maxInstances = 500
    /// Repeat groups inside repeat groups (a household's members' vaccinations: 2).
    public static let maxDepth = 2

    /// The number of instances a `count:` value asks for: rounded, and kept within 0 and
    /// ``maxInstances`` while still a number (a huge answer never overflows); nil for no number.
    public static func instances(for value: ExpressionValue) -> Int? {
        guard case .number(let wanted) = value, wanted.isFinite else { return nil }
        let rounded = wanted.rounded(.toNearestOrAwayFromZero)
        if rounded <= 0 { return 0 }
        return rounded >= Double(maxInstances) ? maxInstances : Int(rounded)
    }
}

/// What an answer must satisfy beyond its type: an expression, a pattern for text, or both.
public struct AnswerConstraint: Sendable, Hashable {
    /// Holds for an acceptable answer; checked only when every other answer it reads is given.
    public var expression: BoundExpression?
    /// A regular expression the whole text answer must match (ids, phone numbers).
    public var pattern: String? {
        didSet { compiled = pattern.flatMap(CompiledPattern.init) }
    }
    /// The pattern compiled once, not for every record checked.
    private var compiled: CompiledPattern?
    /// What the field worker is told when the answer is refused, in the questionnaire's languages.
    public var message: LocalizedText?

    public init(expression: BoundExpression? = nil, pattern: String? = nil, message: LocalizedText? = nil) {
        self.expression = expression
        self.pattern = pattern
        self.message = message
        compiled = pattern.flatMap(CompiledPattern.init)
    }

    /// Whether `text` matches the pattern as a whole (true without a pattern).
    public func matches(_ text: String) -> Bool {
        compiled?.matches(text) ?? true
    }

    public static func == (a: AnswerConstraint, b: AnswerConstraint) -> Bool {
        a.expression == b.expression && a.pattern == b.pattern && a.message == b.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(expression)
        hasher.combine(pattern)
        hasher.combine(message)
    }
}

/// A compiled pattern, anchored at both ends. `NSRegularExpression` is immutable and safe to
/// match from any thread once made.
final class CompiledPattern: @unchecked Sendable {
    let regex: NSRegularExpression

    init?(_ pattern: String) {
        guard let regex = try? NSRegularExpression(pattern: "^(?:" + pattern + ")$", options: []) else { return nil }
        self.regex = regex
    }

    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// `matches()` in an expression: each pattern compiled once per process (a few hundred kept).
    static func cached(_ pattern: String) -> CompiledPattern? {
        if let found = cache.withLock({ $0[pattern] }) { return found }
        guard let compiled = CompiledPattern(pattern) else { return nil }
        cache.withLock { kept in
            if kept.count >= 256 { kept.removeAll() }
            kept[pattern] = compiled
        }
        return compiled
    }

    private static let cache = Mutex<[String: CompiledPattern]>([:])
}

/// A rule that notifies the team's coordinators when a stored record meets it.
public struct QuestionAlert: Sendable, Hashable {
    /// When the alert is raised; it reads the question's answer as `.`.
    public var condition: BoundExpression
    /// What coordinators read, in the questionnaire's languages (never the answers).
    public var message: LocalizedText

    public init(condition: BoundExpression, message: LocalizedText) {
        self.condition = condition
        self.message = message
    }
}

/// Optional lower and upper bounds, both inclusive.
public struct ClosedBounds<Bound: Comparable & Sendable & Hashable>: Sendable, Hashable {
    public var lower: Bound?
    public var upper: Bound?

    public init(lower: Bound? = nil, upper: Bound? = nil) {
        self.lower = lower
        self.upper = upper
    }

    public static var unbounded: ClosedBounds { ClosedBounds() }
}

/// A bound of a date range: a fixed date or the day the answer is given.
public enum DateBound: Sendable, Hashable, Comparable, CustomStringConvertible {
    case date(LocalDate)
    case today

    public func resolved(today: LocalDate) -> LocalDate {
        switch self {
        case .date(let date): date
        case .today: today
        }
    }

    public var description: String {
        switch self {
        case .date(let date): date.description
        case .today: "today"
        }
    }
}

/// The choices of a single- or multiple-choice question.
public struct ChoiceSet: Sendable, Hashable {
    public var choices: [Choice]
    /// The shared list the choices came from (`countries`), if any.
    public var listName: String?

    public init(choices: [Choice], listName: String? = nil) {
        self.choices = choices
        self.listName = listName
    }

    public func choice(code: String) -> Choice? {
        choices.first { $0.code == code }
    }

    public func contains(code: String) -> Bool {
        choices.contains { $0.code == code }
    }

    /// The codes that make a whole answer of a multiple choice on their own ("None of these"):
    /// chosen with any other choice, the answer is refused.
    public static let exclusiveCodes: Set<String> = ["none"]

    /// The choices offered when the filtering question is answered `parent` (all of them while
    /// it is unanswered).
    public func filtered(by parent: String?) -> ChoiceSet {
        guard let parent else { return self }
        return ChoiceSet(choices: choices.filter { $0.filter == parent }, listName: listName)
    }
}

/// One choice: a stable code stored in answers and a label shown to people.
public struct Choice: Sendable, Hashable {
    public var code: String
    public var label: LocalizedText
    /// In a filtered list (`amman:sahab=Sahab`): the answer to the filtering question that offers it.
    public var filter: String?

    public init(code: String, label: LocalizedText, filter: String? = nil) {
        self.code = code
        self.label = label
        self.filter = filter
    }
}

/// A named part of a compound answer.
public struct CompoundField: Sendable, Hashable {
    public var key: String
    public var type: QuestionType
    public var isRequired: Bool
    /// Made from the key (`dose_unit` → `Dose unit`); translations come from `fields:`.
    public var label: LocalizedText

    public init(key: String, type: QuestionType, isRequired: Bool, label: LocalizedText? = nil) {
        self.key = key
        self.type = type
        self.isRequired = isRequired
        let words = String(key.map { $0 == "_" ? " " : $0 })
        self.label = label ?? LocalizedText(words.prefix(1).uppercased() + words.dropFirst())
    }
}
