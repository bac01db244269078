import Foundation

/// Records' review: who may see and change it (``RecordAccessPolicy``, action `.review`), what a
/// change does (``ReviewRules``), and telling the stream of the notifications it leaves.
public struct ReviewService: Sendable {
    public typealias Store = ReviewStore & TeamStore
    let store: any Store
    let access: RecordAccessService
    let hub: NotificationHub
    let clock: @Sendable () -> Date

    public init(store: any Store, access: RecordAccessService, hub: NotificationHub, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.access = access
        self.hub = hub
        self.clock = clock
    }

    /// Admins review any team's records (without reading them otherwise); everyone else reads a
    /// review where they may read the record.
    private func readable(_ id: UUID, by user: User) async throws {
        _ = try await access.record(id, for: .readReview, by: user)
    }

    /// The record's review and its thread, oldest entry first.
    public func review(_ id: UUID, by user: User) async throws -> (RecordReview, [ReviewEntry]) {
        try await readable(id, by: user)
        guard let review = try await store.review(recordId: id), !review.deleted else {
            throw try await access.missing(id, for: .readReview, by: user)
        }
        return (review, try await store.reviewEntries(recordId: id))
    }

    /// Sets a reviewer's state (`has_issues`, `approved`, `rejected`), locking an approved record
    /// when asked, with an optional comment. The review as it is now, with its thread.
    public func decide(_ id: UUID, state: ReviewState, lock: Bool, comment: String?, by user: User) async throws -> (
        RecordReview, [ReviewEntry]
    ) {
        let text = try Self.text(comment, required: false)
        guard ReviewState.decided.contains(state) else {
            throw ServiceError.refused(
                "invalid_review_state",
                "a reviewer sets \(ReviewState.decided.map(\.rawValue).joined(separator: ", ")); \(state.rawValue) is the server's to set")
        }
        guard !lock || state == .approved else {
            throw ServiceError.refused("invalid_lock", "only an approved record is locked: give state approved with lock")
        }
        _ = try await access.record(id, for: .review, by: user)
        let (review, _) = try await change(id, .decide(state, lock: lock), text: text, by: user)
        return (review, try await store.reviewEntries(recordId: id))
    }

    /// Unlocks an approved, locked record so it can be edited again. The review as it is now, with its thread.
    public func reopen(_ id: UUID, comment: String?, by user: User) async throws -> (RecordReview, [ReviewEntry]) {
        let text = try Self.text(comment, required: false)
        _ = try await access.record(id, for: .review, by: user)
        let (review, _) = try await change(id, .reopen, text: text, by: user)
        return (review, try await store.reviewEntries(recordId: id))
    }

    /// Adds a comment to the thread: whoever may read the record (its collector answering a
    /// reviewer, say) or review it.
    public func comment(_ id: UUID, text: String, by user: User) async throws -> (RecordReview, ReviewEntry) {
        let text = try Self.text(text, required: true)
        try await readable(id, by: user)
        return try await change(id, .comment, text: text, by: user)
    }

    /// Live records by review state, the most recently changed first: an admin's of every team; a
    /// coordinator's of their team; a field worker's own records.
    public func list(
        by user: User, states: [ReviewState], questionnaireId: String?, collector: String?, version: String? = nil,
        changedFrom: Date? = nil,
        changedBefore: Date? = nil, limit: Int
    ) async throws -> [RecordReview] {
        try await page(
            by: user, states: states, questionnaireId: questionnaireId, collector: collector, version: version, changedFrom: changedFrom,
            changedBefore: changedBefore, limit: limit, offset: 0, counted: false
        ).reviews
    }

    /// A page of the list `user` may see (the most recently changed first), `offset` in, and how
    /// many the whole list holds when `counted`.
    public func page(
        by user: User, states: [ReviewState], questionnaireId: String?, collector: String?, version: String? = nil,
        changedFrom: Date? = nil,
        changedBefore: Date? = nil, limit: Int, offset: Int, counted: Bool = true, patientId: UUID? = nil
    ) async throws -> (reviews: [RecordReview], total: Int?) {
        var filter = ReviewFilter(
            teamId: user.teamId, states: states, questionnaireId: questionnaireId, collector: collector, questionnaireVersion: version,
            changedFrom: changedFrom, changedBefore: changedBefore, limit: limit, offset: offset)
        filter.patientId = patientId
        switch user.role {
        case .admin: filter.teamId = nil
        case .coordinator:
            guard user.teamId != nil else { return ([], counted ? 0 : nil) }
        case .fieldworker:
            guard user.teamId != nil else { return ([], counted ? 0 : nil) }
            filter.collector = user.username
        case .researcher:
            throw ServiceError.forbidden("reviews are for coordinators, admins and the records' collectors")
        }
        return (try await store.reviews(filter), counted ? try await store.reviewCount(filter) : nil)
    }

    /// The records received on each of the last `days` days (UTC, today included), per
    /// questionnaire and collector: a coordinator's team's, every team's for an admin.
    public func activity(for user: User, days: Int) async throws -> [RecordActivity] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let since = calendar.date(byAdding: .day, value: -(max(1, days) - 1), to: calendar.startOfDay(for: clock()))!
        switch user.role {
        case .admin: return try await store.recordActivity(teamId: nil, since: since)
        case .coordinator:
            guard let team = user.teamId else { return [] }
            return try await store.recordActivity(teamId: team, since: since)
        case .fieldworker, .researcher:
            throw ServiceError.forbidden("a team's activity is for its coordinators and admins")
        }
    }

    private func change(_ id: UUID, _ request: ReviewRequest, text: String, by user: User) async throws -> (RecordReview, ReviewEntry) {
        defer { hub.notify() }
        switch try await store.review(id, request, text: text, by: user.username, at: clock()) {
        case .reviewed(let review, let entry):
            _ = try? await store.markNotificationsRead(userId: user.id, eventPrefix: NotificationEvent.reviewPrefix(id), at: clock())
            return (review, entry)
        case .notFound: throw ServiceError.noRecord(id)
        case .deleted: throw try await access.missing(id, for: .readReview, by: user)
        case .refused(let code, let message): throw ServiceError.conflict(code, message)
        }
    }

    static func text(_ text: String?, required: Bool) throws -> String {
        let text = (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if required && text.isEmpty || text.unicodeScalars.count > ReviewRules.maxTextLength {
            throw ServiceError.refused(
                "invalid_comment",
                required
                    ? "a comment has 1 to \(ReviewRules.maxTextLength) characters"
                    : "a comment has at most \(ReviewRules.maxTextLength) characters")
        }
        return text
    }
}
