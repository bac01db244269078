import Foundation

/// Records' reviews: their state and lock (kept with the record, so an edit reads them in its own
/// transaction) and their threads.
public protocol ReviewStore: Sendable {
    /// The review of a record, deleted or not; nil when there is no such record.
    func review(recordId: UUID) async throws -> RecordReview?
    /// The thread, oldest first (empty once the record is deleted).
    func reviewEntries(recordId: UUID) async throws -> [ReviewEntry]
    /// Changes a record's review as `decide` says (``ReviewRules``: the store decides nothing), in
    /// one transaction taken in turn with edits of the record: reads the review, asks `decide`,
    /// writes the state, the lock, the thread entry, an audit event and the notifications it lists
    /// (never to its actor). `.notFound` without such a record.
    func changeReview(recordId: UUID, at time: Date, _ decide: @Sendable (RecordReview) -> ReviewDecision) async throws -> ReviewOutcome
    /// Live records' reviews matching the filter, the most recently changed first.
    func reviews(_ filter: ReviewFilter) async throws -> [RecordReview]
    /// How many live records match the filter, whatever its page (`limit`, `offset`).
    func reviewCount(_ filter: ReviewFilter) async throws -> Int
    /// How many live records the server received each day (UTC) since `since`, per questionnaire
    /// and collector: of one team, or of every team when nil. Oldest day first.
    func recordActivity(teamId: Int64?, since: Date) async throws -> [RecordActivity]
}

/// Records received on one day (UTC), of one questionnaire, by one collector.
public struct RecordActivity: Sendable, Hashable {
    /// `2026-11-26`.
    public var day: String
    public var questionnaireId: String
    public var collector: String
    public var count: Int

    public init(day: String, questionnaireId: String, collector: String, count: Int) {
        self.day = day
        self.questionnaireId = questionnaireId
        self.collector = collector
        self.count = count
    }
}
