import Foundation
import IntakeCore
import IntakeService
import Testing

/// What every store's change feed must do: list a team's records changed after a cursor, as they
/// are now or deleted, in the order of their changes, no other team's; never skip a change a
/// reader has not seen, even while two servers save at once; and tell a reader that stopped
/// before a purged deletion to start again.
public enum ChangeFeedContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    public static func theFeedListsEachRecordAtItsLatestChangeAndDeletions(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let other = try await store.createTeam(name: "other", at: start)
        let records = (0..<4).map { RecordStoreContract.record(3600 + UInt64($0)) }
        let owner = RecordOwner(teamId: team.id, username: "fatima")
        _ = try await store.ingest(records.map(IngestItem.init), owner: owner, at: start)
        _ = try await store.ingest(
            [IngestItem(record: RecordStoreContract.record(3690))], owner: RecordOwner(teamId: other.id, username: "o"), at: start)
        let first = try await store.changes(teamId: team.id, after: 0, limit: 10)
        #expect(first.changes.map(\.id) == records.map(\.id) && first.changes.map(\.cursor) == [1, 2, 3, 4] && first.horizon == 0)
        guard case .saved(let stored) = first.changes[0].kind else { Issue.record("not a saved record"); return }
        #expect(stored.record == records[0] && stored.revision == 1 && stored.receivedBy == "fatima")

        var edited = records[1]
        edited.patient.externalId = "E-1"
        _ = try await store.update(IngestItem(record: edited), baseRevision: 1, teamId: team.id, savedBy: "fatima", at: start + 1)
        _ = try await store.deleteRecord(id: records[2].id, teamId: team.id, reason: "twice", by: "cora", at: start + 2)
        let next = try await store.changes(teamId: team.id, after: 4, limit: 10)
        #expect(next.changes.map(\.id) == [records[1].id, records[2].id] && next.changes.map(\.cursor) == [5, 6])
        if case .saved(let again) = next.changes[0].kind {
            #expect(again.revision == 2 && again.record.patient.externalId == "E-1", "the record as it is now")
        } else {
            Issue.record("the edit is not a saved record")
        }
        if case .deleted(let tombstone) = next.changes[1].kind {
            #expect(tombstone.deletedBy == "cora" && tombstone.deletedAt == start + 2)
        } else {
            Issue.record("the deletion is not listed as one")
        }
        let whole = try await store.changes(teamId: team.id, after: 0, limit: 10)
        #expect(
            whole.changes.map(\.id) == [records[0].id, records[3].id, records[1].id, records[2].id],
            "each record once, at its latest change")
        #expect(try await store.changes(teamId: team.id, after: 0, limit: 2).changes.map(\.cursor) == [1, 4], "paged by limit")
        #expect(try await store.changes(teamId: team.id, after: 6, limit: 10).changes.isEmpty)
        #expect(try await store.changes(teamId: other.id, after: 0, limit: 10).changes.count == 1, "another team's feed is its own")
    }

    /// A purge moves the team's horizon to the newest deletion it removed; other teams' stay.
    public static func aPurgeMovesTheHorizonPastTheDeletionsItRemoved(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let other = try await store.createTeam(name: "other", at: start)
        let records = (0..<3).map { RecordStoreContract.record(3700 + UInt64($0)) }
        _ = try await store.ingest(records.map(IngestItem.init), owner: RecordOwner(teamId: team.id, username: "f"), at: start)
        _ = try await store.ingest(
            [IngestItem(record: RecordStoreContract.record(3790))], owner: RecordOwner(teamId: other.id, username: "o"), at: start)
        _ = try await store.deleteRecord(id: records[0].id, teamId: team.id, reason: "x", by: "cora", at: start)  // team cursor 4
        _ = try await store.deleteRecord(id: records[1].id, teamId: team.id, reason: "x", by: "cora", at: start)  // 5, the newest: kept
        #expect(try await store.purgeTombstones(deletedBefore: start + 1, by: "admin", at: start + 2) == TombstonePurge(purged: 1, kept: 1))
        let page = try await store.changes(teamId: team.id, after: 0, limit: 10)
        #expect(page.horizon == 4, "a reader that stopped before 4 may have missed the purged deletion")
        #expect(page.changes.map(\.id) == [records[2].id, records[1].id])
        #expect(try await store.changes(teamId: other.id, after: 0, limit: 10).horizon == 0)
        _ = try await store.ingest(
            [IngestItem(record: RecordStoreContract.record(3710))], owner: RecordOwner(teamId: team.id, username: "f"), at: start + 3)
        #expect(try await store.purgeTombstones(deletedBefore: start + 1, by: "admin", at: start + 4) == TombstonePurge(purged: 1, kept: 0))
        #expect(try await store.changes(teamId: team.id, after: 0, limit: 10).horizon == 5, "the horizon only moves forward")
    }

    /// Two servers saving at once while a reader follows the feed: the reader, going on from
    /// the last cursor it saw, ends up with every record, none skipped.
    public static func aReaderFollowingTheFeedWhileTwoServersSaveMissesNothing(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let team = try await first.createTeam(name: "clinic", at: start)
        let records = (0..<60).map { RecordStoreContract.record(3800 + UInt64($0)) }
        let owner = RecordOwner(teamId: team.id, username: "fatima")
        let reader = Task {
            var seen: Set<UUID> = []
            var cursor: Int64 = 0
            while seen.count < records.count {
                let page = try await first.changes(teamId: team.id, after: cursor, limit: 7)
                for change in page.changes {
                    #expect(change.cursor > cursor, "cursors only grow")
                    cursor = change.cursor
                    seen.insert(change.id)
                }
                if page.changes.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
            }
            return seen
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, record) in records.enumerated() {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask { _ = try await store.ingest([IngestItem(record: record)], owner: owner, at: start) }
            }
            try await group.waitForAll()
        }
        // A reader that missed a record never ends: it is given up on after a time long enough
        // for a machine busy with every other test (it ends in about a second alone).
        let seen = try await withThrowingTaskGroup(of: Set<UUID>?.self) { group in
            group.addTask { try await reader.value }
            group.addTask {
                try await Task.sleep(for: .seconds(120))
                reader.cancel()
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        #expect(seen == Set(records.map(\.id)), "the reader saw every record")
    }
}

/// What every store must do with collector-only questionnaires: keep the setting, count every
/// record of the questionnaire as changed when it flips (so feeds re-send them), audit it, and
/// stay consistent when two servers flip it at once.
public enum CollectorOnlyContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    public static func flippingTheSettingCountsTheQuestionnairesRecordsAsChanged(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "clinic", at: start)
        let records = (0..<3).map { RecordStoreContract.record(4000 + UInt64($0)) }
        _ = try await store.ingest(records.map(IngestItem.init), owner: RecordOwner(teamId: team.id, username: "fatima"), at: start)
        let questionnaire = records[0].questionnaire.id
        #expect(try await store.collectorOnlyQuestionnaires().isEmpty)
        #expect(
            try await store.setCollectorOnly(questionnaireId: questionnaire, false, by: "admin", at: start) == false, "already team-wide")
        #expect(try await store.setCollectorOnly(questionnaireId: questionnaire, true, by: "admin", at: start + 1))
        #expect(try await store.collectorOnlyQuestionnaires() == [questionnaire])
        #expect(try await store.setCollectorOnly(questionnaireId: questionnaire, true, by: "admin", at: start + 2) == false)
        let after = try await store.changes(teamId: team.id, after: 3, limit: 10)
        #expect(
            Set(after.changes.map(\.id)) == Set(records.map(\.id)) && after.changes.map(\.cursor) == [4, 5, 6], "each record comes again")
        #expect(try await store.setCollectorOnly(questionnaireId: questionnaire, false, by: "admin", at: start + 3))
        #expect(try await store.collectorOnlyQuestionnaires().isEmpty)
        #expect(try await store.changes(teamId: team.id, after: 6, limit: 10).changes.count == 3)
        let events = try await store.auditEvents(AuditQuery(action: "questionnaire.access"))
        #expect(events.map { $0.details["collectorOnly"] } == ["true", "false"] && events.allSatisfy { $0.subject == questionnaire })
    }

    /// Two servers flipping the setting at once while records are saved: the setting ends as the
    /// last flip left it, and no two changes share a cursor.
    public static func twoServersFlippingAtOnceLeaveOneSettingAndUniqueCursors(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let team = try await first.createTeam(name: "clinic", at: start)
        let owner = RecordOwner(teamId: team.id, username: "fatima")
        let records = (0..<10).map { RecordStoreContract.record(4100 + UInt64($0)) }
        _ = try await first.ingest(records.prefix(5).map(IngestItem.init), owner: owner, at: start)
        let questionnaire = records[0].questionnaire.id
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<6 {
                let store = round.isMultiple(of: 2) ? first : second
                group.addTask {
                    _ = try await store.setCollectorOnly(questionnaireId: questionnaire, round % 3 != 0, by: "admin", at: start)
                }
            }
            for record in records.suffix(5) {
                group.addTask { _ = try await second.ingest([IngestItem(record: record)], owner: owner, at: start) }
            }
            try await group.waitForAll()
        }
        let page = try await first.changes(teamId: team.id, after: 0, limit: 100)
        #expect(page.changes.count == 10 && Set(page.changes.map(\.cursor)).count == 10, "each record once, no cursor shared")
        let flips = try await first.auditEvents(AuditQuery(action: "questionnaire.access"))
        let last = flips.last.map { $0.details["collectorOnly"] == "true" } ?? false
        #expect(try await first.collectorOnlyQuestionnaires().contains(questionnaire) == last, "the setting is what the last flip left")
        #expect(try await AuditLog(store: first).verify().isSound)
    }
}
