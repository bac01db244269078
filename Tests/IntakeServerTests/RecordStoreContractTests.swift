import Foundation
import IntakeCore
import Testing

@testable import IntakeServer

/// The behaviour every `RecordStore` must have; each implementation runs the same tests.
struct RecordStoreContractTests {
    static func stores() throws -> [any RecordStore] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("intake-contract-\(UUID().uuidString)/db.sqlite").path
        return [try SQLiteRecordStore(path: path)]
    }

    static let questionnaire = try! QuestionnaireLoader.load(
        directory: TestServer.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health"))

    static func record(_ seed: UInt64) -> PatientResponse {
        var generator = SampleGenerator(questionnaire: questionnaire, seed: seed)
        return generator.next()
    }

    @Test func ingestRecognisesDuplicatesAndConflictsWithinOneBatch() async throws {
        for store in try Self.stores() {
            let team = try await store.createTeam(name: "t", at: Date())
            let owner = RecordOwner(teamId: team.id, username: "u")
            let a = Self.record(1)
            let changed = a.with { $0.patient.externalId = "X" }
            let outcomes = try await store.ingest(
                [try IngestItem(record: a), try IngestItem(record: a), try IngestItem(record: changed)], owner: owner, at: Date())
            #expect(outcomes == [.created(revision: 1), .duplicate(revision: 1), .conflict(currentRevision: 1)])
        }
    }

    @Test func updatesAreOptimisticAndScopedToTheTeam() async throws {
        for store in try Self.stores() {
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

    @Test func exportsPageByChangeCursorWithinTeamAndQuestionnaire() async throws {
        for store in try Self.stores() {
            let team = try await store.createTeam(name: "t", at: Date())
            let other = try await store.createTeam(name: "o", at: Date())
            #expect(try await store.exportSnapshot().cursor == 0)
            let records = (1...5).map { Self.record(UInt64($0)) }
            _ = try await store.ingest(
                try records.prefix(4).map(IngestItem.init), owner: RecordOwner(teamId: team.id, username: "u"), at: Date())
            _ = try await store.ingest(
                [try IngestItem(record: records[4])], owner: RecordOwner(teamId: other.id, username: "v"), at: Date())
            let snapshot = try await store.exportSnapshot()
            let cursor = snapshot.cursor
            let id = Self.questionnaire.id
            var query = ExportQuery(questionnaireId: id, teamId: team.id, after: 0, upTo: cursor, limit: 3)
            #expect(try await snapshot.count(query) == 4)
            let first = try await snapshot.page(query)
            #expect(try first.map { try $0.record().id } == records.prefix(3).map(\.id))

            // An edit while the export runs: the snapshot keeps the record as it was, so the count holds.
            let edit = try IngestItem(record: records[3].with { $0.patient.externalId = "E" })
            #expect(try await store.update(edit, baseRevision: 1, teamId: team.id, savedBy: "u", at: Date()) == .updated(revision: 2))
            query.after = first.last!.cursor
            let rest = try await snapshot.page(query)
            #expect(try rest.map { try $0.record().id } == [records[3].id] && rest.map(\.revision) == [1])
            #expect(try rest.first?.record().patient.externalId != "E")
            #expect(try await snapshot.count(ExportQuery(questionnaireId: id, teamId: nil, after: 0, upTo: cursor)) == 5)
            #expect(try await snapshot.count(ExportQuery(questionnaireId: "other", teamId: nil, after: 0, upTo: cursor)) == 0)

            // The next export starts after the cursor and finds the edit, with its new revision.
            let next = try await store.exportSnapshot()
            let changed = try await next.page(ExportQuery(questionnaireId: id, teamId: nil, after: cursor, upTo: next.cursor))
            #expect(try changed.map { try $0.record().id } == [records[3].id] && changed.map(\.revision) == [2])
            #expect(try changed.first?.record().patient.externalId == "E")
            let future = ExportQuery(
                questionnaireId: id, teamId: nil, after: 0, upTo: next.cursor, changedSince: Date().addingTimeInterval(3600))
            #expect(try await next.count(future) == 0)
        }
    }

    @Test func secretsAreMadeOnceAndKept() async throws {
        for store in try Self.stores() {
            let secret = try await store.secret(named: "patient-key")
            #expect(secret.count == 32)
            #expect(try await store.secret(named: "patient-key") == secret)
            #expect(try await store.secret(named: "other") != secret)
        }
    }

    @Test func lookupIsScopedRankedAndEscapesWildcards() async throws {
        for store in try Self.stores() {
            let team = try await store.createTeam(name: "t", at: Date())
            let owner = RecordOwner(teamId: team.id, username: "u")
            let names = ["Müller", "Mullerova", "Al_Muller", "100%"]
            for (seed, name) in names.enumerated() {
                _ = try await store.ingest(
                    [try IngestItem(record: Self.record(UInt64(seed)).with { $0.patient.familyName = name })], owner: owner, at: Date())
            }
            let found = try await store.lookup(LookupQuery(teamId: team.id, familyName: "muller"))
            #expect(found.map(\.patient.familyName) == ["Müller", "Mullerova", "Al_Muller"])
            #expect(try await store.lookup(LookupQuery(teamId: team.id, familyName: "_")).map(\.patient.familyName) == ["Al_Muller"])
            #expect(try await store.lookup(LookupQuery(teamId: team.id, familyName: "%")).map(\.patient.familyName) == ["100%"])
            #expect(try await store.lookup(LookupQuery(teamId: team.id + 1, familyName: "muller")).isEmpty)
        }
    }

    @Test func tokensExpireAndDisabledUsersLoseAccess() async throws {
        for store in try Self.stores() {
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

    @Test func publishingTheSameVersionTwiceIsANoOp() async throws {
        for store in try Self.stores() {
            let q = PublishedQuestionnaire(
                id: "q", version: "v", title: "Q", questionCount: 1, files: ["1-a.txt": "A"], lists: [:], publishedAt: Date())
            #expect(try await store.publish(q))
            #expect(try await !store.publish(q))
            #expect(try await store.questionnaire(id: "q", version: "v")?.files == ["1-a.txt": "A"])
        }
    }
}

extension ExportedRecord {
    /// The record its bytes hold.
    func record() throws -> PatientResponse { try RecordCodec.decode(body) }
}
