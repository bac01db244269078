/// One problem with a response, naming the question but never the answer given.
public struct ValidationIssue: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable, Codable {
        case missingRequired, wrongType, outOfRange, unknownChoice, hiddenAnswer, unknownQuestion
        case invalidValue, missingIdentification, wrongQuestionnaire
        /// A calculated answer that did not match its calculation, and is recomputed (a warning).
        case recalculated
    }

    public enum Severity: String, Hashable, Sendable, Codable {
        /// The record cannot be completed until this is fixed.
        case error
        /// Reported and repaired (hidden answers are dropped).
        case warning
    }

    public var kind: Kind
    public var severity: Severity
    /// The question, or nil for the patient section and the record as a whole.
    public var position: QuestionPosition?
    public var questionId: String?
    public var questionText: String?
    /// A patient field (`familyName`) or a compound question's field (`dose`).
    public var field: String?
    /// For a question asked in a repeat: the instance, numbered from 1 (`[2]`; `[2, 1]` inside a
    /// repeat in a repeat).
    public var instance: [Int]?
    public var message: String

    public init(
        kind: Kind, severity: Severity = .error, position: QuestionPosition? = nil, questionId: String? = nil,
        questionText: String? = nil, field: String? = nil, message: String
    ) {
        self.kind = kind
        self.severity = severity
        self.position = position
        self.questionId = questionId
        self.questionText = questionText
        self.field = field
        self.message = message
    }

    init(_ kind: Kind, _ question: Question, field: String? = nil, severity: Severity = .error, _ message: String) {
        self.init(
            kind: kind, severity: severity, position: question.position, questionId: question.id,
            questionText: question.text.base, field: field, message: message)
    }

    /// `section 2, question 5 (cough_days) "For how many days…": answer is above the maximum 365`.
    public var description: String {
        var place: String
        if let position {
            place = "section \(position.section), question \(position.index)"
            if let questionId { place += " (\(questionId))" }
            if let instance { place += ", instance \(instance.map(String.init).joined(separator: "."))" }
            if let field { place += ", field '\(field)'" }
            if let questionText { place += " \"\(questionText)\"" }
        } else if let field {
            place = "patient \(field)"
        } else {
            place = "record"
        }
        return "\(place): \(message)"
    }
}
