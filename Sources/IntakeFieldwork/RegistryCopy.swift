import Foundation
import IntakeClient
import IntakeCore
import IntakeStore

/// The team's patient registry on this machine: copied whole by `intake sync` (sealed in the
/// local store like the records' copy), searched by `intake patient find --offline`, with the
/// registrations made offline and not yet sent.
public struct RegistryCopy: Sendable {
    public let store: LocalStore
    static let document = "registry"
    static let reportsDocument = "registry-reports"

    public init(store: LocalStore) {
        self.store = store
    }

    /// Copies the whole registry a page at a time, then keeps it in one step; how many patients.
    @discardableResult
    public func sync(from client: IntakeClient) async throws -> Int {
        var patients: [RemotePatient] = []
        var after: String?
        while true {
            let page = try await client.registry(after: after)
            patients += page
            guard page.count == 500, let last = page.last else { break }
            after = last.id
        }
        var reports: [RemoteReport] = []
        var next: String?
        repeat {
            let page = try await client.teamReports(after: next)
            reports += page.reports
            next = page.next
        } while next != nil
        try store.saveDocument(Self.document, try JSONEncoder().encode(patients))
        try store.saveDocument(Self.reportsDocument, try JSONEncoder().encode(reports))
        return patients.count
    }

    /// The copied reports of `patient` (an id or its first characters) in `series`, by date.
    public func reports(patient: String, series: String) throws -> [RemoteReport]? {
        guard let (data, _) = try store.document(Self.reportsDocument) else { return nil }
        let prefix = patient.lowercased()
        let all = try JSONDecoder().decode([RemoteReport].self, from: data).filter { ($0.patientId ?? "").hasPrefix(prefix) }
        // A short id must name one patient: reports of two are never shown as one's.
        if Set(all.compactMap(\.patientId)).count > 1 {
            throw FieldworkError("'\(patient)' starts the ids of several patients; give more of the id")
        }
        return all.filter { $0.series == series }.sorted { $0.date < $1.date }
    }

    /// The copy and when it was made; nil before the first sync.
    public func load() throws -> (patients: [RemotePatient], savedAt: Date)? {
        guard let (data, savedAt) = try store.document(Self.document) else { return nil }
        return (try JSONDecoder().decode([RemotePatient].self, from: data), savedAt)
    }

    /// The patient whose id is or starts with `id`, in this machine's copy or among the
    /// registrations made here and not sent (revision 0); nil when neither has them.
    public func patient(_ id: String) throws -> RemotePatient? {
        let prefix = id.lowercased()
        guard ShortId.isPrefix(prefix) else {
            throw FieldworkError(
                "'\(id.prefix(40))' is not a patient id; give the id, or its first characters as listings show them (such as 6f9619ff)")
        }
        let known = (try load()?.patients ?? []) + (try queuedRegistrations())
        let matches = known.filter { $0.id.hasPrefix(prefix) }
        if Set(matches.map(\.id)).count > 1 { throw FieldworkError("'\(id)' starts the ids of several patients; give more of the id") }
        return matches.first
    }

    /// Registrations made offline, not yet sent, as patients to show.
    public func queuedRegistrations() throws -> [RemotePatient] {
        // Those refused and kept aside are not on their way: left out.
        try store.pendingActions().compactMap { entry in
            guard entry.action.kind == .patientRegistration,
                let new = try? JSONDecoder().decode(NewRemotePatient.self, from: Data(entry.action.verb.utf8))
            else { return nil }
            var patient = RemotePatient(
                id: new.id, givenName: new.givenName, familyName: new.familyName, dateOfBirth: new.dateOfBirth, sex: new.sex,
                externalId: new.externalId, revision: 0, sharingScope: new.consent?.scope ?? SharingScope.noSharing.rawValue)
            patient.dataGroups = new.dataGroups
            return patient
        }
    }

    /// Patients matching every criterion given, as the server matches them: the start of the
    /// given name, the family name or both (case, accents and Arabic letter variants ignored),
    /// the exact date of birth, the external id.
    public static func find(
        _ patients: [RemotePatient], name: String?, dateOfBirth: String?, externalId: String?, includeArchived: Bool
    ) -> [RemotePatient] {
        let wanted = name.map(NameKey.lookupKey)
        return patients.filter { patient in
            if patient.archived, !includeArchived { return false }
            if let dateOfBirth, patient.dateOfBirth != dateOfBirth { return false }
            if let externalId, patient.externalId != externalId { return false }
            if let wanted {
                let given = NameKey.lookupKey(patient.givenName), family = NameKey.lookupKey(patient.familyName)
                guard [given, family, given + " " + family, family + " " + given].contains(where: { $0.hasPrefix(wanted) }) else {
                    return false
                }
            }
            return true
        }.sorted { ($0.familyName, $0.givenName, $0.id) < ($1.familyName, $1.givenName, $1.id) }
    }
}
