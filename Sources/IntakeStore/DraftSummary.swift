import Foundation
import IntakeCore

/// What a list of drafts shows: no names beyond initials, no answers.
public struct DraftSummary: Hashable, Sendable {
    public var id: UUID
    public var questionnaire: QuestionnaireReference
    public var answerCount: Int
    public var cursor: QuestionPosition?
    public var initials: String
    public var baseRevision: Int?
    public var createdAt: Date
    public var updatedAt: Date
}
