import Foundation
import IntakeCore
import IntakeExport
import IntakeService
import Testing

/// What every store must do when records move between teams: the record is the new team's, the
/// old team's feed and exports learn it left, a patient moves with all their records, both teams'
/// coordinators hear of it, and two servers moving one record at once move it once.
public enum TransferContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    public static func aTransferredRecordLeavesItsTeamsFeedAndExportsAndJoinsTheOther(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let clinic = try await store.createTeam(name: "clinic", at: start)
        let ward = try await store.createTeam(name: "ward", at: start)
        for (name, team) in [("cora", clinic.id), ("wendy", ward.id)] {
            _ = try await store.createUser(NewUser(username: name, passwordHash: "h", role: .coordinator, teamId: team), at: start)
        }
        let records = (0..<3).map { RecordStoreContract.record(4200 + UInt64($0)) }
        _ = try await store.ingest(records.map(IngestItem.init), owner: RecordOwner(teamId: clinic.id, username: "cora"), at: start)
        let questionnaire = records[0].questionnaire.id
        let before = try await store.exportSnapshot(teamId: clinic.id)

        let request = TransferRequest(
            subject: .records([records[0].id]), fromTeamId: clinic.id, toTeamId: ward.id, by: "cora", at: start + 10)
        #expect(try await store.transfer(request) == .transferred([records[0].id]))
        #expect(try await store.record(id: records[0].id)?.teamId == ward.id)
        #expect(try await store.revisions(of: records[0].id).count == 1, "its history goes with it")
        #expect(try await store.transfer(request) == .notFound(records[0].id), "it is no longer the clinic's to move")

        // The clinic's feed: the record left (its next cursor); the ward's: it arrived.
        let clinicFeed = try await store.changes(teamId: clinic.id, after: before.cursor, limit: 10)
        #expect(clinicFeed.changes.map(\.id) == [records[0].id] && clinicFeed.changes.map(\.cursor) == [4])
        if case .transferred(let to)? = clinicFeed.changes.first?.kind {
            #expect(to == ward.id)
        } else {
            Issue.record("not a transfer: \(clinicFeed.changes)")
        }
        let wardFeed = try await store.changes(teamId: ward.id, after: 0, limit: 10)
        #expect(wardFeed.changes.map(\.id) == [records[0].id] && wardFeed.changes.map(\.cursor) == [1])
        // A later clinic change comes after the exit: no cursor is given twice.
        _ = try await store.ingest(
            [IngestItem(record: RecordStoreContract.record(4210))], owner: RecordOwner(teamId: clinic.id, username: "cora"), at: start + 11)
        #expect(try await store.changes(teamId: clinic.id, after: 4, limit: 10).changes.map(\.cursor) == [5])

        // Exports: the clinic's next incremental one lists it as transferred; the ward's holds it; an export of every team holds it too.
        let after = try await store.exportSnapshot(teamId: clinic.id)
        var clinicQuery = ExportQuery(questionnaireId: questionnaire, teamId: clinic.id, after: before.cursor, upTo: after.cursor)
        clinicQuery.previous = .cursor(before.cursor)
        #expect(try await after.deleted(clinicQuery) == [RemovedRecord(recordId: records[0].id, reason: .transferred)])
        #expect(try await after.count(ExportQuery(questionnaireId: questionnaire, teamId: clinic.id, after: 0, upTo: after.cursor)) == 3)
        let ward2 = try await store.exportSnapshot(teamId: ward.id)
        #expect(
            try await ward2.page(ExportQuery(questionnaireId: questionnaire, teamId: ward.id, after: 0, upTo: ward2.cursor)).map {
                try $0.record().id
            } == [records[0].id])
        let whole = try await store.exportSnapshot(teamId: nil)
        var wholeQuery = ExportQuery(questionnaireId: questionnaire, teamId: nil, after: 0, upTo: whole.cursor)
        #expect(try await whole.count(wholeQuery) == 4, "every record once")
        wholeQuery.previous = .cursor(3)
        #expect(try await whole.deleted(wholeQuery).isEmpty, "for every team, a move is no removal")

        // Lookups: the ward finds it, the clinic no longer does.
        let family = records[0].patient.familyName
        #expect(try await store.lookup(LookupQuery(teamId: ward.id, familyName: family)).contains { $0.id == records[0].id })
        #expect(try await !store.lookup(LookupQuery(teamId: clinic.id, familyName: family)).contains { $0.id == records[0].id })

        // Both teams' coordinators hear of it; the audit trail holds it.
        for (name, team) in [("cora", clinic.id), ("wendy", ward.id)] {
            let user = try #require(try await store.credentials(username: name)?.user)
            let notes = try await store.notifications(NotificationQuery(userId: user.id))
            #expect(notes.map(\.type) == [NotificationType.recordsTransferred], "\(name) of team \(team)")
            #expect(notes.first?.subject == ["records": "1", "fromTeam": "clinic", "toTeam": "ward", "by": "cora"])
        }
        #expect(
            try await store.auditEvents(AuditQuery(action: "record.transfer")).map(\.subject) == [records[0].id.uuidString.lowercased()])
        #expect(try await AuditLog(store: store).verify().isSound)
    }

    public static func aPatientMovesWithAllTheirRecordsAndAPatientsRecordOnlyWithThem(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let clinic = try await store.createTeam(name: "clinic", at: start)
        let ward = try await store.createTeam(name: "ward", at: start)
        let patient = UUID()
        _ = try await store.registerPatients([
            NewPatient(
                id: patient, teamId: clinic.id, identification: PatientIdentification(givenName: "A", familyName: "B"), createdBy: "cora",
                createdAt: start)
        ])
        var records = (0..<2).map { RecordStoreContract.record(4300 + UInt64($0)) }
        for index in records.indices { records[index].patientId = patient }
        _ = try await store.ingest(records.map(IngestItem.init), owner: RecordOwner(teamId: clinic.id, username: "cora"), at: start)
        #expect(
            try await store.transfer(
                TransferRequest(subject: .records([records[0].id]), fromTeamId: clinic.id, toTeamId: ward.id, by: "cora", at: start))
                == .hasPatient(record: records[0].id, patient: patient))
        #expect(try await store.record(id: records[0].id)?.teamId == clinic.id, "nothing moved")
        #expect(
            try await store.transfer(
                TransferRequest(subject: .patient(patient), fromTeamId: ward.id, toTeamId: clinic.id, by: "w", at: start))
                == .notFound(patient))
        let moved = try await store.transfer(
            TransferRequest(subject: .patient(patient), fromTeamId: clinic.id, toTeamId: ward.id, by: "cora", at: start + 1))
        #expect(moved == .transferred(records.map(\.id)) || moved == .transferred(records.reversed().map(\.id)))
        #expect(try await store.patient(id: patient)?.teamId == ward.id)
        for record in records { #expect(try await store.record(id: record.id)?.teamId == ward.id) }
    }

    /// Two servers moving one record to two teams at once: it moves once, to one of them; and a
    /// transfer racing an edit loses nothing of the edit.
    public static func twoServersMovingOneRecordAtOnceMoveItOnce(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let clinic = try await first.createTeam(name: "clinic", at: start)
        let ward = try await first.createTeam(name: "ward", at: start)
        let lab = try await first.createTeam(name: "lab", at: start)
        for round in 0..<5 {
            let record = RecordStoreContract.record(4400 + UInt64(round))
            _ = try await first.ingest([IngestItem(record: record)], owner: RecordOwner(teamId: clinic.id, username: "cora"), at: start)
            async let a = first.transfer(
                TransferRequest(subject: .records([record.id]), fromTeamId: clinic.id, toTeamId: ward.id, by: "cora", at: start))
            async let b = second.transfer(
                TransferRequest(subject: .records([record.id]), fromTeamId: clinic.id, toTeamId: lab.id, by: "cora", at: start))
            var edited = record
            edited.patient.externalId = "R\(round)"
            async let edit = first.update(IngestItem(record: edited), baseRevision: 1, teamId: clinic.id, savedBy: "cora", at: start)
            let (x, y, e) = try await (a, b, edit)
            let wins = [x, y].filter { $0 == .transferred([record.id]) }
            #expect(wins.count == 1 && [x, y].contains(.notFound(record.id)), "round \(round): \(x) \(y)")
            let stored = try #require(try await first.record(id: record.id))
            #expect([ward.id, lab.id].contains(stored.teamId))
            if case .updated = e { #expect(stored.record.patient.externalId == "R\(round)", "an edit that landed is kept") }
            let exits = try await first.changes(teamId: clinic.id, after: 0, limit: 100).changes.filter { $0.id == record.id }
            #expect(exits.count == 1, "one exit entry: \(exits.count)")
        }
        #expect(try await AuditLog(store: first).verify().isSound)
    }
}
