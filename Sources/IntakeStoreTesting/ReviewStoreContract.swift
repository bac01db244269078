import Foundation
import IntakeCore
import IntakeService
import Testing

/// What every store must do with records' reviews: the states and lock as ``ReviewRules`` decide
/// them, the thread, who is told, what an edit does, exports by state, and a lock and an edit at
/// once on two servers.
public enum ReviewStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Team "t" (coordinator "lead", field worker "fw") and one record fw collected.
    static func setUp(_ store: any RecordStore) async throws -> (team: Team, record: PatientResponse) {
        let team = try await store.createTeam(name: "t", at: start)
        for (name, role) in [("lead", Role.coordinator), ("fw", .fieldworker)] {
            _ = try await store.createUser(NewUser(username: name, passwordHash: "h", role: role, teamId: team.id), at: start)
        }
        var record = RecordStoreContract.record(41)
        record.collector = "fw"
        _ = try await store.ingest([try IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "fw"), at: start)
        return (team, record)
    }

    static func types(_ store: any RecordStore, _ name: String) async throws -> [String] {
        let user = try #require(try await store.credentials(username: name)?.user)
        return try await store.notifications(NotificationQuery(userId: user.id)).map(\.type)
    }

    static func edit(_ record: PatientResponse, _ minutes: Double) throws -> IngestItem {
        var edited = record
        edited.updatedAt = record.updatedAt.addingTimeInterval(minutes * 60)
        return try IngestItem(record: edited)
    }

    /// A record is received; a reviewer says it has issues (the collector is told), the collector
    /// answers in the thread (the reviewer is told) and edits it (edited, the reviewer told); an
    /// approval locks it against edits until it is reopened; the thread keeps every step, and
    /// goes with the record when it is deleted.
    public static func aReviewIsDecidedLockedReopenedAndKeptInItsThread(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (team, record) = try await setUp(store)
        let received = try #require(try await store.review(recordId: record.id))
        #expect(
            received.state == .received && !received.locked && received.reviewedBy == nil && received.collector == "fw" && !received.deleted
        )

        guard
            case .reviewed(let flagged, let entry) = try await store.review(
                record.id, .decide(.hasIssues, lock: false), text: "Weight looks wrong", by: "lead", at: start + 60)
        else {
            Issue.record("not reviewed")
            return
        }
        #expect(flagged.state == .hasIssues && flagged.reviewedBy == "lead" && !flagged.locked)
        #expect(entry.state == .hasIssues && entry.text == "Weight looks wrong" && entry.author == "lead")
        #expect(try await types(store, "fw") == [NotificationType.reviewHasIssues])
        #expect(try await types(store, "lead").isEmpty, "nobody is told of their own review")

        _ = try await store.review(record.id, .comment, text: "Checked: it was 68", by: "fw", at: start + 120)
        #expect(try await types(store, "lead") == [NotificationType.reviewComment], "the collector's answer reaches the reviewer")

        #expect(
            try await store.update(try edit(record, 3), baseRevision: 1, teamId: team.id, savedBy: "fw", at: start + 180)
                == .updated(revision: 2))
        let edited = try #require(try await store.review(recordId: record.id))
        #expect(edited.state == .edited && edited.reviewedBy == "lead", "an edit after a review marks it edited")
        #expect(try await types(store, "lead").contains(NotificationType.reviewEdited))

        guard
            case .reviewed(let approved, _) = try await store.review(
                record.id, .decide(.approved, lock: true), text: "", by: "lead", at: start + 240)
        else {
            Issue.record("not approved")
            return
        }
        #expect(approved.state == .approved && approved.locked)
        #expect(try await store.update(try edit(record, 5), baseRevision: 2, teamId: team.id, savedBy: "fw", at: start + 300) == .locked)
        #expect(try await store.record(id: record.id)?.revision == 2, "a locked record keeps its revision")
        let refused = try await store.review(record.id, .decide(.rejected, lock: false), text: "", by: "lead", at: start + 300)
        guard case .refused(let code, _) = refused else {
            Issue.record("a locked record's review changed: \(refused)")
            return
        }
        #expect(code == "record_locked")

        guard
            case .reviewed(let reopened, _) = try await store.review(record.id, .reopen, text: "Fix the date", by: "lead", at: start + 360)
        else {
            Issue.record("not reopened")
            return
        }
        #expect(reopened.state == .approved && !reopened.locked)
        if case .refused(let code, _) = try await store.review(record.id, .reopen, text: "", by: "lead", at: start + 370) {
            #expect(code == "review_not_locked")
        } else {
            Issue.record("reopened twice")
        }
        #expect(
            try await store.update(try edit(record, 7), baseRevision: 2, teamId: team.id, savedBy: "fw", at: start + 420)
                == .updated(revision: 3))
        #expect(try await store.review(recordId: record.id)?.state == .edited)

        let thread = try await store.reviewEntries(recordId: record.id)
        #expect(thread.map(\.state) == [.hasIssues, nil, .edited, .approved, nil, .edited])
        #expect(thread.map(\.locked) == [nil, nil, nil, true, false, nil])
        #expect(thread.map(\.author) == ["lead", "fw", "fw", "lead", "lead", "fw"])
        #expect(thread.map(\.id) == thread.map(\.id).sorted())

        let listed = try await store.reviews(ReviewFilter(teamId: team.id, states: [.edited]))
        #expect(listed.map(\.recordId) == [record.id])
        #expect(try await store.reviews(ReviewFilter(teamId: team.id, states: [.approved, .rejected])).isEmpty)
        #expect(try await store.reviews(ReviewFilter(teamId: team.id, collector: "lead")).isEmpty)
        #expect(try await store.reviews(ReviewFilter(teamId: nil)).count == 1)
        var audit = AuditQuery()
        audit.action = AuditAction.recordReview.rawValue
        let audited = try await store.auditEvents(audit)
        #expect(audited.count == 6, "each change of the review is on the trail")
        #expect(audited.allSatisfy { !$0.details.values.contains { $0.contains("Weight") } }, "never the comment")

        _ = try await store.deleteRecord(id: record.id, teamId: team.id, reason: "entered twice", by: "lead", at: start + 480)
        #expect(try await store.reviewEntries(recordId: record.id).isEmpty, "the thread goes with the record")
        #expect(try await store.review(recordId: record.id)?.deleted == true)
        #expect(try await store.review(record.id, .comment, text: "late", by: "lead", at: start + 540) == .deleted)
        #expect(try await store.review(recordId: UUID()) == nil)
        #expect(try await store.review(UUID(), .comment, text: "x", by: "lead", at: start) == .notFound)
    }

    /// Records received per day (UTC), questionnaire and collector, of a team or of every team;
    /// deleted ones and those before `since` not counted.
    public static func activityCountsRecordsPerDayQuestionnaireAndCollector(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (team, first) = try await setUp(store)
        let other = try await store.createTeam(name: "o", at: start)
        let day = 86_400.0
        for (seed, collector, teamId, at) in [
            (43, "fw", team.id, start + day), (44, "fw", team.id, start + day + 60), (45, "ana", team.id, start + day),
            (46, "fw", team.id, start + 2 * day), (47, "omar", other.id, start + day), (48, "fw", team.id, start + 2 * day),
        ] as [(UInt64, String, Int64, Date)] {
            let record = RecordStoreContract.record(seed).with { $0.collector = collector }
            _ = try await store.ingest([try IngestItem(record: record)], owner: RecordOwner(teamId: teamId, username: collector), at: at)
            if seed == 48 { _ = try await store.deleteRecord(id: record.id, teamId: team.id, reason: "twice", by: "lead", at: at) }
        }
        let q = first.questionnaire.id
        func key(_ time: Date) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withFullDate]
            return formatter.string(from: time)
        }
        let counted = try await store.recordActivity(teamId: team.id, since: start + day)
        #expect(
            counted == [
                RecordActivity(day: key(start + day), questionnaireId: q, collector: "ana", count: 1),
                RecordActivity(day: key(start + day), questionnaireId: q, collector: "fw", count: 2),
                RecordActivity(day: key(start + 2 * day), questionnaireId: q, collector: "fw", count: 1),
            ], "\(counted)")
        let everyTeam = try await store.recordActivity(teamId: nil, since: start)
        #expect(everyTeam.reduce(0) { $0 + $1.count } == 6, "the first record, five more, one deleted: \(everyTeam)")
    }

    /// A review list is paged in its order (the most recently changed first, then by id) and
    /// counted whole with the same filter, deleted records and other teams' left out.
    public static func aReviewListIsPagedAndCountedWhole(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (team, _) = try await setUp(store)
        let other = try await store.createTeam(name: "o", at: start)
        let patient = UUID()
        for seed in UInt64(60)..<UInt64(85) {
            let record = RecordStoreContract.record(seed).with {
                $0.collector = "fw"
                if seed < 64 { $0.patientId = patient }
            }
            let teamId = seed % 5 == 0 ? other.id : team.id
            _ = try await store.ingest(
                [try IngestItem(record: record)], owner: RecordOwner(teamId: teamId, username: "fw"), at: start + Double(seed))
            if seed == 61 { _ = try await store.deleteRecord(id: record.id, teamId: team.id, reason: "twice", by: "lead", at: start + 100) }
        }
        // 1 from setUp + 25 - 5 in the other team - 1 deleted.
        let all = try await store.reviews(ReviewFilter(teamId: team.id, limit: 100))
        #expect(all.count == 20)
        #expect(try await store.reviewCount(ReviewFilter(teamId: team.id, limit: 3, offset: 7)) == 20, "counted whole, whatever the page")
        var paged: [RecordReview] = []
        for offset in stride(from: 0, to: 21, by: 7) {
            paged += try await store.reviews(ReviewFilter(teamId: team.id, limit: 7, offset: offset))
        }
        #expect(paged.map(\.recordId) == all.map(\.recordId), "the pages are the list, each once, in order")
        #expect(try await store.reviews(ReviewFilter(teamId: team.id, limit: 7, offset: 20)).isEmpty, "past the end")
        #expect(try await store.reviewCount(ReviewFilter(teamId: nil)) == 25)
        #expect(try await store.reviewCount(ReviewFilter(teamId: team.id, states: [.approved])) == 0)
        #expect(try await store.reviewCount(ReviewFilter(teamId: team.id, collector: "lead")) == 0)
        // A patient's records: 60 is the other team's, 61 deleted, 62 and 63 theirs here.
        var ofPatient = ReviewFilter(teamId: team.id)
        ofPatient.patientId = patient
        #expect(try await store.reviewCount(ofPatient) == 2)
        #expect(Set(try await store.reviews(ofPatient).map(\.recordId)) == Set([UInt64(62), 63].map { RecordStoreContract.record($0).id }))
    }

    /// An export filters by review state and carries it; a review takes a new change cursor, so an
    /// export since an earlier cursor holds a record approved since.
    public static func exportsFilterByReviewStateAndCarryIt(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (team, record) = try await setUp(store)
        var other = RecordStoreContract.record(42)
        other.collector = "fw"
        _ = try await store.ingest([try IngestItem(record: other)], owner: RecordOwner(teamId: team.id, username: "fw"), at: start)
        let before = try await store.exportSnapshot(teamId: team.id).cursor
        _ = try await store.review(record.id, .decide(.approved, lock: false), text: "", by: "lead", at: start + 60)
        let snapshot = try await store.exportSnapshot(teamId: team.id)
        #expect(snapshot.cursor > before)
        var query = ExportQuery(questionnaireId: record.questionnaire.id, teamId: team.id, after: 0, upTo: snapshot.cursor)
        let all = try await snapshot.page(query)
        #expect(Set(all.compactMap(\.reviewState)) == [.approved, .received] && all.count == 2)
        query.reviewStates = [.approved]
        #expect(try await snapshot.count(query) == 1)
        let approved = try await snapshot.page(query)
        #expect(approved.count == 1 && approved.first?.reviewState == .approved)
        query.reviewStates = [.approved]
        query.after = before
        #expect(try await snapshot.page(query).count == 1, "approved since the earlier export: in the next one")
        query.reviewStates = [.rejected, .hasIssues]
        query.after = 0
        #expect(try await snapshot.count(query) == 0)
    }

    /// A reviewer locking a record while its collector saves an edit, on two servers: either the
    /// edit lands first (and the record is locked at the edit's revision, its thread saying so in
    /// that order) or the lock does (and the edit is refused). Never an edit after the lock.
    public static func aLockAndAnEditAtOnceTakeTurns(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let (team, _) = try await setUp(first)
        for round in 0..<8 {
            let record = RecordStoreContract.record(UInt64(500 + round)).with { $0.collector = "fw" }
            _ = try await first.ingest([try IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "fw"), at: start)
            let at = start + Double(round)
            let change = try edit(record, 1)
            // Reviewed first: an edit that landed unseen after the lock would make it edited and unlocked.
            _ = try await first.review(record.id, .decide(.hasIssues, lock: false), text: "", by: "lead", at: at)
            async let locking = first.review(record.id, .decide(.approved, lock: true), text: "", by: "lead", at: at)
            async let editing = second.update(change, baseRevision: 1, teamId: team.id, savedBy: "fw", at: at)
            let (locked, edited) = try await (locking, editing)
            guard case .reviewed = locked else {
                Issue.record("round \(round): the lock did not land: \(locked)")
                return
            }
            let review = try #require(try await first.review(recordId: record.id))
            #expect(review.locked && review.state == .approved)
            let thread = try await second.reviewEntries(recordId: record.id)
            switch edited {
            case .updated(let revision):
                #expect(revision == 2 && thread.map(\.state) == [.hasIssues, .edited, .approved], "round \(round): \(thread)")
                #expect(try await first.record(id: record.id)?.revision == 2)
            case .locked:
                #expect(try await first.record(id: record.id)?.revision == 1, "round \(round): refused, and nothing saved")
                #expect(thread.map(\.state) == [.hasIssues, .approved], "round \(round): \(thread)")
            default:
                Issue.record("round \(round): \(edited)")
            }
        }
    }
}
