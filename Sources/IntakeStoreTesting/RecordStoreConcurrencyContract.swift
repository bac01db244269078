import Foundation
import IntakeCore
import IntakeService
import Synchronization
import Testing

/// What every store must keep when requests race, run as two servers would: two store
/// instances on the same data (two connection pools, or two SQLite connections).
public enum RecordStoreConcurrencyContract {
    static func pair(_ kind: some RecordStoreFactory) async throws -> (any RecordStore, any RecordStore, Team) {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        return (first, second, try await first.createTeam(name: "t", at: Date()))
    }

    public static func twoWritersPostingOneIdAtOnceGiveOneCreated(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await Self.pair(kind)
        let owner = RecordOwner(teamId: team.id, username: "u")
        for seed in 0..<20 {
            let record = RecordStoreContract.record(UInt64(100 + seed))
            // Half the rounds race the same record (duplicate), half a changed one (conflict).
            let other = seed.isMultiple(of: 2) ? record : record.with { $0.patient.externalId = "changed" }
            async let a = first.ingest([try IngestItem(record: record)], owner: owner, at: Date())
            async let b = second.ingest([try IngestItem(record: other)], owner: owner, at: Date())
            let outcomes = try await a + b
            #expect(outcomes.filter { $0 == .created(revision: 1) }.count == 1, "round \(seed): \(outcomes)")
            let expected: IngestOutcome = seed.isMultiple(of: 2) ? .duplicate(revision: 1) : .conflict(currentRevision: 1)
            #expect(outcomes.contains(expected), "round \(seed): \(outcomes)")
            #expect(try await first.revisions(of: record.id).count == 1)
        }
    }

    /// Many requests at once on two stores, which group them into shared commits: batches that
    /// overlap, and single records sent twice in one group, with the same content or changed.
    /// Each id is created once; every other send of it is a duplicate (same content) or a
    /// conflict; each stored record has one revision and a change cursor of its own.
    public static func overlappingBatchesAndRepeatsInOneGroupStoreEachRecordOnce(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await Self.pair(kind)
        let owner = RecordOwner(teamId: team.id, username: "u")
        for round in 0..<4 {
            let records = (0..<40).map { RecordStoreContract.record(UInt64(50_000 + 100 * round + $0)) }
            let outcomes = try await withThrowingTaskGroup(of: [(UUID, Bool, IngestOutcome)].self) { group in
                // Two overlapping batches, one on each store.
                for (store, slice) in [(first, records[0..<25]), (second, records[15..<40])] {
                    group.addTask {
                        let items = try slice.map { try IngestItem(record: $0) }
                        return zip(slice, try await store.ingest(items, owner: owner, at: Date())).map { ($0.id, false, $1) }
                    }
                }
                // Single records, each sent four times at once, half of them once with changed content.
                for (index, record) in records[30..<40].enumerated() {
                    for copy in 0..<4 {
                        let changed = copy == 3 && index.isMultiple(of: 2)
                        let sent = changed ? record.with { $0.patient.externalId = "changed" } : record
                        let store = copy.isMultiple(of: 2) ? first : second
                        group.addTask {
                            [(record.id, changed, try await store.ingest([try IngestItem(record: sent)], owner: owner, at: Date())[0])]
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            for record in records {
                let mine = outcomes.filter { $0.0 == record.id }
                #expect(mine.filter { $0.2 == .created(revision: 1) }.count == 1, "round \(round): \(mine.map(\.2))")
                for (_, changed, outcome) in mine where outcome != .created(revision: 1) {
                    // A changed copy is a conflict, unless it was the one created (then the others conflict with it).
                    #expect(outcome == .duplicate(revision: 1) || outcome == .conflict(currentRevision: 1), "round \(round): \(outcome)")
                    if !changed, mine.allSatisfy({ !$0.1 }) { #expect(outcome == .duplicate(revision: 1)) }
                }
                #expect(try await second.revisions(of: record.id).count == 1)
            }
        }
        let page = try await first.changes(teamId: team.id, after: 0, limit: 1000)
        #expect(page.changes.count == 160)
        #expect(Set(page.changes.map(\.cursor)).count == page.changes.count, "each stored record has a change cursor of its own")
    }

    /// Requests that share a commit keep apart when the database refuses one of them (here a
    /// team that does not exist): that request fails, the others are stored, and the audit
    /// trail has each created record once, its chain whole.
    public static func aRequestTheDatabaseRefusesFailsAloneInItsGroup(_ kind: some RecordStoreFactory) async throws {
        let (first, _, team) = try await Self.pair(kind)
        for round in 0..<3 {
            let records = (0..<12).map { RecordStoreContract.record(UInt64(70_000 + 100 * round + $0)) }
            let results = await withTaskGroup(of: (Int, Result<[IngestOutcome], any Error>).self) { group in
                for (index, record) in records.enumerated() {
                    let owner = RecordOwner(teamId: index == 5 ? team.id + 10_000 : team.id, username: "u")
                    group.addTask {
                        do {
                            return (index, .success(try await first.ingest([IngestItem(record: record)], owner: owner, at: Date())))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [Int: Result<[IngestOutcome], any Error>]()) { $0[$1.0] = $1.1 }
            }
            for (index, result) in results {
                if index == 5 {
                    #expect(throws: (any Error).self, "round \(round): the refused request fails") { try result.get() }
                    #expect(try await first.record(id: records[index].id) == nil)
                } else {
                    let outcomes = try? result.get()
                    #expect(outcomes == [.created(revision: 1)], "round \(round), request \(index)")
                }
            }
        }
        let created = try await first.auditEvents(AuditQuery(action: AuditAction.recordCreate.rawValue, limit: 1000))
        #expect(created.count == 33 && Set(created.map(\.subject)).count == 33)
        #expect(try await AuditLog(store: first).verify().isSound)
    }

    public static func failedSignInsCountedByTwoServersAtOnceAreAllCounted(_ kind: some RecordStoreFactory) async throws {
        let (first, second, _) = try await Self.pair(kind)
        _ = try await first.createUser(NewUser(username: "u", passwordHash: "h", role: .researcher, teamId: nil), at: Date())
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask { try await store.recordSignInFailure(username: "u", at: Date(), lockAfter: 25)?.count ?? 0 }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Every failure counted once: the counts seen are exactly 1…40.
        #expect(counts.sorted() == Array(1...40))
        #expect(try await second.credentials(username: "u")?.user.lockedAt != nil)
    }

    public static func twoEditsAtOneBaseRevisionGiveOneNewRevisionAndOneStale(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await Self.pair(kind)
        let record = RecordStoreContract.record(7)
        _ = try await first.ingest([try IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "u"), at: Date())
        for round in 1...10 {
            let left = try IngestItem(record: record.with { $0.patient.externalId = "L\(round)" })
            let right = try IngestItem(record: record.with { $0.patient.externalId = "R\(round)" })
            async let a = first.update(left, baseRevision: round, teamId: team.id, savedBy: "a", at: Date())
            async let b = second.update(right, baseRevision: round, teamId: team.id, savedBy: "b", at: Date())
            let outcomes = try await [a, b]
            #expect(outcomes.filter { $0 == .updated(revision: round + 1) }.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.contains(.stale(currentRevision: round + 1)), "round \(round): \(outcomes)")
        }
        #expect(try await second.revisions(of: record.id).map(\.revision) == Array(1...11))
    }

    /// A reader polling "changes after my cursor" while two writers commit: every change is
    /// seen once at most, none is skipped (each record's latest revision is seen), though the
    /// commits interleave.
    public static func aReaderFollowingTheCursorSeesEveryChangeOnce(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await Self.pair(kind)
        let owner = RecordOwner(teamId: team.id, username: "u")
        let perWriter = 150
        let done = Mutex(false)
        let writers = Task {
            defer { done.withLock { $0 = true } }
            return try await withThrowingTaskGroup(of: [UUID].self) { group in
                for (offset, store) in [first, second].enumerated() {
                    group.addTask {
                        var ids: [UUID] = []
                        for index in 0..<perWriter {
                            let record = RecordStoreContract.record(UInt64(10_000 * (offset + 1) + index))
                            _ = try await store.ingest([try IngestItem(record: record)], owner: owner, at: Date())
                            ids.append(record.id)
                            // Some records change again, which moves them past the cursor.
                            if index.isMultiple(of: 10) {
                                let edit = try IngestItem(record: record.with { $0.patient.externalId = "edited" })
                                _ = try await store.update(edit, baseRevision: 1, teamId: team.id, savedBy: "u", at: Date())
                            }
                        }
                        return ids
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }
        // Two readers: one follows the team's own cursor, the other every team's.
        var readers = [Reader(teamId: team.id), Reader(teamId: nil)]
        func poll() async throws {
            for index in readers.indices { try await readers[index].poll(first) }
        }
        var polls = 0
        while !done.withLock({ $0 }) {
            try await poll()
            polls += 1
        }
        let written = try await writers.value
        try await poll()
        #expect(polls > 1, "the reader polled while the writers wrote")
        for reader in readers {
            let scope = reader.teamId == nil ? "every team" : "the team"
            #expect(
                written.count == 2 * perWriter && Set(written) == Set(reader.latestSeen.keys), "\(scope): every committed record was seen")
            #expect(reader.changesSeen.values.allSatisfy { $0 == 1 }, "\(scope): no change was seen twice")
            for id in written {
                #expect(
                    try await second.record(id: id)?.revision == reader.latestSeen[id],
                    "\(scope): the latest change of each record was seen")
            }
        }
    }

    /// Follows a cursor, a team's or every team's, remembering what it saw.
    private struct Reader {
        let teamId: Int64?
        var cursor: Int64 = 0
        var changesSeen: [String: Int] = [:]
        var latestSeen: [UUID: Int] = [:]

        init(teamId: Int64?) { self.teamId = teamId }

        mutating func poll(_ store: any RecordStore) async throws {
            let snapshot = try await store.exportSnapshot(teamId: teamId)
            var query = ExportQuery(
                questionnaireId: RecordStoreContract.questionnaire.id, teamId: teamId, after: cursor, upTo: snapshot.cursor, limit: 37)
            while true {
                let page = try await snapshot.page(query)
                guard let last = page.last else { break }
                for row in page {
                    let id = try row.record().id
                    changesSeen["\(id) \(row.revision)", default: 0] += 1
                    latestSeen[id] = max(latestSeen[id] ?? 0, row.revision)
                }
                query.after = last.cursor
            }
            cursor = snapshot.cursor
        }
    }
}
