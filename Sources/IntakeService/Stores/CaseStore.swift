import Foundation
import IntakeCore

/// Where the server keeps cases (``StoredCase``). The store decides nothing: the case service
/// folds each case (``CaseFold``) and says what to write; the store writes it in one transaction,
/// gives each written case the next case change sequence (in commit order: a reader following
/// the sequence passes no case written after it read), and answers the pull's queries.
public protocol CaseStore: Sendable {
    /// How far the team's change feed has been read into its cases (0 before any).
    func caseCursor(teamId: Int64) async throws -> Int64
    /// The team's change feed after `after` (up to `limit` changes, in feed order) as the case
    /// service reads it: what each change does to cases, without the records' bodies.
    func caseFeed(teamId: Int64, after: Int64, limit: Int) async throws -> [CaseFeedEntry]
    /// In one transaction: when the team's case cursor is still `from`, reads the cases `ids`
    /// names (those that exist), writes the cases `decide` returns (a case it returns unchanged
    /// is written too) and moves the cursor to `to`. False, writing nothing, when the cursor
    /// was elsewhere: another server read those changes first.
    func advanceCases(
        teamId: Int64, from: Int64, to: Int64, reading ids: Set<UUID>, at time: Date,
        _ decide: @Sendable ([UUID: StoredCase]) -> [StoredCase]
    ) async throws -> Bool
    /// Writes a case no record opened (one made through the ODK façade), with the next change
    /// sequence; false, writing nothing, when a case has its id.
    func insertCase(_ stored: StoredCase, at time: Date) async throws -> Bool
    /// The case, open or closed.
    func storedCase(id: UUID) async throws -> StoredCase?
    /// Changes one case in one transaction as `decide` says (nil: no change); the case written
    /// takes the next change sequence. Nil when the team has no such case.
    func changeCase(id: UUID, teamId: Int64, at time: Date, _ decide: @Sendable (StoredCase) -> StoredCase?) async throws
        -> StoredCase?
    /// The team's open cases that `visibleTo` follows (assigned to them, or to nobody; every
    /// open case when nil), changed after `changedAfter`, in change order.
    func openCases(teamId: Int64, visibleTo username: String?, changedAfter: Int64, limit: Int) async throws -> [StoredCase]
    /// The ids of those cases, whatever their change: what a machine keeps (it drops the others).
    func openCaseIds(teamId: Int64, visibleTo username: String?) async throws -> [UUID]
    /// The team's cases of every status, in change order after `changedAfter` (a coordinator's view).
    func teamCases(teamId: Int64, changedAfter: Int64, limit: Int) async throws -> [StoredCase]
    /// Up to `limit` of the team's open cases `visibleTo` follows (as ``openCases(teamId:visibleTo:changedAfter:limit:)``),
    /// soonest due first (those without a due date last, in change order): the console's list.
    func openCasesByDue(teamId: Int64, visibleTo username: String?, limit: Int) async throws -> [StoredCase]
    /// How many of those there are: open, due before `today`, due on it, and left to the team.
    func caseCounts(teamId: Int64, visibleTo username: String?, today: LocalDate) async throws -> CaseCounts
    /// Stores the notices, each for its user (an account that no longer exists gets none), each
    /// once per user and event key, in one transaction; how many were new.
    func notifyAboutCases(_ notices: [CaseNotice], at time: Date) async throws -> Int
}

/// A notification the case service sends (``CaseService/notifyOverdue(at:)``).
public struct CaseNotice: Sendable, Equatable {
    public var username: String
    public var type: String
    public var eventKey: String
    /// Ids and names only (``NotificationSubject``).
    public var subject: [String: String]

    public init(username: String, type: String, eventKey: String, subject: [String: String]) {
        self.username = username
        self.type = type
        self.eventKey = eventKey
        self.subject = subject
    }
}

/// How many open cases a team (or a field worker) has, by what they need (the team's day).
public struct CaseCounts: Sendable, Equatable {
    public var open: Int
    public var overdue: Int
    public var dueToday: Int
    public var unassigned: Int

    public init(open: Int, overdue: Int, dueToday: Int, unassigned: Int) {
        self.open = open
        self.overdue = overdue
        self.dueToday = dueToday
        self.unassigned = unassigned
    }
}

/// One change of a team's feed as the case service reads it (``CaseStore/caseFeed(teamId:after:limit:)``).
public struct CaseFeedEntry: Sendable, Equatable {
    public var cursor: Int64
    public var recordId: UUID
    public var kind: Kind

    public enum Kind: Sendable, Equatable {
        /// Stored (created, edited, or moved in its feed by another change), with the case work
        /// its row keeps (``IngestItem/caseWork``; nil: none).
        case saved(caseWork: String?)
        /// Deleted; `followedCase`: the case it was a visit of (its `case.id`), when it named one.
        case deleted(followedCase: UUID?)
        /// Moved to another team: out of this team's reach.
        case transferred(followedCase: UUID?)
    }

    public init(cursor: Int64, recordId: UUID, kind: Kind) {
        self.cursor = cursor
        self.recordId = recordId
        self.kind = kind
    }
}
