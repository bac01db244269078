import Foundation
import IntakeCore
import IntakeServer
import IntakeService
import IntakeStore
import Testing

@testable import IntakeClient
@testable import IntakeFieldwork

@Suite(.serialized)
struct QueueFlusherTests {
    /// Three attempts, and no time waited between them.
    static let fast: QueueFlusher.RetryPolicy = {
        var policy = QueueFlusher.RetryPolicy(attempts: 3, baseDelay: 0.01, maxDelay: 0.05)
        policy.wait = { _ in }
        return policy
    }()

    @Test func flushSortsCreatedDuplicateConflictAndInvalid() async throws {
        let server = try await ClientTestServer.make()
        let fresh = (1...3).map { server.record(seed: $0) }
        let already = server.record(seed: 10)
        let conflicting = server.record(seed: 11)
        var invalid = server.record(seed: 12)
        invalid.patient.givenName = ""
        _ = try await server.services.records.ingest([already, conflicting], owner: RecordOwner(teamId: 1, username: "cora"))
        var changed = conflicting
        changed.patient.externalId = "CHANGED"
        for record in fresh + [already, changed, invalid] { try server.store.enqueue(record) }
        let summary = try await server.serving { port in
            try await QueueFlusher(store: server.store, client: server.client(port: port), batchSize: 2, retry: Self.fast).flush()
        }
        #expect(summary.uploaded == 3)
        #expect(summary.alreadyOnServer == 1)
        #expect(summary.setAside.count == 2)
        #expect(summary.remaining == 2)
        #expect(summary.stoppedBecause == nil)
        let entries = try server.store.queueEntries()
        #expect(Set(entries.map(\.id)) == [changed.id, invalid.id])
        #expect(entries.allSatisfy { $0.state == .rejected })
        #expect(entries.first { $0.id == changed.id }?.reason?.hasPrefix("conflict:") == true)
        #expect(entries.first { $0.id == invalid.id }?.reason?.contains("patient givenName") == true)
    }

    /// A record filled before anyone signed in has no collector: it is never sent (the server
    /// would set it aside) until the signed-in account is given to it; the others go meanwhile.
    @Test func aRecordWithoutACollectorWaitsForOneAndIsThenSent() async throws {
        let server = try await ClientTestServer.make()
        var unsigned = server.record(seed: 31)
        unsigned.collector = PatientResponse.collectorToCome
        let signed = server.record(seed: 32)
        try server.store.enqueue(unsigned)
        try server.store.enqueue(signed)
        #expect(try server.store.countWithoutCollector() == 1)
        let first = try await server.serving { port in
            try await QueueFlusher(store: server.store, client: server.client(port: port), retry: Self.fast).flush()
        }
        #expect(first.uploaded == 1 && first.withoutCollector == 1 && first.setAside.isEmpty && first.remaining == 1, "\(first)")
        #expect(try server.store.queueEntries().map(\.state) == [.pending], "kept back, not set aside")
        #expect(try server.store.giveCollector("cora") == 1)
        #expect(try server.store.countWithoutCollector() == 0)
        let second = try await server.serving { port in
            try await QueueFlusher(store: server.store, client: server.client(port: port), retry: Self.fast).flush()
        }
        #expect(second.uploaded == 1 && second.withoutCollector == 0 && second.remaining == 0, "\(second)")
        #expect(try await server.services.store.record(id: unsigned.id)?.collector == "cora")
    }

    /// A record deleted on the server while a copy or an edit of it waited in the queue: both are
    /// set aside with the server's reason (deleted, when, by whom), kept locally, never lost.
    @Test func queuedCopiesOfARecordDeletedOnTheServerAreSetAsideNotLost() async throws {
        let server = try await ClientTestServer.make()
        let records = [server.record(seed: 21), server.record(seed: 22)]
        _ = try await server.services.records.ingest(records, owner: RecordOwner(teamId: 1, username: "cora"))
        for record in records {
            _ = try await server.services.store.deleteRecord(id: record.id, teamId: 1, reason: "entered twice", by: "cora", at: Date())
        }
        var edited = records[1]
        edited.patient.externalId = "EDITED"
        try server.store.enqueue(records[0])
        try server.store.enqueue(edited, baseRevision: 1)
        let summary = try await server.serving { port in
            try await QueueFlusher(store: server.store, client: server.client(port: port), batchSize: 5, retry: Self.fast).flush()
        }
        #expect(summary.uploaded == 0 && summary.setAside.count == 2 && summary.stoppedBecause == nil)
        let entries = try server.store.queueEntries()
        #expect(Set(entries.map(\.id)) == Set(records.map(\.id)) && entries.allSatisfy { $0.state == .rejected })
        #expect(
            entries.allSatisfy { ($0.reason ?? "").contains("was deleted at") && ($0.reason ?? "").contains("by cora") },
            "\(entries.map(\.reason))")
    }

    @Test func serverDownStopsTheFlushAndKeepsEveryRecord() async throws {
        let server = try await ClientTestServer.make()
        let records = (1...5).map { server.record(seed: $0) }
        for record in records { try server.store.enqueue(record) }
        let flusher = QueueFlusher(
            store: server.store, client: server.client(port: ClientTestServer.closedPort()), batchSize: 2, retry: Self.fast)
        let summary = try await flusher.flush()
        #expect(summary.uploaded == 0)
        #expect(summary.remaining == 5)
        #expect(summary.stoppedBecause?.contains("connection refused") == true)
        #expect(try server.store.queueEntries().first?.attempts == 3, "each attempt is counted")
    }

    @Test func retriesUntilTheServerComesBack() async throws {
        let server = try await ClientTestServer.make()
        let records = (1...4).map { server.record(seed: $0) }
        for record in records { try server.store.enqueue(record) }
        let port = ClientTestServer.closedPort()
        // The flusher's waits are the test's to end: each one reports its delay and waits for a go.
        let (delays, reportDelay) = AsyncStream.makeStream(of: TimeInterval.self)
        let (goes, go) = AsyncStream.makeStream(of: Void.self)
        var policy = QueueFlusher.RetryPolicy(attempts: 30, baseDelay: 0.05, maxDelay: 0.2)
        policy.wait = { delay in
            reportDelay.yield(delay)
            for await _ in goes { break }
        }
        let flusher = QueueFlusher(store: server.store, client: server.client(port: port), batchSize: 10, retry: policy)
        let flush = Task { try await flusher.flush() }

        // Two attempts fail while the server is down, each counted against the queued records.
        var waited: [TimeInterval] = []
        for await delay in delays {
            waited.append(delay)
            #expect(try server.store.queueEntries().allSatisfy { $0.attempts == waited.count }, "attempt \(waited.count) is counted")
            if waited.count == 2 { break }
            go.yield()
        }
        #expect(waited[0] <= 0.1 && waited[1] <= 0.2, "backoff within its caps: \(waited)")
        // Then the server comes back and the third attempt delivers everything.
        let summary = try await server.serving(port: port) { _ in
            go.yield()
            return try await flush.value
        }
        reportDelay.finish()
        #expect(summary.uploaded == 4)
        #expect(summary.remaining == 0)
        for record in records { #expect(try await server.services.store.revisions(of: record.id).count == 1) }
    }

    @Test func aFlushRunTwiceStoresNothingTwice() async throws {
        let server = try await ClientTestServer.make()
        let records = (1...6).map { server.record(seed: $0) }
        for record in records { try server.store.enqueue(record) }
        // The server stored the first three, but the answer was lost: they are still queued here.
        _ = try await server.services.records.ingest(Array(records.prefix(3)), owner: RecordOwner(teamId: 1, username: "cora"))
        let summary = try await server.serving { port in
            try await QueueFlusher(store: server.store, client: server.client(port: port), retry: Self.fast).flush()
        }
        #expect(summary.uploaded == 3 && summary.alreadyOnServer == 3 && summary.remaining == 0)
        for record in records { #expect(try await server.services.store.revisions(of: record.id).count == 1) }
    }
}
