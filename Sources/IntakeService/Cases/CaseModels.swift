import Foundation
import IntakeCore

/// A case: follow-up work about one patient, opened by a complete record whose questionnaire's
/// `cases.txt` opens it, changed by the visits recorded for it, assigned to a field worker or left
/// to the team (docs/cases.md).
///
/// Its state is a fold of what opened it and its visits (``CaseFold``): the store keeps the
/// inputs with the state, so a visit that arrives late, or out of its time's order, folds again
/// from the start.
public struct StoredCase: Sendable, Hashable {
    public var id: UUID
    public var list: String
    public var teamId: Int64
    /// The registry patient of the record that opened it, when it names one.
    public var patientId: UUID?
    /// What opened it.
    public var opening: CaseOpeningFacts
    /// Who it is assigned to; nil: the team (its coordinators assign it).
    public var assignee: String?
    public var status: CaseStatus
    /// Its properties now, by name.
    public var properties: [String: Answer]
    public var due: LocalDate?
    /// 1 when opened; each visit's arrival adds one (a record sent again does not).
    public var revision: Int
    /// The visits recorded for it, in the order they arrived.
    public var visits: [CaseVisit]
    /// Properties two visits that saw neither the other changed to different values.
    public var conflicts: [CaseConflict]
    /// A coordinator's closing or opening again, each at its time: they take their place among
    /// the visits by time (a visit made before a closing, arriving after it, does not reopen it).
    public var statusChanges: [CaseStatusChange] = []
    /// The record that opened it was deleted: the case is closed and keeps nothing of the patient
    /// (its patient, its properties and what its visits set are gone; the visits' records are
    /// records of their own).
    public var erased = false
    /// The visits recorded by records that stand: neither withdrawn nor a change by hand.
    public var recordVisits: [CaseVisit] { visits.filter { !$0.withdrawn && !$0.byHand } }
    /// Its label (ODK's): the patient's name, or its id when it names none.
    public var label: String {
        let name = opening.patient.fullName.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? id.uuidString.lowercased() : name
    }
    /// Whether a coordinator opened it by hand (an ODK entity), not a record.
    public var openedByHand: Bool { opening.recordId == id }
    /// Where the case's last change stands among the store's case changes (a pull's cursor).
    public var changeSeq: Int64
    public var updatedAt: Date

    public init(
        id: UUID, list: String, teamId: Int64, patientId: UUID?, opening: CaseOpeningFacts, assignee: String?, status: CaseStatus = .open,
        properties: [String: Answer] = [:], due: LocalDate? = nil, revision: Int = 1, visits: [CaseVisit] = [],
        conflicts: [CaseConflict] = [],
        changeSeq: Int64 = 0, updatedAt: Date
    ) {
        self.id = id
        self.list = list
        self.teamId = teamId
        self.patientId = patientId
        self.opening = opening
        self.assignee = assignee
        self.status = status
        self.properties = properties
        self.due = due
        self.revision = revision
        self.visits = visits
        self.conflicts = conflicts
        self.changeSeq = changeSeq
        self.updatedAt = updatedAt
    }
}

public enum CaseStatus: String, Sendable, Hashable, CaseIterable {
    case open, closed
}

/// The record that opened a case, and what it set.
public struct CaseOpeningFacts: Sendable, Hashable {
    public var recordId: UUID
    /// When the record was made (its `createdAt`).
    public var at: Date
    public var collector: String
    /// Who the case is about, as the record that opened it names them: a follow-up's form
    /// starts from it (identifying: sent only to those who follow the case).
    public var patient: PatientIdentification
    public var properties: [String: Answer]
    public var due: LocalDate?

    public init(
        recordId: UUID, at: Date, collector: String, patient: PatientIdentification = .init(), properties: [String: Answer], due: LocalDate?
    ) {
        self.recordId = recordId
        self.at = at
        self.collector = collector
        self.patient = patient
        self.properties = properties
        self.due = due
    }
}

/// A visit: a complete record filled for the case, and what it changes.
public struct CaseVisit: Sendable, Hashable {
    public var recordId: UUID
    /// When the visit was made (the record's `createdAt`): visits apply in this order, whatever
    /// order they arrive in.
    public var at: Date
    public var collector: String
    /// The case's revision the visit was made from.
    public var baseRevision: Int
    /// The case's revision its arrival made (2 for the first visit to arrive).
    public var arrivalRevision: Int
    public var properties: [String: Answer]
    public var due: LocalDate?
    public var closes: Bool
    /// The machine the visit was filled on: its later visits saw its earlier ones, whatever
    /// revision its copy of the case was at.
    public var deviceId: String
    /// Its record was deleted, or moved to another team: it keeps its place in the case's
    /// revisions, nothing else (it sets nothing, closes nothing, conflicts with nothing).
    public var withdrawn = false
    /// A coordinator's change of properties by hand (an ODK entity's update), not a record:
    /// ``recordId`` names the change, ``collector`` the coordinator. It sets properties and
    /// never opens or closes the case.
    public var byHand = false

    public init(
        recordId: UUID, at: Date, collector: String, baseRevision: Int, arrivalRevision: Int, properties: [String: Answer],
        due: LocalDate?, closes: Bool, deviceId: String = ""
    ) {
        self.deviceId = deviceId
        self.recordId = recordId
        self.at = at
        self.collector = collector
        self.baseRevision = baseRevision
        self.arrivalRevision = arrivalRevision
        self.properties = properties
        self.due = due
        self.closes = closes
    }

    /// Whether the visit was made knowing `other`: from a revision that holds it (the other
    /// arrived first, and this visit's machine pulled the case after it), or on the same machine
    /// after it (two visits made offline, one after the other).
    public func saw(_ other: CaseVisit) -> Bool {
        other.arrivalRevision <= baseRevision || (!deviceId.isEmpty && deviceId == other.deviceId && other.at <= at)
    }
}

/// A coordinator's closing of a case without a visit, or opening it again.
public struct CaseStatusChange: Sendable, Hashable {
    public var at: Date
    public var closed: Bool
    public var by: String

    public init(at: Date, closed: Bool, by: String) {
        self.at = at
        self.closed = closed
        self.by = by
    }
}

/// Two or more visits that saw neither the other, and left one property (or whether the case is
/// closed: `status`) different: flagged for review; the latest visit's value stands meanwhile.
public struct CaseConflict: Sendable, Hashable {
    public var property: String
    /// The visits' records, oldest visit first.
    public var recordIds: [UUID]

    public init(property: String, recordIds: [UUID]) {
        self.property = property
        self.recordIds = recordIds
    }
}
