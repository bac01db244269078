import Foundation
import IntakeCore

/// A record being filled in on this device and where its form stood when it was last saved.
public struct Draft: Hashable, Sendable {
    public var response: PatientResponse
    /// The question the form was on; section 0 is the patient section.
    public var cursor: QuestionPosition?
    /// For a record loaded from the server to edit: the revision it was loaded at.
    public var baseRevision: Int?

    public init(response: PatientResponse, cursor: QuestionPosition? = nil, baseRevision: Int? = nil) {
        self.response = response
        self.cursor = cursor
        self.baseRevision = baseRevision
    }
}

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
