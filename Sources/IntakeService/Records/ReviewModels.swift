import Foundation

/// Where a record stands in review. Every record starts `received`; a reviewer (a coordinator of
/// its team, or an admin) says it `has_issues`, is `approved` or `rejected`; an edit made after a
/// review marks it `edited`, for the reviewer to look again.
public enum ReviewState: String, Sendable, Codable, CaseIterable {
    case received
    case hasIssues = "has_issues"
    case edited
    case approved
    case rejected

    /// The states a reviewer sets (`received` and `edited` are the server's to set).
    public static let decided: [ReviewState] = [.hasIssues, .approved, .rejected]

    /// Whether someone has reviewed the record since it was received or last edited.
    public var isReviewed: Bool { self == .hasIssues || self == .approved || self == .rejected }
}

/// A record's review: its state, whether it is locked against edits, and who last decided it.
public struct RecordReview: Sendable, Hashable {
    public var recordId: UUID
    public var teamId: Int64
    public var questionnaireId: String
    public var questionnaireVersion: String
    public var collector: String
    public var state: ReviewState
    /// An approved record may be locked: edits are refused until a reviewer reopens it.
    public var locked: Bool
    /// When, and by whom, the state was last set by a reviewer; nil while nobody has.
    public var reviewedAt: Date?
    public var reviewedBy: String?
    /// When the record itself was last changed.
    public var updatedAt: Date
    public var deleted: Bool

    package init(
        recordId: UUID, teamId: Int64, questionnaireId: String, questionnaireVersion: String, collector: String, state: ReviewState,
        locked: Bool, reviewedAt: Date?, reviewedBy: String?, updatedAt: Date, deleted: Bool
    ) {
        self.recordId = recordId
        self.teamId = teamId
        self.questionnaireId = questionnaireId
        self.questionnaireVersion = questionnaireVersion
        self.collector = collector
        self.state = state
        self.locked = locked
        self.reviewedAt = reviewedAt
        self.reviewedBy = reviewedBy
        self.updatedAt = updatedAt
        self.deleted = deleted
    }
}

/// One entry of a record's review thread: a comment, a state set, a lock or an unlock (or
/// several at once). The thread only grows, and goes with the record when it is deleted.
public struct ReviewEntry: Sendable, Hashable {
    public var id: Int64
    public var recordId: UUID
    public var author: String
    /// The state this entry set, if it set one.
    public var state: ReviewState?
    /// true when this entry locked the record, false when it unlocked it, nil when neither.
    public var locked: Bool?
    /// Empty when the entry says nothing more than its state.
    public var text: String
    public var at: Date

    package init(id: Int64, recordId: UUID, author: String, state: ReviewState?, locked: Bool?, text: String, at: Date) {
        self.id = id
        self.recordId = recordId
        self.author = author
        self.state = state
        self.locked = locked
        self.text = text
        self.at = at
    }
}

/// What someone asks of a record's review.
public enum ReviewRequest: Sendable, Equatable {
    /// Set a reviewer's state (has issues, approved, rejected); `lock` an approved record against edits.
    case decide(ReviewState, lock: Bool)
    /// Unlock an approved record so it can be edited again (its state stays until an edit).
    case reopen
    /// Add to the thread only.
    case comment
}

/// Which reviews to list.
public struct ReviewFilter: Sendable {
    /// nil for every team's records (an admin's list).
    public var teamId: Int64?
    /// Any of these states; every state when empty.
    public var states: [ReviewState]
    public var questionnaireId: String?
    /// Only records this user collected.
    public var collector: String?
    /// Only records of this version (of `questionnaireId`, or of any questionnaire).
    public var questionnaireVersion: String?
    /// Only records last changed at or after this time, and before that one.
    public var changedFrom: Date?
    public var changedBefore: Date?
    public var limit: Int
    /// How many of the list, in its order, come before the page.
    public var offset: Int
    /// Only the records of this registry patient.
    public var patientId: UUID?

    public init(
        teamId: Int64?, states: [ReviewState] = [], questionnaireId: String? = nil, collector: String? = nil,
        questionnaireVersion: String? = nil,
        changedFrom: Date? = nil, changedBefore: Date? = nil, limit: Int = 100, offset: Int = 0
    ) {
        self.offset = offset
        self.questionnaireVersion = questionnaireVersion
        self.changedFrom = changedFrom
        self.changedBefore = changedBefore
        self.teamId = teamId
        self.states = states
        self.questionnaireId = questionnaireId
        self.collector = collector
        self.limit = limit
    }
}

public enum ReviewOutcome: Sendable, Equatable {
    case reviewed(RecordReview, ReviewEntry)
    case notFound
    /// The record was deleted.
    case deleted
    /// The request does not fit the review as it is: a code and a message saying why.
    case refused(code: String, message: String)
}

/// One notification a review change leaves (the store writes it in the same transaction).
public struct ReviewNotice: Sendable, Equatable {
    public var to: String
    public var type: String
    /// Unique per recipient: `review:<record id>:` and this.
    public var event: String

    public init(to: String, type: String, event: String) {
        self.to = to
        self.type = type
        self.event = event
    }
}

/// What becomes of a review: the record's new state and lock, the thread entry, who is told.
public struct ReviewChange: Sendable, Equatable {
    public var state: ReviewState
    public var locked: Bool
    /// Whether this is a reviewer's decision (it then becomes the review's `reviewedAt` and `reviewedBy`).
    public var decided: Bool
    public var entryState: ReviewState?
    public var entryLocked: Bool?
    public var text: String
    public var notices: [ReviewNotice]
    public var actor: String
}

public enum ReviewDecision: Sendable, Equatable {
    case refuse(ReviewOutcome)
    case change(ReviewChange)
}
