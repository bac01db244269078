import Foundation

/// What stays of a deleted record: its id, team and questionnaire, and who deleted it, when and
/// why. Its answers, identification and revisions are gone with the deletion.
public struct Tombstone: Sendable, Hashable {
    public var recordId: UUID
    public var teamId: Int64
    public var questionnaireId: String
    /// The revision the record was at when it was deleted.
    public var revision: Int
    public var deletedAt: Date
    public var deletedBy: String
    public var reason: String

    package init(recordId: UUID, teamId: Int64, questionnaireId: String, revision: Int, deletedAt: Date, deletedBy: String, reason: String)
    {
        self.recordId = recordId
        self.teamId = teamId
        self.questionnaireId = questionnaireId
        self.revision = revision
        self.deletedAt = deletedAt
        self.deletedBy = deletedBy
        self.reason = reason
    }
}

public enum DeleteOutcome: Sendable, Equatable {
    case deleted(Tombstone)
    /// Somebody deleted it first: their tombstone.
    case alreadyDeleted(Tombstone)
    /// No record of the team has this id.
    case notFound
}

/// What a purge of old tombstones did.
public struct TombstonePurge: Sendable, Hashable {
    /// Tombstones removed.
    public var purged: Int
    /// Tombstones old enough that stay: the newest change of their team (or of the deployment),
    /// which the change cursors count from, or one a referral still points to. A later purge
    /// takes them once newer changes pass them or the referral goes.
    public var kept: Int

    package init(purged: Int, kept: Int) {
        self.purged = purged
        self.kept = kept
    }
}
