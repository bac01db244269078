import Foundation
import IntakeCore
import IntakeStore
import Testing

@testable import IntakeClient
@testable import IntakeFieldwork

@Suite(.serialized)
struct SubmitterTests {
    @Test func onlineSaveSendsTheRecordAndEmptiesTheQueue() async throws {
        let server = try await ClientTestServer.make()
        let record = server.record(seed: 1)
        let outcome = try await server.serving { port in
            try await Submitter(store: server.store, client: server.client(port: port)).submit(record)
        }
        #expect(outcome == .sent(.created))
        #expect(try server.store.queueEntries().isEmpty)
        #expect(try await server.services.store.record(id: record.id) != nil)
    }

    @Test func offlineSaveKeepsTheRecordQueuedAndEncrypted() async throws {
        let server = try await ClientTestServer.make()
        let record = server.record(seed: 1)
        let outcome = try await Submitter(store: server.store, client: server.client(port: ClientTestServer.closedPort())).submit(record)
        guard case .queued(let waiting, let reason) = outcome else { Issue.record("expected queued, got \(outcome)"); return }
        #expect(waiting == 1)
        #expect(reason.contains("connection refused"))
        #expect(try server.store.queueEntries().first?.attempts == 1)
        let none = try await Submitter(store: server.store, client: nil).submit(server.record(seed: 2))
        #expect(none == .queued(waiting: 2, reason: "no server is configured"))
    }

    @Test func aRecordTheServerRefusesBecomesADraftAgain() async throws {
        let server = try await ClientTestServer.make()
        var record = server.record(seed: 1)
        record.patient.familyName = ""
        let outcome = try await server.serving { [record] port in
            try await Submitter(store: server.store, client: server.client(port: port)).submit(record)
        }
        guard case .invalid(_, let issues, let code) = outcome else { Issue.record("expected invalid, got \(outcome)"); return }
        #expect(issues.contains { $0.description.contains("patient familyName") })
        #expect(
            code == "invalid_record" && issues.contains { $0.issue.kind == .missingIdentification && $0.issue.field == "familyName" },
            "\(issues)")
        #expect(try server.store.queueEntries().isEmpty)
        #expect(try server.store.drafts().first?.response.id == record.id)
        #expect(try server.store.drafts().first?.response.status == .draft)
    }

    @Test func editsAreSavedWithTheirBaseRevisionAndStaleOnesExplained() async throws {
        let server = try await ClientTestServer.make()
        let record = server.record(seed: 1)
        try await server.serving { port in
            let client = server.client(port: port)
            #expect(try await client.post(record) == .created)
            for _ in 0..<12 {
                let matches = try await client.lookup(LookupCriteria(familyName: record.patient.familyName))
                #expect(matches.contains { $0.id == record.id.uuidString.lowercased() }, "lookups keep working, one after another")
            }
            let (loaded, revision) = try await client.record(id: record.id)
            #expect(revision == 1)
            var mine = loaded, theirs = loaded
            mine.patient.externalId = "MINE"
            theirs.patient.externalId = "THEIRS"
            let submitter = Submitter(store: server.store, client: client)
            #expect(try await submitter.submit(theirs, baseRevision: 1) == .sent(.updated(revision: 2)))
            let stale = try await submitter.submit(mine, baseRevision: 1)
            guard case .stale(let current, _) = stale else { Issue.record("expected stale, got \(stale)"); return }
            #expect(current == 2)
            let kept = try #require(try server.store.drafts().first)
            #expect(kept.response.patient.externalId == "MINE" && kept.baseRevision == 1)
            #expect(try await client.record(id: record.id).record.patient.externalId == "THEIRS")
        }
    }
}
