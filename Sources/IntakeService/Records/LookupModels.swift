import Foundation
import IntakeCore

/// A lookup by identifying information within one team.
public struct LookupQuery: Sendable {
    public var teamId: Int64
    public var givenName: String?
    public var familyName: String?
    public var dateOfBirth: LocalDate?
    public var externalId: String?
    public var limit: Int
    public var offset: Int

    public init(
        teamId: Int64, givenName: String? = nil, familyName: String? = nil, dateOfBirth: LocalDate? = nil,
        externalId: String? = nil, limit: Int = 20, offset: Int = 0
    ) {
        self.teamId = teamId
        self.givenName = givenName
        self.familyName = familyName
        self.dateOfBirth = dateOfBirth
        self.externalId = externalId
        self.limit = limit
        self.offset = offset
    }
}

public struct LookupMatch: Sendable {
    public var id: UUID
    public var revision: Int
    public var status: PatientResponse.Status
    public var questionnaire: QuestionnaireReference
    public var patient: PatientIdentification
    public var updatedAt: Date
    /// Higher is better: exact matches outrank prefixes, which outrank substrings.
    public var score: Int
    /// Who collected it (for collector-only questionnaires).
    public var collector: String

    package init(
        id: UUID, revision: Int, status: PatientResponse.Status, questionnaire: QuestionnaireReference, patient: PatientIdentification,
        updatedAt: Date,
        score: Int, collector: String = ""
    ) {
        self.collector = collector
        self.id = id
        self.revision = revision
        self.status = status
        self.questionnaire = questionnaire
        self.patient = patient
        self.updatedAt = updatedAt
        self.score = score
    }
}
