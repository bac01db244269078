import Foundation
import IntakeCore
import IntakeExport
import IntakeService
import Testing

/// What every store must do when a record is deleted: keep a tombstone and nothing else of it,
/// refuse the id for good, tell incremental exports, purge old tombstones without moving any
/// change cursor back, and let exactly one of two racing deletions win.
public enum TombstoneStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    public static func aDeletedRecordLeavesOnlyItsTombstone(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let other = try await store.createTeam(name: "other", at: start)
        let records = [RecordStoreContract.record(3100), RecordStoreContract.record(3101)]
        let owner = RecordOwner(teamId: team.id, username: "fatima")
        _ = try await store.ingest(records.map(IngestItem.init), owner: owner, at: start)
        var edited = records[0]
        edited.patient.externalId = "E-9"
        #expect(
            try await store.update(IngestItem(record: edited), baseRevision: 1, teamId: team.id, savedBy: "fatima", at: start + 1)
                == .updated(revision: 2))
        let family = records[0].patient.familyName
        #expect(try await store.lookup(LookupQuery(teamId: team.id, familyName: family)).contains { $0.id == records[0].id })

        #expect(
            try await store.deleteRecord(id: records[0].id, teamId: other.id, reason: "duplicate", by: "olga", at: start + 2) == .notFound,
            "another team's record is not found, not deleted")
        guard
            case .deleted(let tombstone) = try await store.deleteRecord(
                id: records[0].id, teamId: team.id, reason: "entered twice", by: "cora", at: start + 2)
        else { Issue.record("the deletion did not happen"); return }
        #expect(tombstone.recordId == records[0].id && tombstone.teamId == team.id && tombstone.revision == 2)
        #expect(tombstone.deletedBy == "cora" && tombstone.reason == "entered twice" && tombstone.deletedAt == start + 2)
        #expect(tombstone.questionnaireId == records[0].questionnaire.id)

        #expect(try await store.record(id: records[0].id) == nil, "a deleted record is not read")
        #expect(try await store.tombstone(id: records[0].id) == tombstone)
        #expect(try await store.tombstone(id: records[1].id) == nil, "a live record has no tombstone")
        #expect(try await store.record(id: records[1].id) != nil)
        #expect(try await store.revisions(of: records[0].id).isEmpty, "its history goes with it")
        #expect(
            try await !store.lookup(LookupQuery(teamId: team.id, familyName: family)).contains { $0.id == records[0].id },
            "nor is it found")
        #expect(try await store.lookup(LookupQuery(teamId: team.id, externalId: "E-9")).isEmpty)

        #expect(
            try await store.ingest([IngestItem(record: records[0])], owner: owner, at: start + 3) == [.deleted(tombstone)],
            "sending it again does not bring it back")
        #expect(
            try await store.ingest([IngestItem(record: records[0])], owner: RecordOwner(teamId: other.id, username: "olga"), at: start + 3)
                == [.taken],
            "another team learns nothing of it")
        #expect(
            try await store.update(IngestItem(record: edited), baseRevision: 2, teamId: team.id, savedBy: "fatima", at: start + 3)
                == .deleted(tombstone))
        #expect(
            try await store.deleteRecord(id: records[0].id, teamId: team.id, reason: "again", by: "dan", at: start + 4)
                == .alreadyDeleted(tombstone))
        #expect(try await store.record(id: records[0].id) == nil)
        #expect(try await store.tombstone(id: records[0].id) == tombstone)

        let deletions = try await store.auditEvents(AuditQuery(action: "record.delete"))
        #expect(deletions.map(\.subject) == [records[0].id.uuidString.lowercased()] && deletions.map(\.actor) == ["cora"])
        #expect(deletions.first?.details == ["team": String(team.id), "revision": "2"], "the reason is not on the trail: it is free text")
        #expect(try await AuditLog(store: store).verify().isSound)
    }

    /// The next incremental export lists what an earlier one may have held and was deleted since;
    /// no export holds a deleted record.
    public static func incrementalExportsListDeletionsOnce(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let other = try await store.createTeam(name: "other", at: start)
        let records = (0..<3).map { RecordStoreContract.record(3200 + UInt64($0)) }
        let owner = RecordOwner(teamId: team.id, username: "fatima")
        _ = try await store.ingest(records.map(IngestItem.init), owner: owner, at: start)
        _ = try await store.ingest(
            [IngestItem(record: RecordStoreContract.record(3210))], owner: RecordOwner(teamId: other.id, username: "o"), at: start)
        let questionnaire = records[0].questionnaire.id
        let earlier = try await store.exportSnapshot(teamId: team.id)
        let earlierWhole = try await store.exportSnapshot(teamId: nil)

        // Deleted after the earlier export: listed. Made and deleted after it: never held, not listed.
        let late = RecordStoreContract.record(3220)
        _ = try await store.ingest([IngestItem(record: late)], owner: owner, at: start + 10)
        for id in [records[1].id, late.id] {
            guard case .deleted = try await store.deleteRecord(id: id, teamId: team.id, reason: "mistake", by: "cora", at: start + 20)
            else {
                Issue.record("not deleted"); return
            }
        }
        let next = try await store.exportSnapshot(teamId: team.id)
        var query = ExportQuery(questionnaireId: questionnaire, teamId: team.id, after: earlier.cursor, upTo: next.cursor)
        query.previous = .cursor(earlier.cursor)
        #expect(try await next.deleted(query) == [RemovedRecord(recordId: records[1].id, reason: .deleted)])
        #expect(try await next.page(query).isEmpty, "a deletion is not a record to export")
        let whole = ExportQuery(questionnaireId: questionnaire, teamId: team.id, after: 0, upTo: next.cursor)
        #expect(try await next.count(whole) == 2)
        #expect(try await next.page(whole).map { try $0.record().id } == [records[0].id, records[2].id])
        #expect(try await next.deleted(whole).isEmpty, "a full export removes nothing")
        var everyTeam = ExportQuery(
            questionnaireId: questionnaire, teamId: nil, after: earlierWhole.cursor,
            upTo: try await store.exportSnapshot(teamId: nil).cursor)
        everyTeam.previous = .cursor(earlierWhole.cursor)
        #expect(
            try await store.exportSnapshot(teamId: nil).deleted(everyTeam).map(\.recordId) == [records[1].id],
            "on the deployment's cursor too")
        var otherTeam = ExportQuery(questionnaireId: questionnaire, teamId: other.id, after: 0, upTo: 1)
        otherTeam.previous = .cursor(0)
        #expect(try await store.exportSnapshot(teamId: other.id).deleted(otherTeam).isEmpty, "another team's export hears nothing of it")
        var byTime = query
        byTime.previous = .time(start + 5)
        #expect(try await next.deleted(byTime).map(\.recordId) == [records[1].id], "by time: received before, deleted after")
        byTime.previous = .time(start + 25)
        #expect(try await next.deleted(byTime).isEmpty)

        // The export after that one lists nothing again.
        let after = try await store.exportSnapshot(teamId: team.id)
        var again = ExportQuery(questionnaireId: questionnaire, teamId: team.id, after: next.cursor, upTo: after.cursor)
        again.previous = .cursor(next.cursor)
        #expect(try await after.deleted(again).isEmpty)
    }

    /// Old tombstones go, except the one each change cursor counts from: no cursor moves back,
    /// so nothing made after a purge hides behind an export's cursor.
    public static func purgingOldTombstonesNeverMovesACursorBack(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let records = (0..<4).map { RecordStoreContract.record(3300 + UInt64($0)) }
        let owner = RecordOwner(teamId: team.id, username: "fatima")
        _ = try await store.ingest(records.map(IngestItem.init), owner: owner, at: start)
        let day: TimeInterval = 86_400
        for (index, record) in records.prefix(3).enumerated() {
            _ = try await store.deleteRecord(
                id: record.id, teamId: team.id, reason: "test", by: "cora", at: start + Double(index) * 10 * day)
        }
        let cursor = try await store.exportSnapshot(teamId: team.id).cursor
        let wholeCursor = try await store.exportSnapshot(teamId: nil).cursor
        #expect(cursor == 7)

        // Deleted at day 0, 10 and 20; purging what was deleted before day 15 takes two.
        let first = try await store.purgeTombstones(deletedBefore: start + 15 * day, by: "admin", at: start + 30 * day)
        #expect(first == TombstonePurge(purged: 2, kept: 0))
        #expect(try await store.tombstone(id: records[0].id) == nil)
        #expect(try await store.tombstone(id: records[1].id) == nil)
        #expect(try await store.tombstone(id: records[2].id) != nil)
        // The newest tombstone holds the team's newest change: it stays, however old.
        let second = try await store.purgeTombstones(deletedBefore: start + 100 * day, by: "admin", at: start + 100 * day)
        #expect(second == TombstonePurge(purged: 0, kept: 1))
        #expect(try await store.exportSnapshot(teamId: team.id).cursor == cursor, "no cursor moved back")
        #expect(try await store.exportSnapshot(teamId: nil).cursor == wholeCursor)

        // A purged id stays unknown: the team may use it again only as a new record.
        let fresh = RecordStoreContract.record(3310)
        _ = try await store.ingest([IngestItem(record: fresh)], owner: owner, at: start + 101 * day)
        let after = try await store.exportSnapshot(teamId: team.id)
        #expect(after.cursor == cursor + 1, "the next change comes after every cursor handed out")
        var query = ExportQuery(questionnaireId: fresh.questionnaire.id, teamId: team.id, after: cursor, upTo: after.cursor)
        query.previous = .cursor(cursor)
        #expect(try await after.page(query).map { try $0.record().id } == [fresh.id])
        let third = try await store.purgeTombstones(deletedBefore: start + 100 * day, by: "admin", at: start + 102 * day)
        #expect(third == TombstonePurge(purged: 1, kept: 0), "a newer change passed it")
        #expect(try await store.record(id: records[3].id) != nil, "live records are never purged")

        let purges = try await store.auditEvents(AuditQuery(action: "record.purge"))
        #expect(purges.map { $0.details["purged"] } == ["2", "0", "1"] && purges.map(\.actor) == ["admin", "admin", "admin"])
        #expect(try await AuditLog(store: store).verify().isSound)
    }

    /// Two servers deleting one record at once: one deletes, the other finds its tombstone. A
    /// deletion racing an edit: the edit lands before it or is told of it, never after.
    public static func racingDeletionsAndEditsEndInOneTombstone(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let team = try await first.createTeam(name: "clinic", at: start)
        let owner = RecordOwner(teamId: team.id, username: "fatima")
        for round in 0..<6 {
            let record = RecordStoreContract.record(3400 + UInt64(round))
            _ = try await first.ingest([IngestItem(record: record)], owner: owner, at: start)
            async let a = first.deleteRecord(id: record.id, teamId: team.id, reason: "a", by: "cora", at: start + 1)
            async let b = second.deleteRecord(id: record.id, teamId: team.id, reason: "b", by: "dan", at: start + 1)
            let outcomes = try await [a, b]
            let won = outcomes.compactMap { if case .deleted(let t) = $0 { t } else { nil } }
            let lost = outcomes.compactMap { if case .alreadyDeleted(let t) = $0 { t } else { nil } }
            #expect(won.count == 1 && lost == won, "round \(round): \(outcomes)")
            #expect(try await second.tombstone(id: record.id) == won.first)
        }
        for round in 0..<6 {
            let record = RecordStoreContract.record(3500 + UInt64(round))
            _ = try await first.ingest([IngestItem(record: record)], owner: owner, at: start)
            var edited = record
            edited.patient.externalId = "R-\(round)"
            let item = IngestItem(record: edited)
            async let edit = first.update(item, baseRevision: 1, teamId: team.id, savedBy: "fatima", at: start + 1)
            async let deletion = second.deleteRecord(id: record.id, teamId: team.id, reason: "x", by: "cora", at: start + 1)
            let (edited1, deleted) = try await (edit, deletion)
            guard case .deleted(let tombstone) = deleted else { Issue.record("round \(round): the deletion lost: \(deleted)"); continue }
            switch edited1 {
            case .updated(let revision): #expect(tombstone.revision == revision, "the edit landed first")
            case .deleted(let seen): #expect(seen == tombstone && tombstone.revision == 1, "the edit was told of the deletion")
            default: Issue.record("round \(round): \(edited1)")
            }
            #expect(try await first.revisions(of: record.id).isEmpty)
            #expect(try await first.record(id: record.id) == nil)
        }
        #expect(try await AuditLog(store: first).verify().isSound)
    }
}
