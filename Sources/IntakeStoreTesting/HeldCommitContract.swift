import Foundation
import IntakeCore
import IntakeService
import Testing

/// Two servers on one database while one server's group commit is held open before its
/// `COMMIT`: what the other server's ingest does meanwhile (PostgreSQL: commits; SQLite, one
/// writer at a time: waits, then commits), and that no reader passes the change held open.
public enum HeldCommitContract {
    static func waitUntil(seconds: Double, _ condition: () async -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return await condition()
    }

    public static func aGroupHeldOpenBeforeItsCommitIsNeverPassedAndHoldsNoIngestBackWhereWritersNeedNotTakeTurns(
        _ kind: some RecordStoreFactory
    ) async throws {
        let database = try kind.newDatabase()
        let opened = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        let first = try #require(opened as? any GroupCommitHolding & RecordStore)
        let team = try await first.createTeam(name: "mobile unit", at: Date())
        let other = try await first.createTeam(name: "وحدة متنقلة", at: Date())
        let owner = RecordOwner(teamId: team.id, username: "a")
        // A change already committed, which every reader may see throughout.
        let before = RecordStoreContract.record(1)
        _ = try await second.ingest([try IngestItem(record: before)], owner: owner, at: Date())

        // The first server's group stops before its COMMIT, its transaction open.
        let hold = CommitHold()
        // Whatever fails below, the held transaction ends.
        defer { hold.release() }
        first.holdGroupCommits(at: hold)
        let heldRecord = RecordStoreContract.record(2)
        let heldIngest = Task { try await first.ingest([try IngestItem(record: heldRecord)], owner: owner, at: Date()) }
        #expect(await waitUntil(seconds: 20) { hold.isReached }, "the first server's group reached its commit")

        // The second server sends the same team's records, and another team's.
        func send() -> Task<[IngestOutcome], any Error> {
            Task {
                var outcomes: [IngestOutcome] = []
                for seed in 3..<8 {
                    outcomes += try await second.ingest(
                        [try IngestItem(record: RecordStoreContract.record(UInt64(seed)))], owner: owner, at: Date())
                }
                outcomes += try await second.ingest(
                    [try IngestItem(record: RecordStoreContract.record(9))], owner: RecordOwner(teamId: other.id, username: "b"), at: Date()
                )
                return outcomes
            }
        }
        // Readers stop below the change held open: the record committed before, and nothing of
        // the same team's after it, on either server.
        func readersStopBelowTheHold() async throws -> ChangePage {
            for store in [first as any RecordStore, second] {
                let page = try await store.changes(teamId: team.id, after: 0, limit: 100)
                #expect(page.changes.map(\.id) == [before.id], "a reader does not pass the change held open")
                #expect(
                    try await store.exportSnapshot(teamId: team.id).cursor == page.changes.last?.cursor,
                    "an export's cursor stops there too")
            }
            return try await second.changes(teamId: team.id, after: 0, limit: 100)
        }
        // Set once the second server's sending has ended, however it ended.
        func finished(_ sent: Task<[IngestOutcome], any Error>) -> Done {
            let done = Done()
            Task {
                _ = try? await sent.value
                await done.set()
            }
            return done
        }
        let sent: Task<[IngestOutcome], any Error>
        let readDuringHold: ChangePage
        if first.writersTakeTurns {
            // One writer at a time: nothing commits while the group is held, so the readers are
            // asked first, and the second server's first group then waits (as it must) for as
            // short a time as the check allows: the writer's busy timeout (10 s) is a deployment's
            // bound, and a loaded machine could otherwise hold the group open past it.
            readDuringHold = try await readersStopBelowTheHold()
            sent = send()
            let done = finished(sent)
            #expect(!(await waitUntil(seconds: 1) { await done.value }), "a second writer waited for the transaction held open")
            // And while it waits, readers still read (they do not queue behind the writer) and
            // still stop below the held change.
            _ = try await readersStopBelowTheHold()
        } else {
            // Writers that need not take turns: the second server's groups commit while the
            // first's is open, and readers still stop below the one held open.
            sent = send()
            let done = finished(sent)
            #expect(await waitUntil(seconds: 20) { await done.value }, "the second server's groups committed while the first's was open")
            readDuringHold = try await readersStopBelowTheHold()
        }

        hold.release()
        #expect(try await heldIngest.value == [.created(revision: 1)])
        first.holdGroupCommits(at: nil)
        #expect(try await sent.value == Array(repeating: .created(revision: 1), count: 6))

        // Once it commits, a reader that stopped below it reads it and everything after: nothing
        // passed over, each once, in cursor order, the held change first.
        let after = try await second.changes(teamId: team.id, after: readDuringHold.changes.last?.cursor ?? 0, limit: 100)
        let expected = Set([heldRecord.id] + (3..<8).map { RecordStoreContract.record(UInt64($0)).id })
        #expect(Set(after.changes.map(\.id)) == expected && after.changes.count == expected.count)
        #expect(after.changes.map(\.cursor) == after.changes.map(\.cursor).sorted())
        #expect(after.changes.first?.id == heldRecord.id, "the change held open has the lowest cursor of those after the hold")
        let theOther = try await first.changes(teamId: other.id, after: 0, limit: 100)
        #expect(theOther.changes.map(\.id) == [RecordStoreContract.record(9).id])

        // The audit trail: each record created once, the chain whole.
        let created = try await first.auditEvents(AuditQuery(action: AuditAction.recordCreate.rawValue, limit: 100))
        #expect(created.count == 8 && Set(created.map(\.subject)).count == 8)
        #expect(try await AuditLog(store: second).verify().isSound)
    }

    private actor Done {
        var value = false
        func set() { value = true }
    }
}
