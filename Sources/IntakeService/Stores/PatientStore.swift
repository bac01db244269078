import Foundation
import IntakeCore

/// The patient registry and consent. An external id is unique in the deployment; consent is an
/// append-only history whose latest entry is the patient's current scope.
public protocol PatientStore: Sendable {
    /// Registers patients in one transaction, an outcome for each in order. An external id
    /// another patient has (or one earlier in the same batch) is refused, naming that patient. An id
    /// already registered is `existing` for the same team and identification, else `idTaken`.
    func registerPatients(_ patients: [NewPatient]) async throws -> [PatientOutcome]
    func patient(id: UUID) async throws -> Patient?
    /// Patients matching every criterion given, by family name, given name, id.
    func findPatients(_ query: PatientQuery) async throws -> [Patient]
    /// Replaces a patient's identification and adds and removes data groups, all or nothing, if
    /// `baseRevision` is current; every group named must be defined.
    func updatePatient(id: UUID, baseRevision: Int, identification: PatientIdentification, groups: DataGroupChange, at time: Date)
        async throws
        -> PatientChangeOutcome
    /// Archives (or restores) a patient; nil when there is none.
    func setPatientArchived(id: UUID, _ archived: Bool, at time: Date) async throws -> Patient?
    /// Appends a consent decision and makes it the patient's current scope; nil when there is no such patient.
    func recordConsent(_ consent: Consent) async throws -> Patient?
    /// Every consent decision for the patient, oldest first.
    func consentHistory(patientId: UUID) async throws -> [Consent]

    // MARK: Data groups

    /// Defines a data group; false when one has that name.
    func createDataGroup(_ group: DataGroup) async throws -> Bool
    /// Every data group with how many patients are in it, by name.
    func dataGroups() async throws -> [DataGroup]
    /// Deletes a data group nobody is in (checked and done in one step, whatever else happens at once).
    func deleteDataGroup(name: String) async throws -> DataGroupDeletion

    // MARK: Dated reports

    /// Stores the report of `date` in the patient's `series`, replacing (and keeping in history)
    /// one stored before for that date. The first report of a series fixes its kind of date for
    /// every patient; a date of the other kind is refused.
    func putReport(patientId: UUID, series: String, date: ReportDate, values: String, by author: String, at time: Date) async throws
        -> ReportOutcome
    /// The current reports of a series in a range (see ``ReportQuery``).
    func reports(_ query: ReportQuery) async throws -> ReportsOutcome
    /// Every version of one date's report, oldest first (the last is the current one).
    func reportHistory(patientId: UUID, series: String, date: ReportDate) async throws -> [Report]
    /// The current version of every dated report of team `teamId`'s patients, ordered by patient
    /// id, series and date, after `after` (that triple) when given: what a machine's copy of the
    /// registry is made of.
    func teamReports(teamId: Int64, after: (patientId: UUID, series: String, date: String)?, limit: Int) async throws -> [Report]
}

extension PatientStore {
    public func updatePatient(id: UUID, baseRevision: Int, identification: PatientIdentification, at time: Date) async throws
        -> PatientChangeOutcome
    {
        try await updatePatient(id: id, baseRevision: baseRevision, identification: identification, groups: DataGroupChange(), at: time)
    }
}
