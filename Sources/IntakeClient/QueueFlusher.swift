import Foundation
import IntakeCore
import IntakeStore

/// Uploads the queue in batches. A record leaves the queue only after the server acknowledged it;
/// refused records are set aside with the server's reason; failures that may pass are retried
/// with exponential backoff and jitter, a bounded number of times.
public struct QueueFlusher: Sendable {
    public let store: LocalStore
    public let client: IntakeClient
    public var batchSize: Int
    public var retry: RetryPolicy

    public init(store: LocalStore, client: IntakeClient, batchSize: Int = 100, retry: RetryPolicy = RetryPolicy()) {
        self.store = store
        self.client = client
        self.batchSize = batchSize
        self.retry = retry
    }

    /// How hard to retry failures that may pass (network, 5xx).
    public struct RetryPolicy: Sendable {
        public var attempts = 5
        public var baseDelay: TimeInterval = 0.5
        public var maxDelay: TimeInterval = 8

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
        /// Refused by the server this time: id and reason.
        public var setAside: [(id: UUID, reason: String)] = []
        /// Why the flush stopped early, if it did.
        public var stoppedBecause: String?
        /// Still queued at the end: pending and set aside.
        public var remaining = 0
    }

    public func flush(progress: @Sendable (Progress) -> Void = { _ in }) async throws -> Summary {
        var summary = Summary()
        let total = try store.pendingCount()
        var done = 0
        var size = max(1, batchSize)
        progress(Progress(done: 0, total: total))
        var failures = 0
        while true {
            let batch = try store.pending(limit: size)
            if batch.isEmpty { break }
            do {
                try await send(batch, into: &summary)
                done += batch.count
                failures = 0
                progress(Progress(done: min(done, total), total: total))
            } catch let error as ClientError {
                if case .refused(413, _) = error, size > 1 {
                    size = max(1, size / 2)
                    continue
                }
                try store.recordAttempt(batch.map(\.entry.id), reason: error.description)
                guard error.isTransient, failures + 1 < retry.attempts else {
                    summary.stoppedBecause = error.description
                    break
                }
                failures += 1
                try await Task.sleep(nanoseconds: UInt64(retry.delay(afterAttempt: failures) * 1e9))
            }
        }
        summary.remaining = try store.queueEntries().count
        return summary
    }

    /// Sends one batch: new records together, edits one by one; records the outcome of each locally.
    private func send(_ batch: [QueuedRecord], into summary: inout Summary) async throws {
        let edits = batch.filter { $0.entry.baseRevision != nil }
        let new = batch.filter { $0.entry.baseRevision == nil }
        var results: [(QueuedRecord, SendResult)] = []
        if !new.isEmpty {
            results += zip(new, try await client.postBatch(new.map(\.response))).map { ($0, $1) }
        }
        for edit in edits {
            results.append((edit, try await client.put(edit.response, baseRevision: edit.entry.baseRevision!)))
        }
        try store.acknowledge(results.filter { $0.1.isAcknowledged }.map(\.0.entry.id))
        for (queued, result) in results {
            switch result {
            case .created, .updated: summary.uploaded += 1
            case .duplicate: summary.alreadyOnServer += 1
            case .conflict(let message), .invalid(let message, _), .stale(_, let message):
                let reason = Self.reason(result, message)
                try store.reject(queued.entry.id, reason: reason)
                summary.setAside.append((queued.entry.id, reason))
            }
        }
    }

    private static func reason(_ result: SendResult, _ message: String) -> String {
        switch result {
        case .conflict: "conflict: \(message)"
        case .invalid(_, let issues): "invalid: \(message)" + (issues.isEmpty ? "" : "; " + issues.joined(separator: "; "))
        case .stale(let current, _): "stale: the record is at revision \(current) on the server; look it up and edit it again"
        default: message
        }
    }
}
