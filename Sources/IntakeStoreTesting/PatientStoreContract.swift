import Foundation
import IntakeCore
import IntakeService
import Testing

/// What every store must do with the patient registry and consent: unique external ids (also
/// when two servers register at once), optimistic changes, archive and restore, lookups by name,
/// date of birth or external id, and a consent history nobody can rewrite.
public enum PatientStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func person(_ given: String, _ family: String, born: String? = nil, external: String? = nil) -> PatientIdentification {
        PatientIdentification(
            givenName: given, familyName: family, dateOfBirth: born.flatMap(LocalDate.init(iso:)), sex: .female, externalId: external)
    }

    static func register(_ store: any RecordStore, _ people: [PatientIdentification]) async throws -> [PatientOutcome] {
        try await store.registerPatients(people.map { NewPatient(teamId: 1, identification: $0, createdBy: "cora", createdAt: start) })
    }

    public static func patientsAreRegisteredOnceAndAnExternalIdBelongsToOnePatient(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await store.createTeam(name: "clinic", at: start)
        let amina = NewPatient(
            teamId: 1, identification: person("Amina", "Haddad", born: "1990-04-12", external: "UNHCR-1"), createdBy: "cora",
            createdAt: start)
        let outcomes = try await store.registerPatients([
            amina,
            NewPatient(teamId: 1, identification: person("Bilal", "Haddad", external: "UNHCR-1"), createdBy: "cora", createdAt: start),
            NewPatient(teamId: 1, identification: person("Chen", "Li"), createdBy: "cora", createdAt: start),
            NewPatient(teamId: 1, identification: person("Dana", "Li"), createdBy: "cora", createdAt: start),
        ])
        guard case .created(let stored) = outcomes[0] else {
            Issue.record("not created: \(outcomes[0])")
            return
        }
        #expect(
            stored.id == amina.id && stored.revision == 1 && stored.identification == amina.identification && stored.sharingScope == nil)
        #expect(stored.effectiveScope == .noSharing, "no consent recorded: nothing is shared")
        #expect(outcomes[1] == .externalIdTaken(existing: amina.id), "the same external id in the same batch")
        if case .created = outcomes[2], case .created = outcomes[3] {} else { Issue.record("patients without external ids: \(outcomes)") }
        #expect(try await store.registerPatients([amina]) == [.existing(stored)], "sent again: already registered, nothing changed")
        var other = amina
        other.identification.givenName = "Someone else"
        #expect(try await store.registerPatients([other]) == [.idTaken])
        #expect(try await store.patient(id: amina.id) == stored)
        #expect(try await store.patient(id: UUID()) == nil)
    }

    public static func patientsAreFoundByNameDateOfBirthOrExternalIdAndArchivedOnesOnlyWhenAsked(_ kind: some RecordStoreFactory)
        async throws
    {
        let store = try await kind.open()
        _ = try await store.createTeam(name: "clinic", at: start)
        let outcomes = try await register(
            store,
            [
                person("Amina", "Haddad", born: "1990-04-12", external: "UNHCR-1"), person("Ḥasan", "Haddād", born: "1985-01-02"),
                person("Chen", "Li", born: "1990-04-12"), person("Li", "Wang"), person("Per%cent", "Under_score"),
            ])
        let ids = outcomes.compactMap { if case .created(let patient) = $0 { patient.id } else { nil } }
        try #require(ids.count == 5)
        func names(_ query: PatientQuery) async throws -> [String] {
            try await store.findPatients(query).map(\.identification.givenName)
        }
        #expect(try await names(PatientQuery(name: "haddad")) == ["Amina", "Ḥasan"], "accents and case do not matter")
        #expect(try await names(PatientQuery(name: "  AMINA  ")) == ["Amina"])
        #expect(try await names(PatientQuery(name: "amina had")) == ["Amina"], "given then family name")
        #expect(try await names(PatientQuery(name: "li")) == ["Chen", "Li"], "family or given name")
        #expect(try await names(PatientQuery(dateOfBirth: LocalDate(iso: "1990-04-12"))) == ["Amina", "Chen"])
        #expect(try await names(PatientQuery(name: "li", dateOfBirth: LocalDate(iso: "1990-04-12"))) == ["Chen"], "every criterion")
        #expect(try await names(PatientQuery(externalId: "UNHCR-1")) == ["Amina"])
        #expect(try await names(PatientQuery(name: "per%")) == ["Per%cent"], "wildcards are letters")
        #expect(try await names(PatientQuery(name: "%")).isEmpty)
        #expect(try await names(PatientQuery(name: "under_")) == ["Per%cent"])
        #expect(try await names(PatientQuery(name: "under_x")).isEmpty)
        #expect(try await names(PatientQuery(name: "haddad", limit: 1)).count == 1)
        let ward = try await store.createTeam(name: "ward", at: start)
        _ = try await store.registerPatients([
            NewPatient(teamId: ward.id, identification: person("Zara", "Haddad"), createdBy: "wlead", createdAt: start)
        ])
        #expect(try await names(PatientQuery(name: "haddad")) == ["Amina", "Ḥasan", "Zara"], "every team's")
        #expect(try await names(PatientQuery(teamId: ward.id, name: "haddad")) == ["Zara"], "one team's")
        #expect(try await store.findPatients(PatientQuery(teamId: ward.id)).map(\.teamId) == [ward.id])

        let archived = try #require(try await store.setPatientArchived(id: ids[0], true, at: start + 10))
        #expect(archived.archivedAt == start + 10 && archived.revision == 2)
        #expect(
            try await store.setPatientArchived(id: ids[0], true, at: start + 20)?.archivedAt == start + 10,
            "archiving twice changes nothing")
        #expect(try await names(PatientQuery(name: "haddad")) == ["Ḥasan", "Zara"])
        #expect(try await names(PatientQuery(name: "haddad", includeArchived: true)) == ["Amina", "Ḥasan", "Zara"])
        let restored = try #require(try await store.setPatientArchived(id: ids[0], false, at: start + 30))
        #expect(restored.archivedAt == nil && restored.revision == 3)
        #expect(try await store.setPatientArchived(id: UUID(), true, at: start) == nil)
    }

    /// Registry search folds Arabic letter variants as record lookup does, in a new name and a changed one.
    public static func patientsAreFoundWhicheverArabicLetterVariantIsTyped(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await store.createTeam(name: "clinic", at: start)
        let outcomes = try await register(store, [person("فاطمة", "الأحمد"), person("Amina", "Haddad")])
        guard case .created(let fatima) = outcomes[0] else {
            Issue.record("not created: \(outcomes)")
            return
        }
        func names(_ name: String) async throws -> [String] {
            try await store.findPatients(PatientQuery(name: name)).map(\.identification.givenName)
        }
        #expect(try await names("فاطمه") == ["فاطمة"], "heh for teh marbuta")
        #expect(try await names("الاحمد") == ["فاطمة"], "alef for alef with hamza")
        #expect(try await names("فاطمه الاحمد") == ["فاطمة"], "given then family name")
        #expect(try await names("فَاطِمَة") == ["فاطمة"], "harakat left out")
        var changed = fatima.identification
        changed.familyName = "إبراهيم"
        guard case .changed = try await store.updatePatient(id: fatima.id, baseRevision: 1, identification: changed, at: start + 5) else {
            Issue.record("not changed")
            return
        }
        #expect(try await names("ابراهيم") == ["فاطمة"], "a changed name by its new key")
        #expect(try await names("الاحمد").isEmpty)
    }

    public static func aChangeBasedOnAnOlderRevisionIsRefusedAndExternalIdsStayUnique(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await store.createTeam(name: "clinic", at: start)
        let outcomes = try await register(store, [person("Amina", "Haddad", external: "A-1"), person("Bilal", "Khan", external: "B-1")])
        guard case .created(let amina) = outcomes[0], case .created(let bilal) = outcomes[1] else {
            Issue.record("not created")
            return
        }
        var changed = amina.identification
        changed.familyName = "Haddad-Khan"
        guard
            case .changed(let updated) = try await store.updatePatient(
                id: amina.id, baseRevision: 1, identification: changed, at: start + 5)
        else {
            Issue.record("not changed")
            return
        }
        #expect(updated.revision == 2 && updated.identification.familyName == "Haddad-Khan" && updated.updatedAt == start + 5)
        #expect(try await store.findPatients(PatientQuery(name: "haddad-k")).map(\.id) == [amina.id])
        #expect(
            try await store.updatePatient(id: amina.id, baseRevision: 1, identification: amina.identification, at: start)
                == .stale(current: 2))
        changed.externalId = "B-1"
        #expect(
            try await store.updatePatient(id: amina.id, baseRevision: 2, identification: changed, at: start)
                == .externalIdTaken(existing: bilal.id))
        #expect(try await store.updatePatient(id: UUID(), baseRevision: 1, identification: changed, at: start) == .notFound)
        #expect(try await store.patient(id: amina.id)?.identification.externalId == "A-1", "nothing half-done")
    }

    public static func consentIsAnAppendOnlyHistoryWhoseLatestIsTheScope(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await store.createTeam(name: "clinic", at: start)
        guard case .created(let amina) = try await register(store, [person("Amina", "Haddad")])[0] else {
            Issue.record("not created")
            return
        }
        let given = Consent(
            patientId: amina.id, scope: .allQualifiedResearchers, method: .written, recordedBy: "cora", recordedAt: start + 1)
        let narrowed = Consent(patientId: amina.id, scope: .sponsorsAndPartners, method: .verbal, recordedBy: "dana", recordedAt: start + 2)
        #expect(try await store.recordConsent(given)?.sharingScope == .allQualifiedResearchers)
        let now = try #require(try await store.recordConsent(narrowed))
        #expect(now.sharingScope == .sponsorsAndPartners && now.effectiveScope == .sponsorsAndPartners && now.revision == 1)
        #expect(try await store.consentHistory(patientId: amina.id) == [given, narrowed])
        #expect(
            try await store.recordConsent(
                Consent(patientId: UUID(), scope: .noSharing, method: .verbal, recordedBy: "x", recordedAt: start)) == nil)
        #expect(try await store.consentHistory(patientId: UUID()).isEmpty)
    }

    public static func twoServersRegisteringOneExternalIdAtOnceMakeOnePatient(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        _ = try await first.createTeam(name: "clinic", at: start)
        let outcomes = try await withThrowingTaskGroup(of: PatientOutcome.self) { group in
            for index in 0..<8 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    try await store.registerPatients([
                        NewPatient(
                            teamId: 1, identification: person("P\(index)", "Same", external: "SHARED-1"), createdBy: "cora",
                            createdAt: start)
                    ])[0]
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let created = outcomes.compactMap { if case .created(let patient) = $0 { patient.id } else { nil } }
        #expect(created.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .externalIdTaken(existing: created.first ?? UUID()) }.count == 7)
        #expect(try await second.findPatients(PatientQuery(externalId: "SHARED-1")).map(\.id) == created)
    }

    /// An export snapshot with a consent filter reads only records whose patient's current scope
    /// is allowed (and those without a patient only when asked), in the same order and count.
    public static func anExportWithAConsentFilterHoldsOnlyRecordsConsentAllows(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        var patients: [SharingScope?: UUID] = [:]
        for scope in [SharingScope?.none, .noSharing, .sponsorsAndPartners, .allQualifiedResearchers] {
            let id = UUID()
            _ = try await store.registerPatients([
                NewPatient(
                    id: id, teamId: team.id, identification: person("P", "\(String(describing: scope))"), createdBy: "c", createdAt: start)
            ])
            if let scope {
                _ = try await store.recordConsent(
                    Consent(patientId: id, scope: scope, method: .written, recordedBy: "c", recordedAt: start))
            }
            patients[scope] = id
        }
        var expected: [String: Set<UUID>] = [:]
        var records: [PatientResponse] = []
        for (index, scope) in [SharingScope?.none, .noSharing, .sponsorsAndPartners, .allQualifiedResearchers].enumerated() {
            var linked = RecordStoreContract.record(UInt64(600 + index))
            linked.patientId = patients[scope]!
            records.append(linked)
            expected[scope?.rawValue ?? "unconsented", default: []].insert(linked.id)
        }
        let unlinked = RecordStoreContract.record(700)
        records.append(unlinked)
        _ = try await store.ingest(try records.map(IngestItem.init), owner: RecordOwner(teamId: team.id, username: "c"), at: start)
        let snapshot = try await store.exportSnapshot(teamId: nil)
        func read(_ filter: ConsentFilter?) async throws -> Set<UUID> {
            var query = ExportQuery(questionnaireId: records[0].questionnaire.id, teamId: nil, after: 0, upTo: snapshot.cursor)
            query.consent = filter
            let page = try await snapshot.page(query)
            #expect(try await snapshot.count(query) == page.count)
            return Set(try page.map { try RecordCodec.decode($0.body).id })
        }
        let study = try await read(ConsentFilter(scopes: ResearchAccess.study.scopes, includeUnlinked: false))
        #expect(study == expected["sponsors_and_partners"]!.union(expected["all_qualified_researchers"]!))
        let external = try await read(ConsentFilter(scopes: ResearchAccess.external.scopes, includeUnlinked: false))
        #expect(external == expected["all_qualified_researchers"]!)
        #expect(
            try await read(ConsentFilter(scopes: ResearchAccess.external.scopes, includeUnlinked: true)) == external.union([unlinked.id]))
        #expect(try await read(ConsentFilter(scopes: [], includeUnlinked: false)).isEmpty)
        #expect(try await read(nil).count == 5, "no filter: every record")
        // A change of consent shows in the next snapshot.
        _ = try await store.recordConsent(
            Consent(
                patientId: patients[.allQualifiedResearchers]!, scope: .noSharing, method: .verbal, recordedBy: "c", recordedAt: start + 1))
        let later = try await store.exportSnapshot(teamId: nil)
        var query = ExportQuery(questionnaireId: records[0].questionnaire.id, teamId: nil, after: 0, upTo: later.cursor)
        query.consent = ConsentFilter(scopes: ResearchAccess.external.scopes, includeUnlinked: false)
        #expect(try await later.page(query).isEmpty, "withdrawn: nothing reaches an external researcher")
    }

    public static func patientsJoinAndLeaveDefinedDataGroupsAllOrNothing(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await store.createTeam(name: "clinic", at: start)
        #expect(try await store.createDataGroup(DataGroup(name: "arm_a", description: "Arm A", createdBy: "admin", createdAt: start)))
        #expect(try await store.createDataGroup(DataGroup(name: "arm_b", description: "", createdBy: "admin", createdAt: start)))
        #expect(try await !store.createDataGroup(DataGroup(name: "arm_a", description: "again", createdBy: "admin", createdAt: start)))
        guard case .created(let amina) = try await register(store, [person("Amina", "Haddad")])[0] else {
            Issue.record("not created")
            return
        }
        guard
            case .changed(let joined) = try await store.updatePatient(
                id: amina.id, baseRevision: 1, identification: amina.identification, groups: DataGroupChange(add: ["arm_b", "arm_a"]),
                at: start)
        else {
            Issue.record("not changed")
            return
        }
        #expect(joined.dataGroups == ["arm_a", "arm_b"] && joined.revision == 2)
        let refused = try await store.updatePatient(
            id: amina.id, baseRevision: 2, identification: person("Changed", "Name"),
            groups: DataGroupChange(add: ["arm_c"], remove: ["arm_a"]),
            at: start)
        #expect(refused == .unknownDataGroups(unknown: ["arm_c"], defined: ["arm_a", "arm_b"]))
        let unchanged = try #require(try await store.patient(id: amina.id))
        #expect(
            unchanged.identification.givenName == "Amina" && unchanged.dataGroups == ["arm_a", "arm_b"] && unchanged.revision == 2,
            "all or nothing")
        guard
            case .changed(let moved) = try await store.updatePatient(
                id: amina.id, baseRevision: 2, identification: amina.identification,
                groups: DataGroupChange(add: ["arm_b"], remove: ["arm_a"]), at: start)
        else {
            Issue.record("not moved")
            return
        }
        #expect(moved.dataGroups == ["arm_b"])
        #expect(try await store.findPatients(PatientQuery(name: "amina")).first?.dataGroups == ["arm_b"])
        #expect(try await store.dataGroups().map { [$0.name, String($0.patients)] } == [["arm_a", "0"], ["arm_b", "1"]])
        #expect(try await store.deleteDataGroup(name: "arm_b") == .inUse(patients: 1))
        #expect(try await store.deleteDataGroup(name: "arm_a") == .deleted)
        #expect(try await store.deleteDataGroup(name: "arm_a") == .notFound)
        #expect(try await store.dataGroups().map(\.name) == ["arm_b"])
    }

    /// Deleting a group while a patient is put in it, on two servers at once: either the group
    /// goes and the patient is not in it, or the patient is in it and the group stays.
    public static func aGroupDeletedWhileAPatientJoinsItIsNeverLeftHalfWay(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        _ = try await first.createTeam(name: "clinic", at: start)
        for round in 0..<6 {
            let name = "g\(round)"
            _ = try await first.createDataGroup(DataGroup(name: name, description: "", createdBy: "admin", createdAt: start))
            guard case .created(let patient) = try await register(first, [person("P\(round)", "Q")])[0] else { continue }
            async let joined = second.updatePatient(
                id: patient.id, baseRevision: 1, identification: patient.identification, groups: DataGroupChange(add: [name]), at: start)
            async let deleted = first.deleteDataGroup(name: name)
            let (join, deletion) = try await (joined, deleted)
            let groups = try await second.dataGroups().map(\.name)
            let now = try #require(try await second.patient(id: patient.id))
            if deletion == .deleted {
                #expect(!groups.contains(name) && !now.dataGroups.contains(name), "\(join)")
            } else {
                #expect(deletion == .inUse(patients: 1) && groups.contains(name) && now.dataGroups == [name])
            }
        }
    }

    public static func datedReportsReplaceKeepHistoryAndReadByDocumentedBounds(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await store.createTeam(name: "clinic", at: start)
        guard case .created(let amina) = try await register(store, [person("Amina", "Haddad")])[0] else {
            Issue.record("not created")
            return
        }
        func day(_ text: String) -> ReportDate { ReportDate(text)! }
        for (date, weight) in [("2026-01-01", 60), ("2026-01-15", 61), ("2026-02-01", 62)] {
            guard
                case .stored = try await store.putReport(
                    patientId: amina.id, series: "vitals", date: day(date), values: #"{"weight":\#(weight)}"#, by: "cora", at: start)
            else { Issue.record("not stored"); return }
        }
        guard
            case .stored(let replaced) = try await store.putReport(
                patientId: amina.id, series: "vitals", date: day("2026-01-15"), values: #"{"weight":61.5}"#, by: "dana", at: start + 1)
        else { Issue.record("not replaced"); return }
        #expect(replaced.version == 2)
        func dates(_ query: ReportQuery) async throws -> [String] {
            guard case .reports(let reports) = try await store.reports(query) else { return ["(refused)"] }
            return reports.map(\.date)
        }
        #expect(try await dates(ReportQuery(patientId: amina.id, series: "vitals")) == ["2026-01-01", "2026-01-15", "2026-02-01"])
        #expect(
            try await dates(ReportQuery(patientId: amina.id, series: "vitals", start: day("2026-01-01"), end: day("2026-01-15")))
                == ["2026-01-01", "2026-01-15"], "calendar dates: inclusive at both ends")
        #expect(try await dates(ReportQuery(patientId: amina.id, series: "vitals", latestOnly: true)) == ["2026-02-01"])
        guard
            case .reports(let current) = try await store.reports(
                ReportQuery(patientId: amina.id, series: "vitals", start: day("2026-01-15"), end: day("2026-01-15")))
        else { Issue.record("not read"); return }
        #expect(current.map(\.values) == [#"{"weight":61.5}"#] && current.first?.recordedBy == "dana", "the replacement is current")
        #expect(
            try await store.reportHistory(patientId: amina.id, series: "vitals", date: day("2026-01-15")).map(\.version) == [1, 2], "kept")

        // Instants: start inclusive, end exclusive; a series' kind is fixed by its first report.
        for time in ["2026-03-01T08:00:00Z", "2026-03-01T10:00:00+02:00", "2026-03-01T12:00:00Z"] {
            _ = try await store.putReport(patientId: amina.id, series: "glucose", date: day(time), values: "{}", by: "cora", at: start)
        }
        #expect(
            try await dates(
                ReportQuery(patientId: amina.id, series: "glucose", start: day("2026-03-01T08:00:00Z"), end: day("2026-03-01T12:00:00Z")))
                == ["2026-03-01T08:00:00.000Z"], "10:00+02:00 is 08:00Z, the same instant: replaced, and 12:00 is the excluded end")
        #expect(
            try await store.putReport(patientId: amina.id, series: "glucose", date: day("2026-03-02"), values: "{}", by: "c", at: start)
                == .wrongDateKind(expected: .instant))
        #expect(
            try await store.reports(ReportQuery(patientId: amina.id, series: "vitals", start: day("2026-03-01T08:00:00Z")))
                == .wrongDateKind(expected: .date))
        #expect(try await store.reports(ReportQuery(patientId: amina.id, series: "never")) == .unknownSeries)
        #expect(
            try await store.putReport(patientId: UUID(), series: "vitals", date: day("2026-01-01"), values: "{}", by: "c", at: start)
                == .patientNotFound)
    }
}
