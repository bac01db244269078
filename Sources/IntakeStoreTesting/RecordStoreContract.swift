import Foundation
import IntakeCore
import IntakeService
import Testing

/// The behaviour every `RecordStore` must have, the same for every store.
///
/// Each requirement is a function a store's tests call with that store's ``RecordStoreFactory``
/// (one `@Test` per requirement, parameterized over the stores), so a failing expectation is
/// reported against the requirement and the store.
public enum RecordStoreContract {
    /// The bundled questionnaire, found from this package's folder; records come from its sample generator.
    public static let questionnaire: Questionnaire = {
        let catalog = QuestionnaireCatalog(searchPath: QuestionnaireCatalog.upward(from: URL(fileURLWithPath: #filePath)))
        do {
            return try QuestionnaireLoader.load(directory: try catalog.folder(for: nil))
        } catch {
            fatalError("the store contract needs the bundled questionnaire: \(error)")
        }
    }()

    /// A valid record of ``questionnaire``; the same seed gives the same record.
    public static func record(_ seed: UInt64) -> PatientResponse {
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed)
        return generator.next()
    }

    public static func ingestRecognisesDuplicatesAndConflictsWithinOneBatch(_ kind: some RecordStoreFactory) async throws {
        do {
            let store = try await kind.open()
            let team = try await store.createTeam(name: "t", at: Date())
            let owner = RecordOwner(teamId: team.id, username: "u")
            let a = Self.record(1)
            let changed = a.with { $0.patient.externalId = "X" }
            let outcomes = try await store.ingest(
                [try IngestItem(record: a), try IngestItem(record: a), try IngestItem(record: changed)], owner: owner, at: Date())
            #expect(outcomes == [.created(revision: 1), .duplicate(revision: 1), .conflict(currentRevision: 1)])
        }
    }

    /// A group of records raising alerts tells each coordinator of the records' team of each
    /// alert once, in the records' order and each record's alerts' order; a record sent again,
    /// the team's other members and another team's coordinators hear nothing.
    public static func aGroupsAlertsReachEveryCoordinatorOnceInOrder(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: Date())
        let other = try await store.createTeam(name: "o", at: Date())
        var people: [String: Int64] = [:]
        for (name, role, teamId) in [
            ("lead", Role.coordinator, team.id), ("second", .coordinator, team.id), ("ana", .fieldworker, team.id),
            ("elsewhere", .coordinator, other.id),
        ] {
            people[name] = try await store.createUser(NewUser(username: name, passwordHash: "h", role: role, teamId: teamId), at: Date()).id
        }
        let owner = RecordOwner(teamId: team.id, username: "ana")
        func item(_ seed: UInt64, alerts: [String]) throws -> IngestItem {
            var item = try IngestItem(record: Self.record(seed))
            item.alerts = alerts
            return item
        }
        let items = [try item(61, alerts: ["2", "1"]), try item(62, alerts: []), try item(63, alerts: ["1"])]
        #expect(try await store.ingest(items, owner: owner, at: Date()) == Array(repeating: .created(revision: 1), count: 3))
        // Sent again (a flush that was not answered): no second notification.
        #expect(try await store.ingest([items[0]], owner: owner, at: Date()) == [.duplicate(revision: 1)])
        let expected = [(items[0], "2"), (items[0], "1"), (items[2], "1")].map { item, alert in
            RecordAlert.subject(record: item.record, alert: alert, teamId: team.id)
        }
        for name in ["lead", "second"] {
            let heard = try await store.notifications(NotificationQuery(userId: people[name]!, types: [NotificationType.recordAlert]))
            #expect(heard.map(\.subject) == expected, "\(name)")
            #expect(heard.map(\.id) == heard.map(\.id).sorted())
        }
        for name in ["ana", "elsewhere"] {
            #expect(try await store.notifications(NotificationQuery(userId: people[name]!)).isEmpty, "\(name)")
        }
    }

    public static func anIdOfAnotherTeamsRecordIsTakenWhateverTheContent(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: Date())
        let other = try await store.createTeam(name: "o", at: Date())
        let a = Self.record(2)
        _ = try await store.ingest([try IngestItem(record: a)], owner: RecordOwner(teamId: team.id, username: "u"), at: Date())
        let stranger = RecordOwner(teamId: other.id, username: "v")
        let changed = a.with { $0.patient.externalId = "X" }
        // The same content and other content answer alike: nothing tells what the record holds.
        let outcomes = try await store.ingest([try IngestItem(record: a), try IngestItem(record: changed)], owner: stranger, at: Date())
        #expect(outcomes == [.taken, .taken])
        #expect(try await store.revisions(of: a.id).count == 1)
        #expect(try await store.record(id: a.id)?.teamId == team.id)
    }

    public static func updatesAreOptimisticAndScopedToTheTeam(_ kind: some RecordStoreFactory) async throws {
        do {
            let store = try await kind.open()
            let team = try await store.createTeam(name: "t", at: Date())
            let other = try await store.createTeam(name: "o", at: Date())
            let a = Self.record(1)
            _ = try await store.ingest([try IngestItem(record: a)], owner: RecordOwner(teamId: team.id, username: "u"), at: Date())
            let edit = try IngestItem(record: a.with { $0.patient.externalId = "E" })
            #expect(try await store.update(edit, baseRevision: 1, teamId: other.id, savedBy: "x", at: Date()) == .notFound)
            #expect(try await store.update(edit, baseRevision: 1, teamId: team.id, savedBy: "u", at: Date()) == .updated(revision: 2))
            #expect(try await store.update(edit, baseRevision: 1, teamId: team.id, savedBy: "u", at: Date()) == .stale(currentRevision: 2))
            #expect(try await store.revisions(of: a.id).map(\.revision) == [1, 2])
            #expect(try await store.record(id: a.id)?.record.patient.externalId == "E")
        }
    }

    /// Each revision gives back the body it was saved with, the current one and every past one,
    /// however the bodies are kept; a record sent again with the content of any of its revisions
    /// is known as a duplicate, and a refused edit moves nothing. Two edits from one base at
    /// once: one is saved, the other is stale, and the history is whole.
    public static func everyRevisionKeepsItsBody(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        let a = Self.record(7)
        let first = a.with { $0.patient.externalId = "E1" }, second = a.with { $0.patient.externalId = "E2" }
        #expect(try await store.ingest([try IngestItem(record: a)], owner: owner, at: Date()) == [.created(revision: 1)])
        #expect(try await store.revisions(of: a.id).map(\.record) == [a])
        #expect(
            try await store.update(IngestItem(record: first), baseRevision: 1, teamId: team.id, savedBy: "u", at: Date())
                == .updated(revision: 2))
        #expect(
            try await store.update(IngestItem(record: a), baseRevision: 1, teamId: team.id, savedBy: "u", at: Date())
                == .stale(currentRevision: 2))
        #expect(
            try await store.update(IngestItem(record: second), baseRevision: 2, teamId: team.id, savedBy: "v", at: Date())
                == .updated(revision: 3))
        #expect(try await store.revisions(of: a.id).map(\.record) == [a, first, second])
        #expect(try await store.record(id: a.id)?.record == second)
        for (sent, outcome) in [
            (a, IngestOutcome.duplicate(revision: 3)), (first, .duplicate(revision: 3)), (second, .duplicate(revision: 3)),
        ] {
            #expect(try await store.ingest([try IngestItem(record: sent)], owner: owner, at: Date()) == [outcome])
        }
        #expect(
            try await store.ingest([try IngestItem(record: a.with { $0.patient.externalId = "E9" })], owner: owner, at: Date()) == [
                .conflict(currentRevision: 3)
            ])

        let b = Self.record(8)
        _ = try await store.ingest([try IngestItem(record: b)], owner: owner, at: Date())
        let edits = [b.with { $0.patient.externalId = "X" }, b.with { $0.patient.externalId = "Y" }]
        let outcomes = try await withThrowingTaskGroup(of: (Int, UpdateOutcome).self) { group in
            for (n, edit) in edits.enumerated() {
                group.addTask {
                    (n, try await store.update(IngestItem(record: edit), baseRevision: 1, teamId: team.id, savedBy: "u", at: Date()))
                }
            }
            return try await group.reduce(into: [Int: UpdateOutcome]()) { $0[$1.0] = $1.1 }
        }
        let saved = try #require(outcomes.first { $0.value == .updated(revision: 2) }?.key)
        #expect(outcomes[1 - saved] == .stale(currentRevision: 2))
        #expect(try await store.revisions(of: b.id).map(\.record) == [b, edits[saved]])
        #expect(try await store.record(id: b.id)?.record == edits[saved])
    }

    /// An export asked for some records by id holds those (of its team and questionnaire) and no other.
    public static func exportsFilterByRecordId(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: Date())
        let other = try await store.createTeam(name: "o", at: Date())
        let records = (1...4).map { Self.record(UInt64(60 + $0)) }
        _ = try await store.ingest(
            try records.prefix(3).map(IngestItem.init), owner: RecordOwner(teamId: team.id, username: "u"), at: Date())
        _ = try await store.ingest([try IngestItem(record: records[3])], owner: RecordOwner(teamId: other.id, username: "v"), at: Date())
        let snapshot = try await store.exportSnapshot(teamId: team.id)
        var query = ExportQuery(questionnaireId: Self.questionnaire.id, teamId: team.id, after: 0, upTo: snapshot.cursor)
        query.recordIds = [records[1].id, records[3].id, UUID()]
        #expect(try await snapshot.count(query) == 1, "the team's one; another team's and an unknown id are not")
        #expect(try await snapshot.page(query).map { try $0.record().id } == [records[1].id])
        query.recordIds = [records[0].id, records[2].id]
        #expect(Set(try await snapshot.page(query).map { try $0.record().id }) == [records[0].id, records[2].id])
    }

    public static func exportsPageByChangeCursorWithinTeamAndQuestionnaire(_ kind: some RecordStoreFactory) async throws {
        do {
            let store = try await kind.open()
            let team = try await store.createTeam(name: "t", at: Date())
            let other = try await store.createTeam(name: "o", at: Date())
            #expect(try await store.exportSnapshot(teamId: nil).cursor == 0)
            #expect(try await store.exportSnapshot(teamId: team.id).cursor == 0)
            let records = (1...5).map { Self.record(UInt64($0)) }
            _ = try await store.ingest(
                try records.prefix(4).map(IngestItem.init), owner: RecordOwner(teamId: team.id, username: "u"), at: Date())
            _ = try await store.ingest(
                [try IngestItem(record: records[4])], owner: RecordOwner(teamId: other.id, username: "v"), at: Date())
            let snapshot = try await store.exportSnapshot(teamId: team.id)
            let cursor = snapshot.cursor
            #expect(cursor == 4, "a team's cursor counts that team's changes alone")
            let id = Self.questionnaire.id
            var query = ExportQuery(questionnaireId: id, teamId: team.id, after: 0, upTo: cursor, limit: 3)
            #expect(try await snapshot.count(query) == 4)
            let first = try await snapshot.page(query)
            #expect(try first.map { try $0.record().id } == records.prefix(3).map(\.id))
            #expect(first.map(\.cursor) == [1, 2, 3])

            // An edit while the export runs: the snapshot keeps the record as it was, so the count holds.
            let edit = try IngestItem(record: records[3].with { $0.patient.externalId = "E" })
            #expect(try await store.update(edit, baseRevision: 1, teamId: team.id, savedBy: "u", at: Date()) == .updated(revision: 2))
            query.after = first.last!.cursor
            let rest = try await snapshot.page(query)
            #expect(try rest.map { try $0.record().id } == [records[3].id] && rest.map(\.revision) == [1])
            #expect(try rest.first?.record().patient.externalId != "E")
            let everyTeam = try await store.exportSnapshot(teamId: nil)
            #expect(everyTeam.cursor == 6)
            #expect(try await everyTeam.count(ExportQuery(questionnaireId: id, teamId: nil, after: 0, upTo: everyTeam.cursor)) == 5)
            #expect(try await everyTeam.count(ExportQuery(questionnaireId: "other", teamId: nil, after: 0, upTo: everyTeam.cursor)) == 0)

            // Another team's work moves nothing in this team's cursors: the next change is 5, whatever the others did.
            _ = try await store.ingest(
                try (6...9).map { try IngestItem(record: Self.record(UInt64($0))) }, owner: RecordOwner(teamId: other.id, username: "v"),
                at: Date())
            #expect(try await store.exportSnapshot(teamId: other.id).cursor == 5)
            let next = try await store.exportSnapshot(teamId: team.id)
            #expect(next.cursor == 5)
            let changed = try await next.page(ExportQuery(questionnaireId: id, teamId: team.id, after: cursor, upTo: next.cursor))
            #expect(try changed.map { try $0.record().id } == [records[3].id] && changed.map(\.revision) == [2])
            #expect(changed.map(\.cursor) == [5])
            #expect(try changed.first?.record().patient.externalId == "E")
            let future = ExportQuery(
                questionnaireId: id, teamId: team.id, after: 0, upTo: next.cursor, changedSince: Date().addingTimeInterval(3600))
            #expect(try await next.count(future) == 0)
        }
    }

    public static func secretsAreMadeOnceAndKept(_ kind: some RecordStoreFactory) async throws {
        do {
            let store = try await kind.open()
            let secret = try await store.secret(named: "patient-key")
            #expect(secret.count == 32)
            #expect(try await store.secret(named: "patient-key") == secret)
            #expect(try await store.secret(named: "other") != secret)
        }
    }

    public static func lookupIsScopedRankedAndEscapesWildcards(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        let names = ["Müller", "Mullerova", "Al_Muller", "100%"]
        var records: [PatientResponse] = []
        for (seed, name) in names.enumerated() {
            let record = Self.record(UInt64(seed)).with {
                $0.patient.familyName = name
                $0.patient.externalId = "Case-\(seed)"
            }
            records.append(record)
            _ = try await store.ingest([try IngestItem(record: record)], owner: owner, at: Date(timeIntervalSince1970: Double(1000 + seed)))
        }
        func family(_ text: String, team: Int64? = nil) async throws -> [String] {
            try await store.lookup(LookupQuery(teamId: team ?? owner.teamId, familyName: text)).map(\.patient.familyName)
        }
        // Exact, then prefix, then substring; accents and case do not matter.
        #expect(try await family("MULLER") == ["Müller", "Mullerova", "Al_Muller"])
        #expect(try await store.lookup(LookupQuery(teamId: team.id, familyName: "muller")).map(\.score) == [40, 25, 10])
        // Wildcards of SQL are plain letters.
        #expect(try await family("l_m") == ["Al_Muller"])
        #expect(try await family("00%") == ["100%"])
        // One or two letters match at the start of a name only (a trigram index needs three);
        // equal scores put the most recently changed first.
        #expect(try await family("mu") == ["Mullerova", "Müller"])
        #expect(try await family("zzq").isEmpty)
        #expect(try await family("muller", team: team.id + 1).isEmpty)
        // Date of birth and external id by equality (the id in any case), added to a name's score.
        let birth = try #require(records[1].patient.dateOfBirth)
        let both = try await store.lookup(LookupQuery(teamId: team.id, familyName: "mul", dateOfBirth: birth))
        #expect(both.first?.patient.familyName == "Mullerova")
        #expect(try await store.lookup(LookupQuery(teamId: team.id, externalId: " case-3 ")).map(\.patient.familyName) == ["100%"])
        // An edit is found by its new name, and no longer by the old one.
        let renamed = try IngestItem(record: records[0].with { $0.patient.familyName = "Okafor" })
        #expect(try await store.update(renamed, baseRevision: 1, teamId: team.id, savedBy: "u", at: Date()) == .updated(revision: 2))
        #expect(try await family("okafor") == ["Okafor"])
        #expect(try await store.lookup(LookupQuery(teamId: team.id, familyName: "okafor")).first?.revision == 2)
        #expect(try await family("muller") == ["Mullerova", "Al_Muller"])
        // Paging: limit and offset over the ranking.
        let page = try await store.lookup(LookupQuery(teamId: team.id, familyName: "mul", limit: 1, offset: 1))
        #expect(page.map(\.patient.familyName) == ["Al_Muller"])
    }

    /// Arabic names are found whichever variant of a letter was typed (hamza on alef or not,
    /// teh marbuta or heh, alef maksura or yeh), with or without harakat and tatweel.
    public static func lookupFindsArabicNamesWhicheverLetterVariantIsTyped(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "u")
        let people = [("فاطمة", "الأحمد"), ("مُوسى", "ابراهيم"), ("Amina", "Haddad")]
        for (seed, (given, family)) in people.enumerated() {
            let record = Self.record(UInt64(700 + seed)).with {
                $0.patient.givenName = given
                $0.patient.familyName = family
            }
            _ = try await store.ingest([try IngestItem(record: record)], owner: owner, at: Date(timeIntervalSince1970: Double(1000 + seed)))
        }
        func found(family: String? = nil, given: String? = nil) async throws -> [String] {
            let matches = try await store.lookup(LookupQuery(teamId: team.id, givenName: given, familyName: family))
            return matches.map { "\($0.patient.familyName) \($0.score)" }
        }
        #expect(try await found(family: "الاحمد") == ["الأحمد 40"], "alef for alef with hamza, an exact match")
        #expect(try await found(family: "الأحمد") == ["الأحمد 40"])
        #expect(try await found(family: "إبراهيم") == ["ابراهيم 40"], "alef with hamza below for alef")
        #expect(try await found(family: "الـأحـ") == ["الأحمد 25"], "tatweel left out: a prefix")
        #expect(try await found(family: "حمد") == ["الأحمد 10"], "a substring")
        #expect(try await found(given: "فاطمه") == ["الأحمد 30"], "heh for teh marbuta")
        #expect(try await found(given: "موسي") == ["ابراهيم 30"], "yeh for alef maksura, without the damma")
        #expect(try await found(family: "haddad") == ["Haddad 40"])
    }

    public static func tokensExpireAndDisabledUsersLoseAccess(_ kind: some RecordStoreFactory) async throws {
        do {
            let store = try await kind.open()
            let user = try await store.createUser(NewUser(username: "u", passwordHash: "h", role: .researcher, teamId: nil), at: Date())
            try await store.createToken(NewToken(userId: user.id, hash: "live", name: "n", expiresAt: nil), at: Date())
            try await store.createToken(
                NewToken(userId: user.id, hash: "old", name: "n", expiresAt: Date().addingTimeInterval(-1)), at: Date())
            #expect(try await store.user(tokenHash: "live", now: Date())?.username == "u")
            #expect(try await store.user(tokenHash: "old", now: Date()) == nil)
            _ = try await store.updateUser(username: "u", UserChange(disabled: true))
            #expect(try await store.user(tokenHash: "live", now: Date()) == nil)
            await #expect(throws: RecordStoreError.self) {
                _ = try await store.createUser(NewUser(username: "u", passwordHash: "h", role: .admin, teamId: nil), at: Date())
            }
        }
    }

    public static func failedSignInsAreCountedAndLockTheAccountUntilUnlocked(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        _ = try await store.createUser(NewUser(username: "u", passwordHash: "h", role: .fieldworker, teamId: nil), at: Date())
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try await store.recordSignInFailure(username: "nobody", at: start, lockAfter: 3) == nil)
        #expect(try await store.recordSignInFailure(username: "u", at: start, lockAfter: 3) == SignInFailures(count: 1, lockedAt: nil))
        #expect(try await store.recordSignInFailure(username: "u", at: start + 5, lockAfter: 3) == SignInFailures(count: 2, lockedAt: nil))
        var credentials = try #require(try await store.credentials(username: "u"))
        #expect(credentials.failedSignIns == 2 && credentials.lastFailedSignInAt == start + 5 && credentials.user.lockedAt == nil)
        // A success forgets the count; failing again starts from one.
        try await store.clearSignInFailures(username: "u")
        #expect(try await store.credentials(username: "u")?.failedSignIns == 0)
        for offset in 0..<3 { _ = try await store.recordSignInFailure(username: "u", at: start + Double(10 + offset), lockAfter: 3) }
        credentials = try #require(try await store.credentials(username: "u"))
        #expect(credentials.failedSignIns == 3 && credentials.user.lockedAt == start + 12)
        // The lock keeps its time; a success does not lift it, an unlock does.
        #expect(try await store.recordSignInFailure(username: "u", at: start + 20, lockAfter: 3)?.lockedAt == start + 12)
        try await store.clearSignInFailures(username: "u")
        #expect(try await store.users().first?.lockedAt == start + 12)
        let unlocked = try await store.updateUser(username: "u", UserChange(unlock: true))
        #expect(unlocked?.lockedAt == nil)
        #expect(try await store.credentials(username: "u")?.failedSignIns == 0)
    }

    public static func publishingTheSameVersionTwiceIsANoOp(_ kind: some RecordStoreFactory) async throws {
        do {
            let store = try await kind.open()
            let q = PublishedQuestionnaire(
                id: "q", version: "v", title: "Q", questionCount: 1, files: ["1-a.txt": "A"], lists: [:], publishedAt: Date())
            #expect(try await store.publish(q))
            #expect(try await !store.publish(q))
            #expect(try await store.questionnaire(id: "q", version: "v")?.files == ["1-a.txt": "A"])
        }
    }

    public static func teamsAndUsersAreUniqueByNameAndListedInOrder(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        try await store.checkHealth()
        #expect(try await store.userCount() == 0)
        #expect(try await store.teams().isEmpty)
        #expect(try await store.users().isEmpty)
        let b = try await store.createTeam(name: "b", at: Date(timeIntervalSince1970: 10))
        let a = try await store.createTeam(name: "a", at: Date(timeIntervalSince1970: 20))
        await #expect(throws: RecordStoreError.alreadyExists("team 'a'")) { _ = try await store.createTeam(name: "a", at: Date()) }
        #expect(try await store.teams().map(\.name) == ["a", "b"])
        #expect(try await store.team(named: "b") == b)
        #expect(try await store.team(named: "c") == nil)
        #expect(a.createdAt == Date(timeIntervalSince1970: 20))

        let zoe = try await store.createUser(NewUser(username: "zoe", passwordHash: "h1", role: .coordinator, teamId: a.id), at: Date())
        _ = try await store.createUser(NewUser(username: "amir", passwordHash: "h2", role: .fieldworker, teamId: nil), at: Date())
        #expect(zoe.teamName == "a" && zoe.role == .coordinator && !zoe.disabled)
        #expect(try await store.users().map(\.username) == ["amir", "zoe"])
        #expect(try await store.userCount() == 2)
        #expect(try await store.credentials(username: "zoe")?.passwordHash == "h1")
        #expect(try await store.credentials(username: "nobody") == nil)

        let moved = try await store.updateUser(username: "amir", UserChange(role: .researcher, teamId: .some(b.id), passwordHash: "h3"))
        #expect(moved?.role == .researcher && moved?.teamId == b.id && moved?.teamName == "b")
        #expect(try await store.credentials(username: "amir")?.passwordHash == "h3")
        let unassigned = try await store.updateUser(username: "amir", UserChange(teamId: .some(nil)))
        #expect(unassigned?.teamId == nil)
        #expect(try await store.updateUser(username: "nobody", UserChange(disabled: true)) == nil)
        #expect(try await store.credentials(username: "amir")?.user.language == nil)
        #expect(try await store.updateUser(username: "amir", UserChange(language: "ar"))?.language == "ar")
        #expect(try await store.credentials(username: "amir")?.user.language == "ar", "kept")

        try await store.createToken(NewToken(userId: zoe.id, hash: "t1", name: "laptop", expiresAt: nil), at: Date())
        #expect(try await store.user(tokenHash: "t1", now: Date())?.id == zoe.id)
        try await store.revokeToken(hash: "t1")
        #expect(try await store.user(tokenHash: "t1", now: Date()) == nil)

        // Sign-out everywhere: every session of the user, no other token, nobody else's session.
        let amir = try #require(try await store.credentials(username: "amir")?.user)
        for (hash, name, user) in [
            ("s1", "session", zoe.id), ("s2", "session", zoe.id), ("script", "nightly export", zoe.id), ("s3", "session", amir.id),
        ] {
            try await store.createToken(NewToken(userId: user, hash: hash, name: name, expiresAt: nil), at: Date())
        }
        #expect(try await store.revokeSessions(userId: zoe.id) == 2)
        #expect(try await store.user(tokenHash: "s1", now: Date()) == nil)
        #expect(try await store.user(tokenHash: "s2", now: Date()) == nil)
        #expect(try await store.user(tokenHash: "script", now: Date())?.id == zoe.id)
        #expect(try await store.user(tokenHash: "s3", now: Date())?.id == amir.id)
        #expect(try await store.revokeSessions(userId: zoe.id) == 0)

        // Listed by the start of their hash, the newest first; revoked one by one, only the user's own.
        let older = String(repeating: "a", count: 64), newer = String(repeating: "b", count: 64)
        let expiry = Date(timeIntervalSince1970: 1_900_000_000)
        try await store.createToken(
            NewToken(userId: amir.id, hash: older, name: "tablet", expiresAt: expiry), at: Date(timeIntervalSince1970: 1_800_000_000))
        try await store.createToken(
            NewToken(userId: amir.id, hash: newer, name: "nightly", expiresAt: nil), at: Date(timeIntervalSince1970: 1_800_000_100))
        let listed = try await store.tokens(userId: amir.id)
        #expect(
            listed.prefix(2) == [
                TokenSummary(
                    id: String(newer.prefix(12)), name: "nightly", createdAt: Date(timeIntervalSince1970: 1_800_000_100), expiresAt: nil),
                TokenSummary(
                    id: String(older.prefix(12)), name: "tablet", createdAt: Date(timeIntervalSince1970: 1_800_000_000), expiresAt: expiry),
            ], "\(listed)")
        #expect(try await store.revokeToken(userId: zoe.id, id: String(older.prefix(12))) == false, "not another user's")
        #expect(try await store.revokeToken(userId: amir.id, id: String(older.prefix(12))))
        #expect(try await store.user(tokenHash: older, now: Date()) == nil)
        #expect(try await store.user(tokenHash: newer, now: Date())?.id == amir.id)
        #expect(try await store.revokeToken(userId: amir.id, id: String(older.prefix(12))) == false, "once")
    }

    public static func questionnairesAreListedNewestFirst(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        for (version, time) in [("v1", 10.0), ("v2", 30.0), ("v0", 20.0)] {
            let q = PublishedQuestionnaire(
                id: "q", version: version, title: "Q \(version)", questionCount: 2, files: ["1-a.txt": version],
                lists: ["l.txt": "x"], publishedAt: Date(timeIntervalSince1970: time))
            #expect(try await store.publish(q))
        }
        let listed = try await store.questionnaires()
        #expect(listed.map(\.version) == ["v2", "v0", "v1"])
        #expect(
            listed.first
                == PublishedQuestionnaire(
                    id: "q", version: "v2", title: "Q v2", questionCount: 2, files: ["1-a.txt": "v2"], lists: ["l.txt": "x"],
                    publishedAt: Date(timeIntervalSince1970: 30)))
        #expect(try await store.questionnaire(id: "q", version: "v9") == nil)
    }

    /// A version's state is kept with it, and changes only from the state the caller saw, with
    /// its audit event: of two changes racing from one state, one wins.
    public static func aQuestionnaireStateChangesOnlyFromTheStateSeen(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let drafted = Date(timeIntervalSince1970: 100)
        let q = PublishedQuestionnaire(
            id: "q", version: "v1", title: "Q", questionCount: 1, files: ["1-a.txt": "x"], lists: [:], publishedAt: drafted,
            status: QuestionnaireStatus(state: .draft, changedAt: drafted, changedBy: "cora"))
        #expect(try await store.publish(q))
        #expect(try await store.questionnaire(id: "q", version: "v1")?.status == q.status)
        #expect(try await store.questionnaireStatus(id: "q", version: "v1") == q.status)
        #expect(try await store.questionnaireStatus(id: "q", version: "v9") == nil)

        let later = Date(timeIntervalSince1970: 200)
        async let first = store.changeQuestionnaireState(id: "q", version: "v1", from: .draft, to: .published, by: "cora", at: later)
        async let second = store.changeQuestionnaireState(id: "q", version: "v1", from: .draft, to: .published, by: "dana", at: later)
        let results = try await [first, second]
        #expect(results.filter { $0 }.count == 1, "one of two changes from the same state wins: \(results)")
        let now = try #require(try await store.questionnaireStatus(id: "q", version: "v1"))
        #expect(now.state == .published && now.changedAt == later && ["cora", "dana"].contains(now.changedBy ?? ""))
        #expect(
            try await store.changeQuestionnaireState(id: "q", version: "v9", from: .published, to: .closed, by: "cora", at: later) == false)
        #expect(try await store.changeQuestionnaireState(id: "q", version: "v1", from: .published, to: .retired, by: "cora", at: later))
        #expect(try await store.questionnaires().first?.status.state == .retired)
        let audited = try await store.auditEvents(AuditQuery(action: "questionnaire.state"))
        #expect(audited.map { $0.details["to"] ?? "" } == ["published", "retired"] && audited.allSatisfy { $0.subject == "q@v1" })
    }

    public static func aRecordKeepsWhoSentItAndWhen(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await store.createTeam(name: "t", at: Date())
        let a = Self.record(5)
        let received = Date(timeIntervalSince1970: 1_800_000_000.25)
        _ = try await store.ingest([try IngestItem(record: a)], owner: RecordOwner(teamId: team.id, username: "amir"), at: received)
        let stored = try #require(try await store.record(id: a.id))
        #expect(stored.record == a && stored.revision == 1 && stored.teamId == team.id && stored.receivedBy == "amir")
        #expect(stored.receivedAt == received && stored.updatedAt == received)
        #expect(try await store.record(id: UUID()) == nil)
        let revisions = try await store.revisions(of: a.id)
        #expect(revisions.map(\.savedBy) == ["amir"] && revisions.first?.record == a && revisions.first?.savedAt == received)
    }
}

extension ExportedRecord {
    /// The record its bytes hold.
    public func record() throws -> PatientResponse { try RecordCodec.decode(body) }
}

extension PatientResponse {
    /// A copy changed by `change`, for building test records as constants.
    public func with(_ change: (inout PatientResponse) -> Void) -> PatientResponse {
        var copy = self
        change(&copy)
        return copy
    }
}
