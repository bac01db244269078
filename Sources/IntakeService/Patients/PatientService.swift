import Foundation
import IntakeCore

/// The patient registry as people use it: field workers and coordinators register, find, change,
/// archive and record consent for their own team's patients; admins read every team's (and
/// register none); researchers never see the registry (it identifies people).
public struct PatientService: Sendable {
    let store: any PatientStore
    let clock: @Sendable () -> Date

    public init(store: any PatientStore, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.clock = clock
    }

    /// Most patients in one registration.
    public static let batchLimit = 1000

    /// Registers patients for the user's team, an outcome each, in one transaction. Who may is the
    /// routes' to say (a team's field workers and coordinators); the team is the user's.
    public func register(_ people: [(id: UUID?, identification: PatientIdentification)], by user: User) async throws -> [PatientOutcome] {
        guard let team = user.teamId else {
            throw ServiceError.forbidden("patients are registered for a team; your account belongs to no team", code: "no_team")
        }
        guard (1...Self.batchLimit).contains(people.count) else {
            throw ServiceError.invalidRequest("give from 1 to \(Self.batchLimit) patients at once")
        }
        for (index, person) in people.enumerated() { try Self.check(person.identification, at: people.count > 1 ? index : nil) }
        let now = clock()
        return try await store.registerPatients(
            people.map {
                NewPatient(id: $0.id ?? UUID(), teamId: team, identification: $0.identification, createdBy: user.username, createdAt: now)
            })
    }

    /// A patient the user may see; another team's is not found, as if it did not exist.
    public func patient(_ id: UUID, for user: User) async throws -> Patient {
        guard let patient = try await store.patient(id: id), user.role == .admin || patient.teamId == user.teamId else {
            throw ServiceError.notFound("there is no patient \(id.uuidString.lowercased()) in your team")
        }
        return patient
    }

    public func find(_ query: PatientQuery, for user: User) async throws -> [Patient] {
        var query = query
        if user.role != .admin {
            guard let team = user.teamId else {
                throw ServiceError.forbidden("your account belongs to no team, so no patients are yours to find")
            }
            query.teamId = team
        }
        return try await store.findPatients(query)
    }

    /// Changes a patient's identification and data groups, from revision `baseRevision`: groups
    /// added and removed, or (`replacingGroups`) the whole set made what is given, as Bridge's
    /// `updateDataGroups` does.
    public func update(
        _ id: UUID, baseRevision: Int, identification: PatientIdentification, groups: DataGroupChange = DataGroupChange(),
        replacingGroups: [String]? = nil, by user: User
    ) async throws -> PatientChangeOutcome {
        try Self.check(identification, at: nil)
        if let both = groups.add.first(where: groups.remove.contains) {
            throw ServiceError.invalidRequest("the group \(both) is both added and removed; name it once")
        }
        let current = try await patient(id, for: user)
        var change = groups
        if let wanted = replacingGroups {
            guard groups.isEmpty else {
                throw ServiceError.invalidRequest("give the whole set of groups, or groups to add and remove, not both")
            }
            // From the revision the change is based on: a patient changed since is refused as
            // stale by the store, so the difference is never taken from another revision.
            change = DataGroupChange(
                add: Set(wanted).subtracting(current.dataGroups).sorted(), remove: Set(current.dataGroups).subtracting(wanted).sorted())
        }
        // A change that changes nothing (the same identification, groups it is in already) makes
        // no revision.
        if baseRevision == current.revision, identification == current.identification, change.remove.isEmpty,
            Set(change.add).isSubset(of: current.dataGroups)
        {
            return .changed(current)
        }
        return try await store.updatePatient(
            id: id, baseRevision: baseRevision, identification: identification, groups: change, at: clock())
    }

    /// Registers people with, for each, data groups to join and a consent to record: the groups
    /// are checked to be defined before anyone is registered; then each patient joins those it
    /// is not in yet and has the consent recorded when it has none. Registering again (the same
    /// id sent again, after a failure halfway) finishes what the first time did not.
    public func register(
        _ people: [(
            id: UUID?, identification: PatientIdentification, groups: [String], consent: (scope: SharingScope, method: ConsentMethod)?
        )],
        by user: User
    ) async throws -> [PatientOutcome] {
        let named = Set(people.flatMap(\.groups))
        if !named.isEmpty {
            let defined = Set(try await store.dataGroups().map(\.name))
            let unknown = named.subtracting(defined).sorted()
            if !unknown.isEmpty { throw ServiceError.refused("unknown_data_group", Self.unknownGroups(unknown, defined: defined.sorted())) }
        }
        var outcomes = try await register(people.map { ($0.id, $0.identification) }, by: user)
        for (index, person) in people.enumerated() {
            switch outcomes[index] {
            case .created(let patient): outcomes[index] = .created(try await complete(patient, person.groups, person.consent, by: user))
            case .existing(let patient): outcomes[index] = .existing(try await complete(patient, person.groups, person.consent, by: user))
            default: continue
            }
        }
        return outcomes
    }

    /// `patient` in `groups` and with a consent: what is missing is added (a change made meanwhile
    /// by someone else is read again and the groups added to it).
    private func complete(
        _ patient: Patient, _ groups: [String], _ consent: (scope: SharingScope, method: ConsentMethod)?, by user: User
    ) async throws -> Patient {
        var patient = patient
        for _ in 0..<3 {
            let missing = Set(groups).subtracting(patient.dataGroups).sorted()
            guard !missing.isEmpty else { break }
            switch try await store.updatePatient(
                id: patient.id, baseRevision: patient.revision, identification: patient.identification,
                groups: DataGroupChange(add: missing),
                at: clock())
            {
            case .changed(let joined): patient = joined
            case .stale:
                guard let current = try await store.patient(id: patient.id) else { return patient }
                patient = current
            case .unknownDataGroups(let unknown, let defined):
                throw ServiceError.refused("unknown_data_group", Self.unknownGroups(unknown, defined: defined))
            case .notFound, .externalIdTaken: return patient
            }
        }
        if let consent, patient.sharingScope == nil,
            let consented = try await store.recordConsent(
                Consent(patientId: patient.id, scope: consent.scope, method: consent.method, recordedBy: user.username, recordedAt: clock())
            )
        {
            patient = consented
        }
        return patient
    }

    // MARK: Dated reports

    /// Stores a patient's report for a date of a series (its values a JSON object), replacing the
    /// one stored before for that date, which is kept in history. Who may is the routes' to say
    /// (a team's field workers and coordinators, of the patient's team).
    public func putReport(_ id: UUID, series: String, date: ReportDate, values: String, by user: User) async throws -> Report {
        guard Self.isPlainName(series) else {
            throw ServiceError.invalidRequest(
                "a report series is named with 1 to 40 lowercase letters, digits and underscores, starting with a letter")
        }
        _ = try await patient(id, for: user)
        switch try await store.putReport(patientId: id, series: series, date: date, values: values, by: user.username, at: clock()) {
        case .stored(let report): return report
        case .patientNotFound: throw ServiceError.notFound("there is no patient \(id.uuidString.lowercased())")
        case .wrongDateKind(let expected): throw Self.wrongKind(series, expected)
        }
    }

    /// A page of the current dated reports of the user's team, after `after`: for a machine's copy.
    public func teamReports(after: (patientId: UUID, series: String, date: String)?, limit: Int, for user: User) async throws -> [Report] {
        guard let team = user.teamId else {
            throw ServiceError.forbidden("your account belongs to no team, so no reports are yours to read")
        }
        return try await store.teamReports(teamId: team, after: after, limit: limit)
    }

    public func reports(_ query: ReportQuery, for user: User) async throws -> [Report] {
        _ = try await patient(query.patientId, for: user)
        switch try await store.reports(query) {
        case .reports(let reports): return reports
        case .unknownSeries: throw ServiceError.notFound("no report was ever stored in a series named '\(query.series.prefix(40))'")
        case .wrongDateKind(let expected): throw Self.wrongKind(query.series, expected)
        }
    }

    public func reportHistory(_ id: UUID, series: String, date: ReportDate, for user: User) async throws -> [Report] {
        _ = try await patient(id, for: user)
        let history = try await store.reportHistory(patientId: id, series: series, date: date)
        guard !history.isEmpty else { throw ServiceError.notFound("there is no report of \(series.prefix(40)) for \(date.key)") }
        return history
    }

    /// What a change naming groups that are not defined is told: which, and which are.
    public static func unknownGroups(_ unknown: [String], defined: [String]) -> String {
        let named = unknown.map { "'\($0.prefix(40))'" }.joined(separator: ", ")
        return
            "\(unknown.count == 1 ? "the data group" : "the data groups") \(named) \(unknown.count == 1 ? "is" : "are") not defined; defined: "
            + (defined.isEmpty ? "none (an admin defines them: intake patient groups --create NAME)" : defined.joined(separator: ", "))
    }

    static func wrongKind(_ series: String, _ expected: ReportDate.Kind) -> ServiceError {
        .refused(
            "wrong_date_kind",
            expected == .date
                ? "the series \(series.prefix(40)) takes calendar dates such as 2026-11-24"
                : "the series \(series.prefix(40)) takes instants such as 2026-11-24T08:30:00Z")
    }

    // MARK: Data groups

    /// A group or report series name is also an export column or file name: lowercase letters,
    /// digits and underscores, starting with a letter, up to 40.
    static func isPlainName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (97...122).contains(first), bytes.count <= 40 else { return false }
        return bytes.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
    }

    /// Defines a data group for the deployment (admins).
    public func createGroup(name: String, description: String, by user: User) async throws -> DataGroup {
        guard user.role == .admin else { throw ServiceError.forbidden("data groups are defined by an admin") }
        guard Self.isPlainName(name) else {
            throw ServiceError.invalidRequest(
                "a data group's name is 1 to 40 lowercase letters, digits and underscores, starting with a letter")
        }
        guard description.unicodeScalars.count <= 500 else {
            throw ServiceError.invalidRequest("a data group's description is up to 500 characters")
        }
        let group = DataGroup(name: name, description: description, createdBy: user.username, createdAt: clock())
        guard try await store.createDataGroup(group) else {
            throw ServiceError.conflict("data_group_exists", "a data group is already named \(name)")
        }
        return group
    }

    public func groups() async throws -> [DataGroup] { try await store.dataGroups() }

    /// Deletes a group nobody is in (admins).
    public func deleteGroup(_ name: String, by user: User) async throws {
        guard user.role == .admin else { throw ServiceError.forbidden("data groups are deleted by an admin") }
        switch try await store.deleteDataGroup(name: name) {
        case .deleted: return
        case .notFound: throw ServiceError.notFound("no data group is named '\(name.prefix(40))'")
        case .inUse(let patients):
            throw ServiceError.conflict(
                "data_group_in_use", "\(patients) patient\(patients == 1 ? " is" : "s are") in \(name); take them out of it first")
        }
    }

    public func setArchived(_ id: UUID, _ archived: Bool, by user: User) async throws -> Patient {
        _ = try await patient(id, for: user)
        guard let patient = try await store.setPatientArchived(id: id, archived, at: clock()) else {
            throw ServiceError.notFound("there is no patient \(id.uuidString.lowercased())")
        }
        return patient
    }

    /// Records what the patient agreed to share; it governs every export from now on.
    public func recordConsent(_ id: UUID, scope: SharingScope, method: ConsentMethod, by user: User) async throws -> Patient {
        _ = try await patient(id, for: user)
        guard
            let patient = try await store.recordConsent(
                Consent(patientId: id, scope: scope, method: method, recordedBy: user.username, recordedAt: clock()))
        else { throw ServiceError.notFound("there is no patient \(id.uuidString.lowercased())") }
        return patient
    }

    public func consent(_ id: UUID, for user: User) async throws -> (patient: Patient, history: [Consent]) {
        let patient = try await patient(id, for: user)
        return (patient, try await store.consentHistory(patientId: id))
    }

    /// Names present and plain, an external id of sensible length, a birth date not in the future.
    /// Messages name the field and the patient's place in a batch, never a value.
    static func check(_ person: PatientIdentification, at index: Int?) throws {
        let place = index.map { "patient \($0 + 1): " } ?? ""
        for (field, value) in [("givenName", person.givenName), ("familyName", person.familyName)] {
            guard value.hasVisibleCharacter else { throw ServiceError.invalidRequest("\(place)\(field) is required") }
            guard value.unicodeScalars.count <= 200, !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                throw ServiceError.invalidRequest("\(place)\(field) is up to 200 characters, without control characters")
            }
        }
        if let external = person.externalId {
            guard external.hasVisibleCharacter, external.unicodeScalars.count <= 100,
                !external.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw ServiceError.invalidRequest("\(place)externalId is 1 to 100 characters, without control characters") }
        }
        // Ahead of UTC by up to 14 hours: a baby born today somewhere is not refused.
        if let born = person.dateOfBirth, born > LocalDate.today(in: TimeZone(secondsFromGMT: 14 * 3600)!) {
            throw ServiceError.invalidRequest("\(place)dateOfBirth is in the future")
        }
    }
}
