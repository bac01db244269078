import Foundation

/// What a store has read of a record in its transaction, for ``RecordRules`` to decide on.
public struct RecordStanding: Sendable, Equatable {
    public var teamId: Int64
    public var revision: Int
    /// Set when the record was deleted.
    public var tombstone: Tombstone?
    /// Its review: its state, whether an approval locked it, who reviewed it last.
    public var review: ReviewState
    public var locked: Bool
    public var reviewedBy: String?

    public init(
        teamId: Int64, revision: Int, tombstone: Tombstone? = nil, review: ReviewState = .received, locked: Bool = false,
        reviewedBy: String? = nil
    ) {
        self.teamId = teamId
        self.revision = revision
        self.tombstone = tombstone
        self.review = review
        self.locked = locked
        self.reviewedBy = reviewedBy
    }
}

/// What the store does with an edit: answer with an outcome, or save it as `revision`.
public enum RecordEditDecision: Sendable, Equatable {
    case refuse(UpdateOutcome)
    case save(revision: Int)
}

/// What the store does with a deletion: answer with an outcome, or delete.
public enum RecordDeletionDecision: Sendable, Equatable {
    case refuse(DeleteOutcome)
    case delete
}

/// The rules of editing and deleting a record, decided once for every store: each store reads
/// the record in its transaction (under its lock, so two edits take turns), asks here, and
/// writes what it says.
public enum RecordRules {
    /// An edit is saved as the next revision when the record is the team's, not deleted, and the
    /// edit was made on its current revision. Another team's record is not found (its existence
    /// is not told); a deleted one answers with its tombstone; an edit of an older revision is
    /// stale, naming the current one so the client can merge and send again. A record approved
    /// and locked by its reviewer is not edited until they reopen it. (What the edit does to the
    /// review is ``ReviewRules/edited(_:by:at:)``.)
    public static func edit(_ current: RecordStanding?, teamId: Int64, baseRevision: Int) -> RecordEditDecision {
        guard let current, current.teamId == teamId else { return .refuse(.notFound) }
        if let tombstone = current.tombstone { return .refuse(.deleted(tombstone)) }
        if current.locked { return .refuse(.locked) }
        guard current.revision == baseRevision else { return .refuse(.stale(currentRevision: current.revision)) }
        return .save(revision: current.revision + 1)
    }

    /// A record sent again whose id is stored already: another team's id is taken (not told
    /// whose); a deleted one answers with its tombstone; the same content as one of its revisions
    /// is a duplicate (the upload that was never acknowledged, sent again), other content a
    /// conflict to be sent as an edit.
    public static func resent(_ existing: RecordStanding, teamId: Int64, sameContent: () throws -> Bool) rethrows -> IngestOutcome {
        guard existing.teamId == teamId else { return .taken }
        if let tombstone = existing.tombstone { return .deleted(tombstone) }
        return try sameContent() ? .duplicate(revision: existing.revision) : .conflict(currentRevision: existing.revision)
    }

    /// A deletion goes ahead on a live record of the team; a second deletion answers with the
    /// first one's tombstone.
    public static func delete(_ current: RecordStanding?, teamId: Int64) -> RecordDeletionDecision {
        guard let current, current.teamId == teamId else { return .refuse(.notFound) }
        if let tombstone = current.tombstone { return .refuse(.alreadyDeleted(tombstone)) }
        return .delete
    }
}
