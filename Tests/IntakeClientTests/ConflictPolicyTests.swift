import Foundation
import IntakeCore
import IntakeServer
import IntakeService
import IntakeStore
import Testing

@testable import IntakeClient
@testable import IntakeFieldwork

/// `intake flush --on-conflict`: an edit queued offline whose record changed on the server
/// meanwhile gets the documented result under each policy, and nothing is lost.
@Suite(.serialized)
struct ConflictPolicyTests {
    static let fast: QueueFlusher.RetryPolicy = {
        var policy = QueueFlusher.RetryPolicy(attempts: 2, baseDelay: 0.01, maxDelay: 0.05)
        policy.wait = { _ in }
        return policy
    }()

    /// A record at revision 1 on the server, edited there to revision 2 (`theirs` changes the
    /// given name, and the external id when `clash`), and edited here from revision 1 (`mine`
    /// changes the external id), queued.
    static func setUp(clash: Bool) async throws -> (ClientTestServer, base: PatientResponse, mine: PatientResponse) {
        let server = try await ClientTestServer.make()
        let base = server.record(seed: 40)
        _ = try await server.services.records.ingest([base], owner: RecordOwner(teamId: 1, username: "cora"))
        var theirs = base
        theirs.patient.givenName = "Server-Side"
        if clash { theirs.patient.externalId = "THEIRS-1" }
        #expect(
            try await server.services.store.update(try IngestItem(record: theirs), baseRevision: 1, teamId: 1, savedBy: "dan", at: Date())
                == .updated(revision: 2))
        var mine = base
        mine.patient.externalId = "MINE-1"
        try server.store.enqueue(mine, baseRevision: 1)
        return (server, base, mine)
    }

    static func flush(_ server: ClientTestServer, _ policy: ConflictPolicy, choose: [RecordMerge.Side]? = nil) async throws
        -> QueueFlusher.Summary
    {
        try await server.serving { port in
            var flusher = QueueFlusher(store: server.store, client: server.client(port: port), retry: Self.fast)
            var chooser: (@Sendable (RecordMerge) async throws -> [RecordMerge.Side])?
            if let choose { chooser = { @Sendable _ in choose } }
            flusher.resolver = ConflictResolver(client: server.client(port: port), policy: policy, choose: chooser)
            return try await flusher.flush()
        }
    }

    @Test func mergeKeepsBothSidesChangesWhenTheyTouchDifferentFields() async throws {
        let (server, base, _) = try await Self.setUp(clash: false)
        let summary = try await Self.flush(server, .merge)
        #expect(summary.uploaded == 1 && summary.setAside.isEmpty && summary.resolved.count == 1, "\(summary.setAside)")
        let stored = try #require(try await server.services.store.record(id: base.id))
        #expect(stored.revision == 3 && stored.record.patient.givenName == "Server-Side" && stored.record.patient.externalId == "MINE-1")
        #expect(try server.store.queueEntries().isEmpty)
    }

    @Test func mergeSetsAsideAnEditWithAnswersBothSidesChangedAndSendsNothing() async throws {
        let (server, base, _) = try await Self.setUp(clash: true)
        let summary = try await Self.flush(server, .merge)
        #expect(summary.uploaded == 0 && summary.setAside.count == 1)
        #expect(summary.setAside.first?.reason.contains("changed external id") == true, "\(summary.setAside)")
        #expect(!(summary.setAside.first?.reason.contains("MINE-1") ?? true), "names of fields, not values")
        #expect(try await server.services.store.record(id: base.id)?.revision == 2, "nothing sent")
        #expect(try server.store.queueEntries().first?.state == .rejected, "the edit is kept here")
    }

    @Test func askSettlesEachConflictAsChosenAndMergesTheRest() async throws {
        let (server, base, _) = try await Self.setUp(clash: true)
        let summary = try await Self.flush(server, .ask, choose: [.mine])
        #expect(
            summary.uploaded == 1 && summary.resolved.first?.how.contains("1 conflict(s) settled (1 yours)") == true, "\(summary.resolved)")
        let stored = try #require(try await server.services.store.record(id: base.id))
        #expect(stored.revision == 3 && stored.record.patient.externalId == "MINE-1" && stored.record.patient.givenName == "Server-Side")
    }

    @Test func askWithoutAnAnswerForEveryConflictSendsNothingAndKeepsTheEdit() async throws {
        let (server, base, _) = try await Self.setUp(clash: true)
        let summary = try await Self.flush(server, .ask, choose: [])
        #expect(summary.uploaded == 0 && summary.setAside.count == 1, "\(summary.resolved)")
        #expect(try await server.services.store.record(id: base.id)?.revision == 2)
    }

    @Test func keepMineSavesTheEditOverTheServersWhichStaysInHistory() async throws {
        let (server, base, mine) = try await Self.setUp(clash: true)
        let summary = try await Self.flush(server, .keepMine)
        #expect(summary.uploaded == 1)
        let stored = try #require(try await server.services.store.record(id: base.id))
        #expect(stored.revision == 3 && stored.record.patient == mine.patient, "mine, whole")
        #expect(
            try await server.services.store.revisions(of: base.id).map(\.record.patient.externalId) == [
                base.patient.externalId, "THEIRS-1", "MINE-1",
            ])
    }

    @Test func keepServerSendsNothingAndKeepsTheEditAside() async throws {
        let (server, base, _) = try await Self.setUp(clash: false)
        let summary = try await Self.flush(server, .keepServer)
        #expect(summary.uploaded == 0 && summary.setAside.first?.reason.contains("keep-server") == true)
        #expect(try await server.services.store.record(id: base.id)?.revision == 2)
        let kept = try server.store.queueEntries()
        #expect(kept.count == 1 && kept.first?.state == .rejected, "the edit is not lost")
        // Sent again with another policy, it lands.
        #expect(try server.store.retry() == 1)
        #expect(try await Self.flush(server, .merge).uploaded == 1)
        #expect(try await server.services.store.record(id: base.id)?.record.patient.externalId == "MINE-1")
    }
}
