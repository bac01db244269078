import Foundation

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
