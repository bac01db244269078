import Foundation
import IntakeCore

/// One action to put on the audit trail: who did what to which thing, when. Never patient data:
/// `subject` is an id or a user or team name, and `details` hold names of fields, counts and
/// options, never the values a person typed.
public struct AuditEntry: Sendable, Hashable {
    public var at: Date
    /// The user who acted; empty when nobody signed in (a failed sign-in names the account tried in `subject`).
    public var actor: String
    /// Such as `record.create`, `sign_in.failed`, `export` (see ``AuditAction``).
    public var action: String
    public var subject: String
    public var details: [String: String]

    public init(at: Date, actor: String, action: AuditAction, subject: String = "", details: [String: String] = [:]) {
        self.at = at
        self.actor = actor
        self.action = action.rawValue
        self.subject = subject
        self.details = details
    }
}

/// What the audit trail records.
public enum AuditAction: String, Sendable, CaseIterable {
    case signIn = "sign_in"
    case signInFailed = "sign_in.failed"
    case recordCreate = "record.create"
    case recordUpdate = "record.update"
    case recordRead = "record.read"
    case recordDelete = "record.delete"
    case recordTransfer = "record.transfer"
    case recordReview = "record.review"
    /// Tombstones of deleted records removed after their retention period.
    case tombstonePurge = "record.purge"
    case grantCreate = "grant.create"
    case grantRevoke = "grant.revoke"
    /// A questionnaire made collector-only, or team-wide again.
    case questionnaireAccess = "questionnaire.access"
    /// A questionnaire version published, closed, reopened or retired.
    case questionnaireState = "questionnaire.state"
    case enrolmentCreate = "enrolment.create"
    case deviceEnrol = "device.enrol"
    case deviceRevoke = "device.revoke"
    case lookup
    case export
    case consentChange = "consent.change"
    case patientRead = "patient.read"
    case userCreate = "user.create"
    case userChange = "user.change"
    case teamCreate = "team.create"
    case memberChange = "team.member"
    /// A read with a token that no more particular action covers.
    case tokenRead = "token.read"
    /// A token revoked by an admin (named by the start of its hash).
    case tokenRevoke = "token.revoke"
    /// A change through the API that no more particular action covers (referrals, invitations, webhooks, patients, reports…).
    case apiChange = "api.change"
}

/// An event of the audit trail as stored: numbered, and chained to the one before by its hash.
public struct AuditEvent: Sendable, Hashable {
    /// 1, 2, 3… with no gaps.
    public var seq: Int64
    /// When, as an RFC 3339 UTC time to the millisecond (kept as text, so its hash never depends on rounding).
    public var at: String
    public var actor: String
    public var action: String
    public var subject: String
    public var details: [String: String]
    /// The hash of the event before (64 zeros for the first).
    public var previousHash: String
    /// SHA-256 of the event's canonical bytes (``AuditChain/canonicalBytes(_:)``), previous hash included.
    public var hash: String

    public init(
        seq: Int64, at: String, actor: String, action: String, subject: String, details: [String: String], previousHash: String,
        hash: String
    ) {
        self.seq = seq
        self.at = at
        self.actor = actor
        self.action = action
        self.subject = subject
        self.details = details
        self.previousHash = previousHash
        self.hash = hash
    }
}

/// Which audit events to read, oldest first.
public struct AuditQuery: Sendable, Hashable {
    /// Only events after this number (for paging).
    public var after: Int64 = 0
    public var actor: String?
    /// An action, or the start of one followed by `.` (`record` matches `record.create`).
    public var action: String?
    public var subject: String?
    public var from: Date?
    /// Exclusive.
    public var to: Date?
    public var limit: Int = 500
    /// Only events before this number (a newest-first page's last).
    public var before: Int64?
    /// The newest first (a person browsing the trail), rather than the oldest (a copy catching up).
    public var newestFirst = false

    public init(
        after: Int64 = 0, actor: String? = nil, action: String? = nil, subject: String? = nil, from: Date? = nil, to: Date? = nil,
        limit: Int = 500
    ) {
        self.after = after
        self.actor = actor
        self.action = action
        self.subject = subject
        self.from = from
        self.to = to
        self.limit = limit
    }
}

extension AuditEvent {
    /// Details as the stores keep them: a JSON object with sorted keys (the hash never reads this
    /// text, only the details it holds).
    public static func detailsText(_ details: [String: String]) -> String {
        // The codec's writer, keys in byte order: `JSONSerialization` was a quarter of the
        // store's CPU for each record created. Any JSON object reads back the same
        // (``details(fromText:)``), and the hash is over the canonical bytes, not this text.
        var writer = JSONWriter(capacity: 32 + details.count * 32)
        write(details, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Details as one JSON object, keys in byte order: the stored text and the chain's canonical
    /// bytes (``AuditChain/canonicalBytes(seq:at:actor:action:subject:details:previousHash:)``).
    static func write(_ details: [String: String], into writer: inout JSONWriter) {
        writer.beginObject()
        for key in details.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            writer.key(key)
            writer.string(details[key]!)
        }
        writer.endObject()
    }

    /// Details read back from ``detailsText(_:)``; text that is not such an object is kept whole
    /// under `unreadable`, so the event's hash no longer matches and verification reports it.
    public static func details(fromText text: String) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]) ?? ["unreadable": text]
    }
}

extension AuditEntry {
    /// The records of a batch that were created (not the retried or refused ones).
    public static func recordsCreated(_ items: [IngestItem], _ outcomes: [IngestOutcome], owner: RecordOwner, at time: Date) -> [AuditEntry]
    {
        zip(items, outcomes).compactMap { item, outcome in
            guard case .created = outcome else { return nil }
            return recordCreated(item, owner: owner, at: time)
        }
    }

    /// The event of one record created (a store that writes it with the record, before it knows
    /// whether the record was created, takes it from here too).
    public static func recordCreated(_ item: IngestItem, owner: RecordOwner, at time: Date) -> AuditEntry {
        AuditEntry(
            at: time, actor: owner.username, action: .recordCreate, subject: item.record.id.uuidString.lowercased(),
            details: ["team": String(owner.teamId), "collector": item.record.collector])
    }

    /// The records created by each job of a group commit that succeeded.
    public static func recordsCreated<Job>(
        _ jobs: [Job], _ results: [Result<[IngestOutcome], any Error>], items: (Job) -> [IngestItem], owner: (Job) -> RecordOwner,
        at time: (Job) -> Date
    ) -> [AuditEntry] {
        zip(jobs, results).flatMap { job, result -> [AuditEntry] in
            guard case .success(let outcomes) = result else { return [] }
            return recordsCreated(items(job), outcomes, owner: owner(job), at: time(job))
        }
    }

    public static func recordUpdate(_ item: IngestItem, revision: Int, by user: String, at time: Date) -> AuditEntry {
        AuditEntry(
            at: time, actor: user, action: .recordUpdate, subject: item.record.id.uuidString.lowercased(),
            details: ["revision": String(revision)])
    }
}

extension AuditEntry {
    /// A record's review changed, in the change's transaction: its state and lock, never the comment.
    public static func review(_ review: RecordReview, _ change: ReviewChange, at time: Date) -> AuditEntry {
        var details = ["state": change.state.rawValue, "locked": change.locked ? "1" : "0"]
        if !change.text.isEmpty { details["comment"] = "1" }
        return AuditEntry(
            at: time, actor: change.actor, action: .recordReview, subject: review.recordId.uuidString.lowercased(), details: details)
    }
}

extension AuditEntry {
    /// A record deleted, in the deletion's transaction. The reason stays in the tombstone, not
    /// here: it is free text and could name somebody.
    public static func recordDelete(_ tombstone: Tombstone) -> AuditEntry {
        AuditEntry(
            at: tombstone.deletedAt, actor: tombstone.deletedBy, action: .recordDelete, subject: tombstone.recordId.uuidString.lowercased(),
            details: ["team": String(tombstone.teamId), "revision": String(tombstone.revision)])
    }

    public static func tombstonePurge(_ purge: TombstonePurge, deletedBefore cutoff: Date, by user: String, at time: Date) -> AuditEntry {
        AuditEntry(
            at: time, actor: user, action: .tombstonePurge,
            details: ["deletedBefore": Timestamp.string(from: cutoff), "purged": String(purge.purged), "kept": String(purge.kept)])
    }
}

extension AuditEntry {
    /// A grant given or revoked, in its transaction: on the record, to whom, what, until when.
    public static func grant(_ grant: RecordGrant, revoked: Bool, by user: String, at time: Date) -> AuditEntry {
        var details = [
            "grant": grant.id.uuidString.lowercased(), "access": grant.access.rawValue,
            "expiresAt": Timestamp.string(from: grant.expiresAt),
        ]
        if let toUser = grant.toUser { details["toUser"] = toUser }
        if let toTeam = grant.toTeam { details["toTeam"] = toTeam }
        return AuditEntry(
            at: time, actor: user, action: revoked ? .grantRevoke : .grantCreate, subject: grant.recordId.uuidString.lowercased(),
            details: details)
    }
}

extension AuditEntry {
    /// A consent recorded: stored with it, in its transaction.
    public static func consentChange(_ consent: Consent) -> AuditEntry {
        AuditEntry(
            at: consent.recordedAt, actor: consent.recordedBy, action: .consentChange, subject: consent.patientId.uuidString.lowercased(),
            details: ["scope": consent.scope.rawValue, "method": consent.method.rawValue])
    }
}
