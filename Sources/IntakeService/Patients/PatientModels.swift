import Foundation
import IntakeCore

/// A person in the deployment's registry: who records may point to, what they agreed to share.
///
/// The identification fields identify a person: keep them out of logs and error messages.
public struct Patient: Sendable, Hashable {
    public var id: UUID
    /// The team that registered the patient and keeps them.
    public var teamId: Int64
    public var identification: PatientIdentification
    /// Increases with each change; a change names the revision it was based on.
    public var revision: Int
    /// Archived patients are kept (their records still point to them) but not found by lookups
    /// unless asked for.
    public var archivedAt: Date?
    /// The current sharing scope; nil until consent is recorded, which counts as `no_sharing`.
    public var sharingScope: SharingScope?
    /// The data groups (study arms, cohorts) the patient is in, by name, sorted.
    public var dataGroups: [String]
    public var createdBy: String
    public var createdAt: Date
    public var updatedAt: Date

    package init(
        id: UUID, teamId: Int64, identification: PatientIdentification, revision: Int, archivedAt: Date?, sharingScope: SharingScope?,
        createdBy: String, createdAt: Date, updatedAt: Date, dataGroups: [String] = []
    ) {
        self.id = id
        self.teamId = teamId
        self.dataGroups = dataGroups
        self.identification = identification
        self.revision = revision
        self.archivedAt = archivedAt
        self.sharingScope = sharingScope
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The scope exports obey: `no_sharing` until consent is recorded.
    public var effectiveScope: SharingScope { sharingScope ?? .noSharing }
}

/// How far a researcher's access reaches: which sharing scopes their exports may hold.
public enum ResearchAccess: String, Sendable, Hashable, Codable, CaseIterable {
    /// The sponsor's own study team and its partners: patients who share with sponsors and partners, or with all.
    case study
    /// Qualified researchers outside the study: patients who share with all qualified researchers only.
    case external

    /// The scopes whose patients' records this access may export.
    public var scopes: [SharingScope] {
        switch self {
        case .study: [.sponsorsAndPartners, .allQualifiedResearchers]
        case .external: [.allQualifiedResearchers]
        }
    }
}

/// One consent decision, kept for good: the history is append-only.
public struct Consent: Sendable, Hashable {
    public var patientId: UUID
    public var scope: SharingScope
    public var method: ConsentMethod
    /// Who recorded it.
    public var recordedBy: String
    public var recordedAt: Date

    public init(patientId: UUID, scope: SharingScope, method: ConsentMethod, recordedBy: String, recordedAt: Date) {
        self.patientId = patientId
        self.scope = scope
        self.method = method
        self.recordedBy = recordedBy
        self.recordedAt = recordedAt
    }
}

public struct NewPatient: Sendable, Hashable {
    public var id: UUID
    public var teamId: Int64
    public var identification: PatientIdentification
    public var createdBy: String
    public var createdAt: Date

    public init(id: UUID = UUID(), teamId: Int64, identification: PatientIdentification, createdBy: String, createdAt: Date) {
        self.id = id
        self.teamId = teamId
        self.identification = identification
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}

/// What became of one patient of a registration.
public enum PatientOutcome: Sendable, Equatable {
    case created(Patient)
    /// The same id with the same identification: already registered (a registration sent again).
    case existing(Patient)
    /// Another patient has this external id.
    case externalIdTaken(existing: UUID)
    /// The id is registered with other identification.
    case idTaken
}

/// What became of a change to a patient.
public enum PatientChangeOutcome: Sendable, Equatable {
    case changed(Patient)
    case notFound
    /// The change was based on an older revision.
    case stale(current: Int)
    case externalIdTaken(existing: UUID)
    /// Groups to add or remove that are not defined (`unknown`), and those that are.
    case unknownDataGroups(unknown: [String], defined: [String])
}

/// Groups to put a patient in and take them out of, in one change.
public struct DataGroupChange: Sendable, Hashable {
    public var add: [String]
    public var remove: [String]

    public init(add: [String] = [], remove: [String] = []) {
        self.add = add
        self.remove = remove
    }

    public var isEmpty: Bool { add.isEmpty && remove.isEmpty }
}

/// A group of patients defined for the deployment (a study arm, a cohort): exports can be
/// filtered by it and carry a column for it.
public struct DataGroup: Sendable, Hashable {
    public var name: String
    public var description: String
    public var createdBy: String
    public var createdAt: Date
    /// How many patients are in it.
    public var patients: Int

    public init(name: String, description: String, createdBy: String, createdAt: Date, patients: Int = 0) {
        self.name = name
        self.description = description
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.patients = patients
    }
}

/// What became of deleting a data group.
public enum DataGroupDeletion: Sendable, Equatable {
    case deleted
    case notFound
    /// Patients are still in it: take them out first.
    case inUse(patients: Int)
}

/// Which patients to find: any of the given criteria, all of which must match.
public struct PatientQuery: Sendable, Hashable {
    /// Only this team's patients (nil: every team's).
    public var teamId: Int64?
    /// Matches the start of the given name, the family name, or both ("amina had").
    public var name: String?
    public var dateOfBirth: LocalDate?
    public var externalId: String?
    public var includeArchived = false
    public var limit = 50
    /// A page of the whole registry in id order (what a machine's copy is made of): only ids
    /// after `after`, when given, ordered by id rather than by name.
    public var byId = false
    public var after: UUID?
    /// Only patients whose id starts with this (lowercase hex digits and dashes): what a short id
    /// from a listing stands for.
    public var idPrefix: String?

    public init(
        teamId: Int64? = nil, name: String? = nil, dateOfBirth: LocalDate? = nil, externalId: String? = nil, includeArchived: Bool = false,
        limit: Int = 50
    ) {
        self.teamId = teamId
        self.name = name
        self.dateOfBirth = dateOfBirth
        self.externalId = externalId
        self.includeArchived = includeArchived
        self.limit = limit
    }
}
