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
    func updatePatient(id: UUID, baseRevision: Int, identification: PatientIdentification, groups: DataGroupChange, at time: Date) async throws
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
}

extension PatientStore {
    public func updatePatient(id: UUID, baseRevision: Int, identification: PatientIdentification, at time: Date) async throws
        -> PatientChangeOutcome
    {
        try await updatePatient(id: id, baseRevision: baseRevision, identification: identification, groups: DataGroupChange(), at: time)
    }
}
