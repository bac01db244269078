import Foundation

/// One entry of a team's change feed (`GET /v1/changes`): a record as it is now, or its
/// deletion, at the team's change cursor of its latest change.
public struct RecordChange: Sendable {
    public var id: UUID
    /// The team's change cursor of this change: a later change of the same record comes again
    /// with a larger one.
    public var cursor: Int64
    public var kind: Kind

    public enum Kind: Sendable {
        case saved(StoredRecord)
        case deleted(Tombstone)
        /// Moved to another team: out of this team's reach.
        case transferred(toTeamId: Int64)
    }

    package init(id: UUID, cursor: Int64, kind: Kind) {
        self.id = id
        self.cursor = cursor
        self.kind = kind
    }
}

/// A page of a team's change feed, read in one transaction.
public struct ChangePage: Sendable {
    /// Oldest change first.
    public var changes: [RecordChange]
    /// Deletions up to this cursor may have been purged: a reader that stopped before it may
    /// have missed some, and must start again from 0 (0 when nothing was ever purged).
    public var horizon: Int64

    package init(changes: [RecordChange], horizon: Int64) {
        self.changes = changes
        self.horizon = horizon
    }
}
