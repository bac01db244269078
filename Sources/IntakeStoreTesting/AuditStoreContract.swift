import Foundation
import IntakeCore
import IntakeService
import Testing

/// What every store must do with the audit trail: number and chain events with no gap, also
/// when two servers append at once; keep record saves and consent changes on it in their own
/// transactions; read it back filtered.
public enum AuditStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func verify(_ store: any RecordStore) async throws -> AuditReport {
        try await AuditLog(store: store).verify()
    }

    public static func eventsAreNumberedChainedAndReadBackFiltered(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        #expect(try await store.auditHead() == nil)
        let first = try await store.appendAudit([
            AuditEntry(at: start, actor: "ana", action: .signIn, subject: "ana"),
            AuditEntry(at: start + 1, actor: "", action: .signInFailed, subject: "bob", details: ["reason": "bad_credentials"]),
        ])
        #expect(first.map(\.seq) == [1, 2] && first[0].previousHash == AuditChain.genesis && first[1].previousHash == first[0].hash)
        let more = try await store.appendAudit([
            AuditEntry(at: start + 2, actor: "ana", action: .lookup, details: ["fields": "familyName", "team": "1"]),
            AuditEntry(at: start + 3, actor: "ana", action: .export, details: ["format": "csv", "records": "12"]),
        ])
        #expect(more.map(\.seq) == [3, 4] && more[0].previousHash == first[1].hash)
        #expect(try await store.auditEvents(AuditQuery()) == first + more, "read back exactly as stored")
        #expect(try await store.auditHead() == more[1])
        #expect(try await store.auditEvent(seq: 2) == first[1])
        #expect(try await store.auditEvents(AuditQuery(actor: "ana")).map(\.seq) == [1, 3, 4])
        #expect(try await store.auditEvents(AuditQuery(action: "sign_in")).map(\.seq) == [1, 2], "an action and those under it")
        #expect(try await store.auditEvents(AuditQuery(action: "sign_in.failed")).map(\.seq) == [2])
        #expect(try await store.auditEvents(AuditQuery(action: "sign")).isEmpty, "a prefix matches only at a dot")
        #expect(try await store.auditEvents(AuditQuery(subject: "bob")).map(\.seq) == [2])
        #expect(
            try await store.auditEvents(AuditQuery(from: start + 1, to: start + 3)).map(\.seq) == [2, 3], "from inclusive, to exclusive")
        #expect(try await store.auditEvents(AuditQuery(after: 2, limit: 1)).map(\.seq) == [3])
        var newest = AuditQuery(actor: "ana", limit: 2)
        newest.newestFirst = true
        #expect(try await store.auditEvents(newest).map(\.seq) == [4, 3], "the newest first")
        newest.before = 3
        #expect(try await store.auditEvents(newest).map(\.seq) == [1], "paged back")
        let report = try await verify(store)
        #expect(report.isSound && report.checked == 4 && report.head == more[1])
        let kept = try await AuditLog(store: store).verify(expectedHead: (seq: 4, hash: more[1].hash))
        #expect(kept.isSound)
        let unknown = try await AuditLog(store: store).verify(expectedHead: (seq: 9, hash: more[1].hash))
        #expect(unknown.problem?.kind == .headMissing && unknown.problem?.seq == 9)
    }

    /// Records created (not re-sent), records edited and consent changes are on the trail,
    /// appended by the store with them.
    public static func recordSavesAndConsentChangesAreOnTheTrailWithThem(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let records = [RecordStoreContract.record(2000), RecordStoreContract.record(2001)]
        let owner = RecordOwner(teamId: team.id, username: "fatima")
        _ = try await store.ingest(try records.map { try IngestItem(record: $0) }, owner: owner, at: start)
        _ = try await store.ingest([try IngestItem(record: records[0])], owner: owner, at: start + 1)
        var edited = records[1]
        edited.status = edited.status == .complete ? .draft : .complete
        #expect(
            try await store.update(try IngestItem(record: edited), baseRevision: 1, teamId: team.id, savedBy: "cora", at: start + 2)
                == .updated(revision: 2))
        let patient = UUID()
        _ = try await store.registerPatients([
            NewPatient(
                id: patient, teamId: team.id, identification: PatientIdentification(givenName: "A", familyName: "B"), createdBy: "cora",
                createdAt: start)
        ])
        _ = try await store.recordConsent(
            Consent(patientId: patient, scope: .sponsorsAndPartners, method: .written, recordedBy: "cora", recordedAt: start + 3))
        let events = try await store.auditEvents(AuditQuery())
        #expect(
            events.map(\.action) == ["record.create", "record.create", "record.update", "consent.change"],
            "a re-sent record is not created again")
        #expect(
            events.map(\.subject) == records.map { $0.id.uuidString.lowercased() } + [
                records[1].id.uuidString.lowercased(), patient.uuidString.lowercased(),
            ])
        #expect(events.map(\.actor) == ["fatima", "fatima", "cora", "cora"])
        #expect(events[2].details == ["revision": "2"] && events[3].details == ["scope": "sponsors_and_partners", "method": "written"])
        #expect(try await verify(store).isSound)
    }

    /// Two servers appending, saving records and recording consent at once still make one
    /// chain: no number twice, none skipped, every link sound.
    public static func twoServersAppendingAtOnceMakeOneChain(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let team = try await first.createTeam(name: "clinic", at: start)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    if index.isMultiple(of: 3) {
                        _ = try await store.ingest(
                            [try IngestItem(record: RecordStoreContract.record(2100 + UInt64(index)))],
                            owner: RecordOwner(teamId: team.id, username: "u\(index)"),
                            at: start)
                    } else {
                        _ = try await store.appendAudit(
                            (0..<5).map { AuditEntry(at: start, actor: "u\(index)", action: .lookup, details: ["n": String($0)]) })
                    }
                }
            }
            try await group.waitForAll()
        }
        let report = try await verify(second)
        #expect(report.isSound, "\(String(describing: report.problem))")
        #expect(report.checked == 4 + 8 * 5)
    }
}

/// What every store keeps of a record's history: each revision's author, time and device.
public enum HistoryStoreContract {
    public static func eachRevisionKeepsWhoSavedItWhenAndFromWhichDevice(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: AuditStoreContract.start)
        let record = RecordStoreContract.record(2200)
        let start = AuditStoreContract.start
        _ = try await store.ingest(
            [try IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "fatima", deviceId: "tablet-3"), at: start)
        var edit = try IngestItem(record: record.with { $0.patient.externalId = "E-9" })
        edit.deviceId = "laptop-1"
        #expect(try await store.update(edit, baseRevision: 1, teamId: team.id, savedBy: "cora", at: start + 60) == .updated(revision: 2))
        let third = try IngestItem(record: record.with { $0.patient.externalId = "E-10" })
        #expect(try await store.update(third, baseRevision: 2, teamId: team.id, savedBy: "cora", at: start + 120) == .updated(revision: 3))
        let revisions = try await store.revisions(of: record.id)
        #expect(revisions.map(\.revision) == [1, 2, 3])
        #expect(revisions.map(\.savedBy) == ["fatima", "cora", "cora"])
        #expect(revisions.map(\.savedAt) == [start, start + 60, start + 120])
        #expect(revisions.map(\.deviceId) == ["tablet-3", "laptop-1", nil], "a client that says no device keeps none")
        #expect(revisions[1].record.patient.externalId == "E-9", "each revision's content as it was")
    }
}
