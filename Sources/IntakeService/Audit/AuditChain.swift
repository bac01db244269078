import Crypto
import Foundation
import IntakeCore

/// How audit events are chained and checked: each event's hash is SHA-256 over its canonical
/// bytes, which include the hash of the event before, so changing, removing, inserting or
/// reordering any event breaks every hash from there on.
public enum AuditChain {
    /// The previous hash of the first event.
    public static let genesis = String(repeating: "0", count: 64)

    /// A JSON object with its keys sorted and no spaces: `action`, `actor`, `at`, `details`
    /// (its keys sorted), `previousHash`, `seq`, `subject`.
    public static func canonicalBytes(
        seq: Int64, at: String, actor: String, action: String, subject: String, details: [String: String], previousHash: String
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("action")
        writer.string(action)
        writer.key("actor")
        writer.string(actor)
        writer.key("at")
        writer.string(at)
        writer.key("details")
        AuditEvent.write(details, into: &writer)
        writer.key("previousHash")
        writer.string(previousHash)
        writer.key("seq")
        writer.integer(Int(seq))
        writer.key("subject")
        writer.string(subject)
        writer.endObject()
        return writer.bytes
    }

    /// The events `entries` become after `head` (nil: the trail is empty).
    public static func chain(_ entries: [AuditEntry], after head: (seq: Int64, hash: String)?) -> [AuditEvent] {
        var seq = head?.seq ?? 0
        var previous = head?.hash ?? genesis
        // A group commit's events share their time: it is formatted once for them.
        var lastTime: (date: Date, text: String)?
        return entries.map { entry in
            seq += 1
            let at = lastTime.flatMap { $0.date == entry.at ? $0.text : nil } ?? Timestamp.string(from: entry.at)
            lastTime = (entry.at, at)
            let hash = SHA256.hash(
                data: canonicalBytes(
                    seq: seq, at: at, actor: entry.actor, action: entry.action, subject: entry.subject, details: entry.details,
                    previousHash: previous)
            ).hex
            defer { previous = hash }
            return AuditEvent(
                seq: seq, at: at, actor: entry.actor, action: entry.action, subject: entry.subject, details: entry.details,
                previousHash: previous,
                hash: hash)
        }
    }

    /// The hash an event should have, from its own fields.
    public static func expectedHash(of event: AuditEvent) -> String {
        SHA256.hash(
            data: canonicalBytes(
                seq: event.seq, at: event.at, actor: event.actor, action: event.action, subject: event.subject, details: event.details,
                previousHash: event.previousHash)
        ).hex
    }
}

/// Walks the trail in order and finds the first event that is not what the chain says.
public struct AuditVerifier: Sendable {
    public private(set) var checked = 0
    public private(set) var head: AuditEvent?
    public private(set) var problem: AuditProblem?

    public init() {}

    /// Checks the next events (in `seq` order); stops at the first problem.
    public mutating func check(_ events: [AuditEvent]) {
        for event in events where problem == nil {
            let expectedSeq = (head?.seq ?? 0) + 1
            let expectedPrevious = head?.hash ?? AuditChain.genesis
            if event.seq > expectedSeq {
                problem = AuditProblem(
                    seq: expectedSeq, kind: .missing,
                    message:
                        "event \(expectedSeq)\(event.seq > expectedSeq + 1 ? " to \(event.seq - 1)" : "") is missing: deleted from the trail"
                )
            } else if event.seq < expectedSeq {
                problem = AuditProblem(
                    seq: event.seq, kind: .outOfOrder,
                    message: "event \(event.seq) comes after event \(expectedSeq - 1): the trail was reordered")
            } else if AuditChain.expectedHash(of: event) != event.hash {
                problem = AuditProblem(
                    seq: event.seq, kind: .changed, message: "event \(event.seq) was changed: its hash does not match its content")
            } else if event.previousHash != expectedPrevious {
                problem = AuditProblem(
                    seq: event.seq, kind: .broken,
                    message:
                        "event \(event.seq) does not follow event \(event.seq - 1): an event was inserted, removed or replaced before it")
            } else {
                head = event
                checked += 1
            }
        }
    }
}

/// The first thing wrong with an audit trail.
public struct AuditProblem: Sendable, Hashable, Error, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case changed, missing, broken
        case outOfOrder = "out_of_order"
        case headMissing = "head_missing"
    }

    /// The first bad event.
    public var seq: Int64
    public var kind: Kind
    public var message: String
    public var description: String { message }
}
