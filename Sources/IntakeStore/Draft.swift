import Foundation
import IntakeCore

/// A record in the local store and where its form stood when it was last saved.
public struct Draft: Hashable, Sendable {
    public var response: PatientResponse
    /// The question the form was on; section 0 is the patient section.
    public var cursor: QuestionPosition?

    public init(response: PatientResponse, cursor: QuestionPosition? = nil) {
        self.response = response
        self.cursor = cursor
    }
}

/// What a list of local records shows: no names beyond initials, no answers.
public struct DraftSummary: Hashable, Sendable {
    public var id: UUID
    public var questionnaire: QuestionnaireReference
    public var status: PatientResponse.Status
    public var answerCount: Int
    public var cursor: QuestionPosition?
    public var initials: String
    public var createdAt: Date
    public var updatedAt: Date
}
