import Foundation
import IntakeCore
import IntakeService
import Testing

/// What every store must do with cases: keep what the case service writes, body and all; move a
/// team's case cursor only from where it stood (two servers reading the same changes write them
/// once); give each written case the next change sequence; and answer a machine's pull with
/// only the open cases its account follows.
public enum CaseStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A case as the case service would write it, with a visit, a conflict and properties of
    /// several kinds (Arabic text among them).
    public static func sample(_ n: Int, teamId: Int64, assignee: String?, status: CaseStatus = .open) -> StoredCase {
        let opened = UUID.named("case-contract-record-\(n)")
        var stored = StoredCase(
            id: UUID.named("case-contract-\(n)"), list: n % 2 == 0 ? "follow-up" : "pregnancy", teamId: teamId,
            patientId: n % 3 == 0 ? UUID.named("case-contract-patient-\(n)") : nil,
            opening: CaseOpeningFacts(
                recordId: opened, at: start.addingTimeInterval(Double(n)), collector: "a",
                patient: PatientIdentification(
                    givenName: "أمينة", familyName: "Haddad \(n)", dateOfBirth: LocalDate(iso: "1990-05-01"), sex: .female),
                properties: ["phq2": .integer(n % 7), "reason": .text("low_mood"), "name_note": .text("وحدة متنقلة \(n)")],
                due: LocalDate(iso: "2027-01-15")),
            assignee: assignee, status: status, updatedAt: start)
        stored.visits = [
            CaseVisit(
                recordId: UUID.named("case-contract-visit-\(n)"), at: start.addingTimeInterval(Double(n) + 3600), collector: "a",
                baseRevision: 1, arrivalRevision: 2, properties: ["phq2": .integer(2), "seen": .date(LocalDate(iso: "2027-01-02")!)],
                due: nil, closes: status == .closed)
        ]
        stored = CaseFold.folded(stored)
        stored.conflicts = n % 4 == 0 ? [CaseConflict(property: "phq2", recordIds: [opened, UUID.named("x\(n)")])] : []
        return stored
    }

    /// Equal but for what the store gives (the change sequence and the time of the write).
    static func same(_ a: StoredCase?, _ b: StoredCase) -> Bool {
        guard var a else { return false }
        a.changeSeq = b.changeSeq
        a.updatedAt = b.updatedAt
        return a == b
    }

    /// The case service reads the change feed without the records: each change's cursor (the
    /// change feed's), its record, and the case work ingest kept on the row; an edit replaces
    /// it, a deletion leaves none, a move to another team is an exit here and arrives there
    /// with its work. A deletion and an exit name the case the record was a visit of.
    public static func theCaseFeedCarriesEachRecordsCaseWork(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "mobile unit", at: start)
        let other = try await store.createTeam(name: "وحدة متنقلة", at: start)
        let owner = RecordOwner(teamId: team.id, username: "amina")
        let followed = [UUID.named("case-feed-a"), UUID.named("case-feed-c")]
        var records = (0..<3).map { RecordStoreContract.record(4900 + UInt64($0)) }
        records[0].caseLink = CaseLink(id: followed[0], list: "follow-up")
        records[2].caseLink = CaseLink(id: followed[1], list: "follow-up", revision: 3)
        let works: [String?] = [#"[{"open":"a"}]"#, nil, #"[{"visit":"c","note":"وحدة"}]"#]
        let items = zip(records, works).map { record, work in
            var item = IngestItem(record: record)
            item.caseWork = work
            return item
        }
        _ = try await store.ingest(items, owner: owner, at: start)
        let feed = try await store.caseFeed(teamId: team.id, after: 0, limit: 10)
        #expect(feed.map(\.recordId) == records.map(\.id))
        #expect(feed.map(\.kind) == works.map { .saved(caseWork: $0) })
        #expect(feed.map(\.cursor) == (try await store.changes(teamId: team.id, after: 0, limit: 10)).changes.map(\.cursor))
        #expect(try await store.caseFeed(teamId: team.id, after: feed[0].cursor, limit: 1).map(\.recordId) == [records[1].id])
        #expect(try await store.caseFeed(teamId: other.id, after: 0, limit: 10).isEmpty)

        // An edit carries its own work (none, then some again); a deletion none.
        let none = IngestItem(record: records[0].with { $0.patient.externalId = "E-0" })
        #expect(try await store.update(none, baseRevision: 1, teamId: team.id, savedBy: "amina", at: start + 1) == .updated(revision: 2))
        let cleared = try await store.caseFeed(teamId: team.id, after: feed[2].cursor, limit: 10)
        #expect(cleared.map(\.kind) == [.saved(caseWork: nil)], "an edit that does nothing to cases leaves no work on the row")
        var edit = IngestItem(record: records[0].with { $0.patient.externalId = "E-1" })
        edit.caseWork = #"[{"open":"a2"}]"#
        #expect(try await store.update(edit, baseRevision: 2, teamId: team.id, savedBy: "amina", at: start + 1) == .updated(revision: 3))
        _ = try await store.deleteRecord(id: records[2].id, teamId: team.id, reason: "wrong patient", by: "cora", at: start + 2)
        let later = try await store.caseFeed(teamId: team.id, after: feed[2].cursor, limit: 10)
        #expect(later.map(\.recordId) == [records[0].id, records[2].id])
        #expect(later.map(\.kind) == [.saved(caseWork: #"[{"open":"a2"}]"#), .deleted(followedCase: followed[1])])

        // Moved: an exit from this team's feed; in the other's, the record with its work.
        let moved = try await store.transfer(
            TransferRequest(subject: .records([records[0].id]), fromTeamId: team.id, toTeamId: other.id, by: "cora", at: start + 3))
        #expect(moved == .transferred([records[0].id]))
        let exit = try await store.caseFeed(teamId: team.id, after: later[1].cursor, limit: 10)
        #expect(exit.map(\.recordId) == [records[0].id] && exit.map(\.kind) == [.transferred(followedCase: followed[0])])
        #expect(try await store.caseFeed(teamId: other.id, after: 0, limit: 10).map(\.kind) == [.saved(caseWork: #"[{"open":"a2"}]"#)])
    }

    /// The console's list: open cases soonest due first (those without a due date last), only
    /// those the account follows; and the counts of the team's day.
    public static func openCasesAreListedByDueAndCounted(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "mobile unit", at: start)
        let other = try await store.createTeam(name: "وحدة متنقلة", at: start)
        func with(_ n: Int, team: Int64, assignee: String?, due: String?, status: CaseStatus = .open) -> StoredCase {
            var stored = sample(100 + n, teamId: team, assignee: assignee, status: status)
            stored.due = due.flatMap(LocalDate.init(iso:))
            return stored
        }
        let cases = [
            with(1, team: team.id, assignee: "a", due: "2027-01-20"), with(2, team: team.id, assignee: nil, due: "2027-01-10"),
            with(3, team: team.id, assignee: "b", due: "2027-01-05"), with(4, team: team.id, assignee: "a", due: nil),
            with(5, team: team.id, assignee: "a", due: "2027-01-12"),
            with(6, team: team.id, assignee: "a", due: "2027-01-01", status: .closed),
            with(7, team: other.id, assignee: "a", due: "2027-01-01"),
        ]
        #expect(try await store.advanceCases(teamId: team.id, from: 0, to: 1, reading: [], at: start) { _ in cases })
        let today = LocalDate(iso: "2027-01-12")!
        #expect(
            try await store.openCasesByDue(teamId: team.id, visibleTo: nil, limit: 10).map(\.id)
                == [cases[2], cases[1], cases[4], cases[0], cases[3]].map(\.id))
        #expect(
            try await store.openCasesByDue(teamId: team.id, visibleTo: "a", limit: 10).map(\.id)
                == [cases[1], cases[4], cases[0], cases[3]].map(\.id))
        #expect(try await store.openCasesByDue(teamId: team.id, visibleTo: "a", limit: 2).map(\.id) == [cases[1], cases[4]].map(\.id))
        #expect(try await store.openCasesByDue(teamId: team.id, visibleTo: nil, limit: 4).last?.id == cases[0].id)
        #expect(
            try await store.caseCounts(teamId: team.id, visibleTo: nil, today: today)
                == CaseCounts(open: 5, overdue: 2, dueToday: 1, unassigned: 1))
        #expect(
            try await store.caseCounts(teamId: team.id, visibleTo: "a", today: today)
                == CaseCounts(open: 4, overdue: 1, dueToday: 1, unassigned: 1))
        #expect(
            try await store.caseCounts(teamId: other.id, visibleTo: "z", today: today)
                == CaseCounts(open: 0, overdue: 0, dueToday: 0, unassigned: 0))
    }

    /// The case service's notices: each stored for its user once per event key, none for an
    /// account that does not exist; how many were new.
    public static func caseNoticesAreStoredOncePerUserAndEvent(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "mobile unit", at: start)
        for name in ["amina", "cora"] {
            _ = try await store.createUser(
                NewUser(username: name, passwordHash: "h", role: name == "cora" ? .coordinator : .fieldworker, teamId: team.id), at: start)
        }
        let notices = [
            CaseNotice(
                username: "amina", type: "case_overdue", eventKey: "case-overdue:x:2027-01-01", subject: ["case": "x", "due": "2027-01-01"]),
            CaseNotice(username: "cora", type: "cases_overdue", eventKey: "cases-overdue:1:2027-01-02", subject: ["count": "3"]),
            CaseNotice(username: "nobody", type: "case_overdue", eventKey: "case-overdue:x:2027-01-01", subject: [:]),
            CaseNotice(
                username: "amina", type: "case_overdue", eventKey: "case-overdue:x:2027-01-01", subject: ["case": "x", "due": "2027-01-01"]),
        ]
        #expect(try await store.notifyAboutCases(notices, at: start) == 2)
        #expect(try await store.notifyAboutCases(notices, at: start + 60) == 0, "once per user and event")
        #expect(try await store.notifyAboutCases([], at: start) == 0)
        let amina = try #require(try await store.credentials(username: "amina")?.user)
        let told = try await store.notifications(NotificationQuery(userId: amina.id))
        #expect(told.map(\.type) == ["case_overdue"] && told.first?.subject == ["case": "x", "due": "2027-01-01"])
    }

    public static func casesAreKeptWholeAndPulledOnlyByThoseWhoFollowThem(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "mobile unit", at: start)
        let other = try await store.createTeam(name: "وحدة متنقلة", at: start)
        let cases = [
            sample(1, teamId: team.id, assignee: "a"), sample(2, teamId: team.id, assignee: "b"), sample(3, teamId: team.id, assignee: nil),
            sample(4, teamId: team.id, assignee: "a", status: .closed), sample(5, teamId: other.id, assignee: "a"),
        ]
        #expect(try await store.caseCursor(teamId: team.id) == 0)
        let written = try await store.advanceCases(
            teamId: team.id, from: 0, to: 17, reading: Set(cases.map(\.id)), at: start
        ) { current in
            #expect(current.isEmpty, "no case exists yet")
            return cases
        }
        #expect(written)
        #expect(try await store.caseCursor(teamId: team.id) == 17)
        #expect(try await store.caseCursor(teamId: other.id) == 0, "each team has its own cursor")
        for stored in cases {
            let read = try await store.storedCase(id: stored.id)
            #expect(same(read, stored), "the case is read back as written, body and all")
        }

        // A field worker's machine pulls the open cases assigned to them and the team's; not
        // another's, not a closed one, not another team's.
        let forA = try await store.openCases(teamId: team.id, visibleTo: "a", changedAfter: 0, limit: 100)
        #expect(forA.map(\.id) == [cases[0].id, cases[2].id])
        #expect(try await store.openCaseIds(teamId: team.id, visibleTo: "a") == [cases[0].id, cases[2].id])
        #expect(
            try await store.openCases(teamId: team.id, visibleTo: "b", changedAfter: 0, limit: 100).map(\.id) == [cases[1].id, cases[2].id])
        #expect(try await store.openCases(teamId: team.id, visibleTo: nil, changedAfter: 0, limit: 100).count == 3)
        #expect(try await store.teamCases(teamId: team.id, changedAfter: 0, limit: 100).count == 4)
        #expect(try await store.openCases(teamId: other.id, visibleTo: "a", changedAfter: 0, limit: 100).map(\.id) == [cases[4].id])
        // By change sequence, in pages.
        let first = try await store.openCases(teamId: team.id, visibleTo: "a", changedAfter: 0, limit: 1)
        #expect(first.map(\.id) == [cases[0].id])
        #expect(
            try await store.openCases(teamId: team.id, visibleTo: "a", changedAfter: first[0].changeSeq, limit: 1).map(\.id) == [
                cases[2].id
            ])

        // Reassigned from a to b: it leaves a's pull and ids, and comes after a's cursor for b.
        let cursorOfB = try await store.openCases(teamId: team.id, visibleTo: "b", changedAfter: 0, limit: 100).map(\.changeSeq).max()!
        let moved = try await store.changeCase(id: cases[0].id, teamId: team.id, at: start.addingTimeInterval(60)) { current in
            var next = current
            next.assignee = "b"
            return next
        }
        #expect(moved?.assignee == "b" && (moved?.changeSeq ?? 0) > cursorOfB)
        #expect(try await store.openCaseIds(teamId: team.id, visibleTo: "a") == [cases[2].id])
        #expect(try await store.openCases(teamId: team.id, visibleTo: "b", changedAfter: cursorOfB, limit: 100).map(\.id) == [cases[0].id])
        // Closed: it leaves every pull, and stays in the team's cases.
        _ = try await store.changeCase(id: cases[2].id, teamId: team.id, at: start) { current in
            var next = current
            next.status = .closed
            return next
        }
        #expect(try await store.openCaseIds(teamId: team.id, visibleTo: "a").isEmpty)
        #expect(try await store.teamCases(teamId: team.id, changedAfter: 0, limit: 100).count == 4)
        // A case no record opened is inserted once, and pulled like the others.
        var made = sample(9, teamId: team.id, assignee: nil)
        made.id = UUID.named("case-contract-made")
        #expect(try await store.insertCase(made, at: start))
        #expect(try await !store.insertCase(made, at: start), "an id is inserted once")
        #expect(try await store.openCaseIds(teamId: team.id, visibleTo: "a").contains(made.id))
        // Another team's case is not changed through this team; no change leaves it as it was.
        #expect(try await store.changeCase(id: cases[4].id, teamId: team.id, at: start) { $0 } == nil)
        let unchanged = try await store.changeCase(id: cases[1].id, teamId: team.id, at: start) { _ in nil }
        #expect(unchanged?.changeSeq == (try await store.storedCase(id: cases[1].id))?.changeSeq)
    }

    /// The cursor moves only from where it stands: a server that read the same changes as another
    /// writes nothing; every write takes the next change sequence, the case rewritten last last.
    public static func theCursorMovesOnlyFromWhereItStood(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: start)
        let one = sample(1, teamId: team.id, assignee: "a")
        #expect(try await store.advanceCases(teamId: team.id, from: 0, to: 5, reading: [], at: start) { _ in [one] })
        #expect(
            try await !store.advanceCases(teamId: team.id, from: 0, to: 9, reading: [], at: start) { _ in
                [sample(2, teamId: team.id, assignee: "a")]
            })
        #expect(try await store.storedCase(id: sample(2, teamId: team.id, assignee: "a").id) == nil, "a refused step writes nothing")
        #expect(try await store.caseCursor(teamId: team.id) == 5)
        let two = sample(2, teamId: team.id, assignee: "a")
        let wrote = try await store.advanceCases(teamId: team.id, from: 5, to: 9, reading: [one.id, two.id], at: start) { current in
            #expect(Array(current.keys) == [one.id], "the cases asked for that exist are read")
            var again = current[one.id]!
            again.properties["phq2"] = .integer(6)
            return [two, again]
        }
        #expect(wrote)
        let order = try await store.teamCases(teamId: team.id, changedAfter: 0, limit: 10)
        #expect(order.map(\.id) == [two.id, one.id], "the case rewritten last comes last")
        #expect(order[1].properties["phq2"] == .integer(6))
        #expect(order.map(\.changeSeq) == order.map(\.changeSeq).sorted() && Set(order.map(\.changeSeq)).count == 2)
    }

    /// Two servers read the same changes and try to write them at once: one writes, the other is
    /// told so and writes nothing; a reader following the change sequence sees each case once.
    public static func twoServersAdvancingAtOnceWriteOnce(_ kind: some RecordStoreFactory) async throws {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let team = try await first.createTeam(name: "mobile unit", at: start)
        for round in 0..<5 {
            let from = Int64(round * 10)
            let batch = (0..<20).map { sample(round * 100 + $0, teamId: team.id, assignee: $0 % 2 == 0 ? "a" : nil) }
            async let a = first.advanceCases(teamId: team.id, from: from, to: from + 10, reading: [], at: start) { _ in batch }
            async let b = second.advanceCases(teamId: team.id, from: from, to: from + 10, reading: [], at: start) { _ in batch }
            let (wroteA, wroteB) = try await (a, b)
            #expect(wroteA != wroteB, "exactly one server writes round \(round)")
        }
        let all = try await second.teamCases(teamId: team.id, changedAfter: 0, limit: 1000)
        #expect(all.count == 100 && Set(all.map(\.id)).count == 100)
        var cursor: Int64 = 0
        var seen: [UUID] = []
        while true {
            let page = try await first.openCases(teamId: team.id, visibleTo: "a", changedAfter: cursor, limit: 7)
            guard let last = page.last else { break }
            seen += page.map(\.id)
            cursor = last.changeSeq
        }
        #expect(seen.count == 100 && Set(seen).count == 100, "a paged pull sees each case once")
    }
}
