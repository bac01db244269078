import Foundation
import IntakeCore

/// A record waiting in the outbound queue: what is kept in clear to run the queue.
public struct QueueEntry: Hashable, Sendable {
    public enum State: String, Sendable {
        /// Waiting to be sent.
        case pending
        /// The server refused it (conflict, invalid); kept with the reason until retried or exported.
        case rejected
    }

    public var id: UUID
    public var state: State
    /// Set for an edit of a server record: the revision it was based on (sent with PUT).
    public var baseRevision: Int?
    public var attempts: Int
    public var enqueuedAt: Date
    public var lastAttemptAt: Date?
    /// Why the last attempt failed, or why the server refused it; never patient data.
    public var reason: String?
    /// The sealed payload's size in bytes.
    public var size: Int
}

/// A queued record, decrypted.
public struct QueuedRecord: Sendable {
    public var entry: QueueEntry
    public var response: PatientResponse
}

/// A queued record, decrypted but not parsed: its canonical JSON, to send as it is.
public struct QueuedPayload: Sendable {
    public var entry: QueueEntry
    public var json: [UInt8]
}

/// A payload that did not decrypt, set aside so the rest keeps working.
public struct QuarantineEntry: Sendable {
    public var id: String
    public var source: String
    public var reason: String
    public var quarantinedAt: Date
}
