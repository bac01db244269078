import Foundation
import IntakeCore
import IntakeExport
import IntakeService
import Testing

/// What every store must give an export of registry patients' records: each record's consent and
/// groups, the data-group filter, the records an earlier export held whose consent no longer
/// reaches its reader, and the patients' reports, also while consent changes race record saves.
public enum PatientExportContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A team with a patient per entry of `scopes` (nil: no consent recorded) and a record each.
    static func patients(_ store: any RecordStore, team: Int64, _ scopes: [SharingScope?], seed: UInt64)
        async throws -> [(patient: UUID, record: PatientResponse)]
    {
        var made: [(UUID, PatientResponse)] = []
        for (index, scope) in scopes.enumerated() {
            let id = UUID()
            _ = try await store.registerPatients([
                NewPatient(
                    id: id, teamId: team, identification: PatientIdentification(givenName: "P\(index)", familyName: "Q\(seed)"),
                    createdBy: "c",
                    createdAt: start)
            ])
            if let scope {
                _ = try await store.recordConsent(
                    Consent(patientId: id, scope: scope, method: .written, recordedBy: "c", recordedAt: start))
            }
            var record = RecordStoreContract.record(seed + UInt64(index))
            record.patientId = id
            _ = try await store.ingest([try IngestItem(record: record)], owner: RecordOwner(teamId: team, username: "c"), at: start)
            made.append((id, record))
        }
        return made
    }

    static func ids(_ page: [ExportedRecord]) throws -> [UUID] { try page.map { try RecordCodec.decode($0.body).id } }

    public static func anExportCarriesEachRecordsConsentAndGroupsAndFiltersByGroup(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        for name in ["arm_a", "arm_b", "arm_c"] {
            _ = try await store.createDataGroup(DataGroup(name: name, description: "", createdBy: "admin", createdAt: start))
        }
        let made = try await patients(store, team: team.id, [.sponsorsAndPartners, nil, .noSharing], seed: 800)
        for (patient, groups) in [(made[0].patient, ["arm_b", "arm_a"]), (made[1].patient, ["arm_c"])] {
            let current = try #require(try await store.patient(id: patient))
            _ = try await store.updatePatient(
                id: patient, baseRevision: current.revision, identification: current.identification, groups: DataGroupChange(add: groups),
                at: start)
        }
        let unlinked = RecordStoreContract.record(900)
        _ = try await store.ingest([try IngestItem(record: unlinked)], owner: RecordOwner(teamId: team.id, username: "c"), at: start)
        let snapshot = try await store.exportSnapshot(teamId: team.id)
        var query = ExportQuery(questionnaireId: unlinked.questionnaire.id, teamId: team.id, after: 0, upTo: snapshot.cursor)
        let page = try await snapshot.page(query)
        let facts = Dictionary(uniqueKeysWithValues: try zip(ids(page), page.map(\.registry)))
        #expect(facts[made[0].record.id]??.sharingScope == "sponsors_and_partners")
        #expect(facts[made[0].record.id]??.consentMethod == "written")
        #expect(facts[made[0].record.id]??.consentedAt == start)
        #expect(facts[made[0].record.id]??.dataGroups == ["arm_a", "arm_b"], "sorted")
        #expect(facts[made[1].record.id]! == RegistryFacts(sharingScope: nil, dataGroups: ["arm_c"]), "no consent recorded")
        #expect(facts[made[2].record.id]??.sharingScope == "no_sharing")
        #expect(facts[unlinked.id]! == nil, "no registry patient: no facts")
        query.dataGroups = ["arm_a", "arm_c"]
        #expect(Set(try ids(try await snapshot.page(query))) == [made[0].record.id, made[1].record.id], "in any of the groups")
        #expect(try await snapshot.count(query) == 2)
        query.dataGroups = ["arm_b"]
        query.consent = ConsentFilter(scopes: ResearchAccess.external.scopes, includeUnlinked: true)
        #expect(try await snapshot.page(query).isEmpty, "groups and consent both hold")
    }

    /// After an export, one patient withdraws, one narrows below the reader's level, one widens to
    /// it: the next incremental export lists the first two's records as removed and brings the
    /// third's, by cursor (deployment and team) and by time, and a reader that never received a
    /// record is never told to remove it.
    public static func anIncrementalExportListsWhatConsentNoLongerSharesWithItsReader(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let other = try await store.createTeam(name: "ward", at: start)
        let made = try await patients(
            store, team: team.id,
            [.allQualifiedResearchers, .allQualifiedResearchers, .sponsorsAndPartners, .noSharing, .allQualifiedResearchers],
            seed: 1000)
        _ = try await patients(store, team: other.id, [.allQualifiedResearchers], seed: 1100)
        let questionnaire = made[0].record.questionnaire.id
        let external = ConsentFilter(scopes: ResearchAccess.external.scopes, includeUnlinked: false)
        let first = try await store.exportSnapshot(teamId: nil)
        let firstTeam = try await store.exportSnapshot(teamId: team.id)
        var before = ExportQuery(questionnaireId: questionnaire, teamId: nil, after: 0, upTo: first.cursor)
        before.consent = external
        #expect(Set(try ids(try await first.page(before))).isSuperset(of: [made[0].record.id, made[1].record.id, made[4].record.id]))
        let withdrawnAt = start + 60
        for (index, scope) in [
            (0, SharingScope.noSharing), (1, .sponsorsAndPartners), (2, .allQualifiedResearchers), (3, .sponsorsAndPartners),
        ] {
            _ = try await store.recordConsent(
                Consent(patientId: made[index].patient, scope: scope, method: .verbal, recordedBy: "c", recordedAt: withdrawnAt))
        }
        for (teamId, previous) in [(Int64?.none, first.cursor), (team.id, firstTeam.cursor)] {
            let next = try await store.exportSnapshot(teamId: teamId)
            var query = ExportQuery(questionnaireId: questionnaire, teamId: teamId, after: previous, upTo: next.cursor)
            query.consent = external
            query.previous = .cursor(previous)
            #expect(Set(try await next.withdrawn(query)) == [made[0].record.id, made[1].record.id], "team \(String(describing: teamId))")
            #expect(
                try ids(try await next.page(query)) == [made[2].record.id], "widened: the record comes, though its answers did not change")
            var study = query
            study.consent = ConsentFilter(scopes: ResearchAccess.study.scopes, includeUnlinked: false)
            #expect(try await next.withdrawn(study) == [made[0].record.id], "sponsors_and_partners still reaches the study")
            var whole = query
            whole.previous = nil
            #expect(try await next.withdrawn(whole).isEmpty, "a full export removes nothing")
            var coordinator = query
            coordinator.consent = nil
            #expect(try await next.withdrawn(coordinator).isEmpty, "consent does not filter a coordinator's export")
            var byTime = query
            byTime.previous = .time(withdrawnAt + 1)
            #expect(try await next.withdrawn(byTime).isEmpty, "nothing changed after that time")
            byTime.previous = .time(withdrawnAt)
            #expect(
                Set(try await next.withdrawn(byTime)) == [made[0].record.id, made[1].record.id],
                "a change at the time given counts, as --since does")
            byTime.previous = .time(start)
            #expect(try await next.withdrawn(byTime).isEmpty, "records first saved at or after the time given were never held")
        }
    }

    /// Consent changes and record saves of one patient, on two servers at once: every save and
    /// change lands, cursors stay unique, and an export after them agrees with the last consent.
    public static func consentChangesRacingRecordSavesKeepCursorsInOrder(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let team = try await first.createTeam(name: "clinic", at: start)
        let made = try await patients(first, team: team.id, [.allQualifiedResearchers], seed: 1200)
        let patient = made[0].patient
        let cursorBefore = try await first.exportSnapshot(teamId: team.id).cursor
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    if index < 4 {
                        var record = RecordStoreContract.record(1300 + UInt64(index))
                        record.patientId = patient
                        _ = try await store.ingest(
                            [try IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "c"), at: start)
                    } else {
                        let scope: SharingScope = index == 7 ? .noSharing : .allQualifiedResearchers
                        _ = try await store.recordConsent(
                            Consent(patientId: patient, scope: scope, method: .verbal, recordedBy: "c", recordedAt: start + Double(index)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let history = try await second.consentHistory(patientId: patient)
        #expect(history.count == 5)
        let last = try #require(history.last?.scope)
        let snapshot = try await second.exportSnapshot(teamId: team.id)
        var query = ExportQuery(questionnaireId: made[0].record.questionnaire.id, teamId: team.id, after: 0, upTo: snapshot.cursor)
        #expect(try await snapshot.count(query) == 5, "every save landed")
        query.consent = ConsentFilter(scopes: ResearchAccess.external.scopes, includeUnlinked: false)
        query.previous = .cursor(cursorBefore)
        let shared = try await snapshot.count(query)
        let removed = try await snapshot.withdrawn(query)
        if last == .noSharing {
            #expect(shared == 0 && removed == [made[0].record.id], "only the record the earlier export held is removed")
        } else {
            #expect(shared == 5 && removed.isEmpty)
        }
    }

    /// An export's reports: the latest version of each date, of the patients its team, consent
    /// and groups reach, in pages that neither repeat nor skip.
    public static func anExportsReportsFollowItsPatientsTeamConsentAndGroups(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let other = try await store.createTeam(name: "ward", at: start)
        _ = try await store.createDataGroup(DataGroup(name: "arm_a", description: "", createdBy: "admin", createdAt: start))
        let made = try await patients(store, team: team.id, [.allQualifiedResearchers, .sponsorsAndPartners, .noSharing], seed: 1400)
        let elsewhere = try await patients(store, team: other.id, [.allQualifiedResearchers], seed: 1500)
        for (patient, _) in made + elsewhere {
            for date in ["2026-01-01", "2026-01-02", "2026-01-03"] {
                _ = try await store.putReport(
                    patientId: patient, series: "vitals", date: ReportDate(date)!, values: #"{"weight":60}"#, by: "c", at: start)
            }
        }
        _ = try await store.putReport(
            patientId: made[0].patient, series: "vitals", date: ReportDate("2026-01-02")!, values: #"{"weight":61}"#, by: "c", at: start + 1
        )
        let current = try #require(try await store.patient(id: made[1].patient))
        _ = try await store.updatePatient(
            id: current.id, baseRevision: current.revision, identification: current.identification, groups: DataGroupChange(add: ["arm_a"]),
            at: start)
        let snapshot = try await store.exportSnapshot(teamId: nil)
        func all(_ query: ExportQuery) async throws -> [Report] {
            var reports: [Report] = []
            var position: ReportPosition?
            while true {
                let page = try await snapshot.reports(query, after: position, limit: 2)
                reports += page
                guard page.count == 2, let last = page.last else { return reports }
                position = ReportPosition(last)
            }
        }
        var query = ExportQuery(questionnaireId: made[0].record.questionnaire.id, teamId: nil, after: 0, upTo: snapshot.cursor)
        let every = try await all(query)
        #expect(every.count == 12, "four patients, three dates each, the latest version only")
        #expect(every.first { $0.patientId == made[0].patient && $0.date == "2026-01-02" }?.values == #"{"weight":61}"#)
        #expect(Set(every.map { "\($0.patientId)|\($0.date)" }).count == 12, "no page repeats a report")
        query.teamId = team.id
        #expect(Set(try await all(query).map(\.patientId)) == Set(made.map(\.patient)))
        query.consent = ConsentFilter(scopes: ResearchAccess.study.scopes, includeUnlinked: true)
        #expect(Set(try await all(query).map(\.patientId)) == [made[0].patient, made[1].patient], "no_sharing never")
        query.dataGroups = ["arm_a"]
        #expect(Set(try await all(query).map(\.patientId)) == [made[1].patient])
        query.consent = ConsentFilter(scopes: [], includeUnlinked: true)
        #expect(try await all(query).isEmpty)
    }

    /// The first two reports of a new series, one for a day and one for an instant, on two
    /// servers at once: one fixes the series' kind and the other is refused as the wrong kind.
    public static func twoFirstReportsOfOneSeriesWithDifferentKindsFixOneKind(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let team = try await first.createTeam(name: "clinic", at: start)
        let made = try await patients(first, team: team.id, [nil], seed: 1600)
        for round in 0..<6 {
            let series = "series_\(round)"
            async let day = first.putReport(
                patientId: made[0].patient, series: series, date: ReportDate("2026-01-01")!, values: "{}", by: "c", at: start)
            async let instant = second.putReport(
                patientId: made[0].patient, series: series, date: ReportDate("2026-01-01T08:00:00Z")!, values: "{}", by: "c", at: start)
            let outcomes = try await [day, instant]
            let stored = outcomes.filter { if case .stored = $0 { true } else { false } }
            #expect(stored.count == 1, "\(outcomes)")
            guard case .reports(let reports) = try await second.reports(ReportQuery(patientId: made[0].patient, series: series)) else {
                Issue.record("the series was not made")
                continue
            }
            #expect(reports.count == 1)
            let kept = reports.first.flatMap { ReportDate($0.date)?.kind }
            #expect(outcomes.contains(.wrongDateKind(expected: kept ?? .date)), "\(outcomes)")
        }
    }
}
