import Foundation
import IntakeClient
import IntakeCore
import IntakeStore
import Synchronization

/// Uploads the queue in batches. A record leaves the queue only after the server acknowledged it;
/// refused records are set aside with the server's reason; failures that may pass are retried
/// with exponential backoff and jitter, a bounded number of times.
///
/// The queue is streamed: each record is decrypted once and sent as the JSON it was queued with,
/// batches are cut by size in bytes as well as by count, and a few batches are in flight at once.
public struct QueueFlusher: Sendable {
    public let store: LocalStore
    public let client: IntakeClient
    /// Most records in one batch (the server's limit is 500 unless set otherwise).
    public var batchSize: Int
    /// A batch stops growing past this many bytes of sealed records (one record always fits).
    public var batchBytes: Int
    /// How many batches may be on their way to the server at once.
    public var inFlight: Int
    public var retry: RetryPolicy
    /// What to do with an edit whose record changed on the server meanwhile; nil sets it aside.
    public var resolver: ConflictResolver?
    /// Told of each try that failed and will be made again, before the pause: so waiting is
    /// never silent.
    public var retrying: (@Sendable (Retrying) -> Void)?

    /// A failed try of a batch that is made again after `delay` seconds.
    public struct Retrying: Sendable {
        /// The try that failed (1 for the first) and how many there may be.
        public var attempt: Int
        public var attempts: Int
        /// Why it failed (never patient data).
        public var reason: String
        public var delay: TimeInterval
    }

    /// The longest a flush that cannot reach the server waits before it stops, in seconds:
    /// every try waiting out the client's timeout, and the longest pauses between them.
    public var longestWait: TimeInterval {
        Double(retry.attempts) * client.timeout + Double(max(0, retry.attempts - 1)) * retry.maxDelay
    }
    /// What the policy kept, for each edit it saved, until the summary takes it.
    private let resolutions = Resolutions()

    private final class Resolutions: Sendable {
        let map = Mutex<[UUID: String]>([:])
        func set(_ how: String, for id: UUID) { map.withLock { $0[id] = how } }
        func take(_ id: UUID) -> String? { map.withLock { $0.removeValue(forKey: id) } }
    }

    public init(
        store: LocalStore, client: IntakeClient, batchSize: Int = 250, batchBytes: Int = 1 << 20, inFlight: Int = 4,
        retry: RetryPolicy = RetryPolicy()
    ) {
        self.store = store
        self.client = client
        self.batchSize = batchSize
        self.batchBytes = batchBytes
        self.inFlight = inFlight
        self.retry = retry
    }
    /// How hard to retry failures that may pass (network, 5xx).
    public struct RetryPolicy: Sendable {
        public var attempts = 5
        public var baseDelay: TimeInterval = 0.5
        public var maxDelay: TimeInterval = 8
        /// Waits out a delay between attempts: a sleep, unless a test gives its own clock.
        public var wait: @Sendable (TimeInterval) async -> Void = { delay in try? await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }

        public init(attempts: Int = 5, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 8) {
            self.attempts = attempts
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
        }

        /// Full jitter: a random delay up to base × 2^attempt, capped.
        func delay(afterAttempt attempt: Int) -> TimeInterval {
            TimeInterval.random(in: 0...min(maxDelay, baseDelay * pow(2, Double(attempt))))
        }
    }

    public struct Progress: Sendable {
        public var done: Int
        public var total: Int
    }

    public struct Summary: Sendable {
        public var uploaded = 0
        public var alreadyOnServer = 0
        /// Refused by the server this time: id, reason (the server's words, as the queue keeps
        /// them) and, for a record its validation refused, the server's code.
        public var setAside: [(id: UUID, reason: String, code: String?)] = []
        /// Edits saved after a conflict was resolved by the policy: id and what was kept.
        public var resolved: [(id: UUID, how: String)] = []
        /// Why the flush stopped early, if it did.
        public var stoppedBecause: String?
        /// Still queued at the end: pending and set aside.
        public var remaining = 0
        /// Records kept back because nobody signed in gave them a collector yet.
        public var withoutCollector = 0
    }

    public func flush(progress: @Sendable (Progress) -> Void = { _ in }) async throws -> Summary {
        var summary = Summary()
        let total = try store.pendingCount()
        var done = 0
        progress(Progress(done: 0, total: total))
        var last: QueueEntry?
        try await withThrowingTaskGroup(of: BatchOutcome.self) { group in
            var running = 0
            var exhausted = false
            while true {
                while !exhausted, summary.stoppedBecause == nil, running < max(1, inFlight) {
                    let read = try store.pendingPayloads(limit: max(1, batchSize), maxBytes: batchBytes, after: last)
                    guard let tail = read.last else {
                        exhausted = true
                        break
                    }
                    last = tail.entry
                    // A record without a collector yet waits for a sign-in (the server would refuse it).
                    let batch = read.filter { !LocalStore.lacksCollector(json: $0.json) }
                    summary.withoutCollector += read.count - batch.count
                    guard !batch.isEmpty else { continue }
                    running += 1
                    group.addTask { await self.deliver(batch) }
                }
                guard running > 0, let outcome = try await group.next() else { break }
                running -= 1
                try record(outcome, into: &summary)
                done += outcome.results.count
                progress(Progress(done: min(done, total), total: total))
            }
        }
        summary.remaining = try store.queueEntries().count
        // Files of records the server now holds, that no draft or queued record names, go.
        try? store.removeUnreferencedAttachments()
        return summary
    }

    /// What became of one batch: a result for each record the server answered, and the error
    /// that stopped the rest, if any.
    struct BatchOutcome: Sendable {
        var results: [(QueuedPayload, SendResult)] = []
        var unsent: [QueuedPayload] = []
        var error: ClientError?
    }

    /// Sends one batch, retrying failures that may pass and halving it when the server finds it too large.
    private func deliver(_ batch: [QueuedPayload]) async -> BatchOutcome {
        var failures = 0
        while true {
            do {
                return BatchOutcome(results: try await send(batch))
            } catch {
                if case .refused(413, _) = error, batch.count > 1 {
                    let half = batch.count / 2
                    var first = await deliver(Array(batch[..<half]))
                    guard first.error == nil else {
                        first.unsent += batch[half...]
                        return first
                    }
                    let second = await deliver(Array(batch[half...]))
                    return BatchOutcome(results: first.results + second.results, unsent: second.unsent, error: second.error)
                }
                failures += 1
                try? store.recordAttempt(batch.map(\.entry.id), reason: error.description)
                guard error.isTransient, failures < retry.attempts else { return BatchOutcome(unsent: batch, error: error) }
                let delay = retry.delay(afterAttempt: failures)
                retrying?(Retrying(attempt: failures, attempts: retry.attempts, reason: error.description, delay: delay))
                await retry.wait(delay)
            }
        }
    }

    /// New records in one request, edits one by one.
    private func send(_ batch: [QueuedPayload]) async throws(ClientError) -> [(QueuedPayload, SendResult)] {
        for payload in batch { try await AttachmentUpload.files(of: payload.json, from: store, to: client) }
        let new = batch.filter { $0.entry.baseRevision == nil }
        var results: [(QueuedPayload, SendResult)] = []
        if !new.isEmpty {
            results += zip(new, try await client.postBatch(json: new.map(\.json))).map { ($0, $1) }
        }
        for edit in batch where edit.entry.baseRevision != nil {
            let result = try await client.put(json: edit.json, id: edit.entry.id, baseRevision: edit.entry.baseRevision!)
            results.append((edit, try await resolve(edit, result)))
        }
        return results
    }

    /// A stale edit, settled by the policy: saved (`updated`, noted as resolved) or set aside
    /// with the reason (`stale`); any other result as it was.
    private func resolve(_ edit: QueuedPayload, _ result: SendResult) async throws(ClientError) -> SendResult {
        guard case .stale = result, let resolver, let base = edit.entry.baseRevision,
            let mine = try? PatientResponse(jsonData: edit.json)
        else { return result }
        let outcome: ConflictResolver.Outcome
        do {
            outcome = try await resolver.resolve(mine, baseRevision: base)
        } catch let error as ClientError {
            throw error
        } catch {
            return .stale(currentRevision: base, message: error.localizedDescription)
        }
        switch outcome {
        case .saved(let revision, let how):
            resolutions.set(how, for: edit.entry.id)
            return .updated(revision: revision)
        case .keptServer, .unresolved, .refused:
            return .conflict(message: ConflictResolver.setAsideReason(outcome) ?? "")
        }
    }

    /// Removes what the server acknowledged (one local transaction), sets refused records aside
    /// and notes failed attempts.
    private func record(_ outcome: BatchOutcome, into summary: inout Summary) throws {
        try store.acknowledge(outcome.results.filter { $0.1.isAcknowledged }.map(\.0.entry.id))
        for (queued, result) in outcome.results {
            if let how = resolutions.take(queued.entry.id) { summary.resolved.append((queued.entry.id, how)) }
            switch result {
            case .created, .updated: summary.uploaded += 1
            case .duplicate: summary.alreadyOnServer += 1
            case .conflict(let message), .invalid(let message, _, _), .stale(_, let message):
                let reason = Self.reason(result, message)
                try store.reject(queued.entry.id, reason: reason)
                let code: String? = if case .invalid(_, _, let code) = result { code } else { nil }
                summary.setAside.append((queued.entry.id, reason, code))
            }
        }
        if let error = outcome.error, summary.stoppedBecause == nil { summary.stoppedBecause = error.description }
    }

    private static func reason(_ result: SendResult, _ message: String) -> String {
        switch result {
        case .conflict: "conflict: \(message)"
        case .invalid(_, let issues, _):
            "invalid: \(message)" + (issues.isEmpty ? "" : "; " + issues.map(\.description).joined(separator: "; "))
        case .stale(let current, _):
            "stale: the record is at revision \(current) on the server; look it up and edit it again, or flush with --on-conflict"
        default: message
        }
    }
}
