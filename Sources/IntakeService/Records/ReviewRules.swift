import Foundation

/// The review workflow, decided once for every store: each store reads the record's review in its
/// transaction (under the lock edits take, so an edit and a lock take turns), asks here, and
/// writes what it says. Who may ask is the service's to check first (``RecordAccessPolicy``).
public enum ReviewRules {
    public static let maxTextLength = 2000

    static func stamp(_ time: Date) -> String { String(format: "%.3f", time.timeIntervalSince1970) }

    /// The notification type a reviewer's state leaves for the collector, if any.
    static func noticeType(_ state: ReviewState) -> String? {
        switch state {
        case .hasIssues: NotificationType.reviewHasIssues
        case .rejected: NotificationType.reviewRejected
        default: nil
        }
    }

    public static func decide(_ request: ReviewRequest, on current: RecordReview, text: String, by actor: String, at time: Date)
        -> ReviewDecision
    {
        if current.deleted { return .refuse(.deleted) }
        switch request {
        case .decide(let state, let lock):
            guard ReviewState.decided.contains(state) else {
                return .refuse(
                    .refused(code: "review_state", message: "a reviewer sets has_issues, approved or rejected, not \(state.rawValue)"))
            }
            guard !lock || state == .approved else {
                return .refuse(.refused(code: "review_lock", message: "only an approved record is locked; approve it to lock it"))
            }
            if current.locked && state != .approved {
                return .refuse(
                    .refused(code: "record_locked", message: "the record is approved and locked; reopen it before changing its review"))
            }
            let locked = state == .approved && (lock || current.locked)
            var notices: [ReviewNotice] = []
            if let type = noticeType(state), current.collector != actor, !current.collector.isEmpty {
                notices.append(ReviewNotice(to: current.collector, type: type, event: "\(state.rawValue):\(stamp(time))"))
            }
            return .change(
                ReviewChange(
                    state: state, locked: locked, decided: true, entryState: state, entryLocked: locked != current.locked ? locked : nil,
                    text: text, notices: notices, actor: actor))
        case .reopen:
            guard current.locked else {
                return .refuse(.refused(code: "review_not_locked", message: "the record is not locked; there is nothing to reopen"))
            }
            return .change(
                ReviewChange(
                    state: current.state, locked: false, decided: false, entryState: nil, entryLocked: false, text: text,
                    notices: collectorNotice(
                        current, type: NotificationType.reviewReopened, event: "reopened:\(stamp(time))", actor: actor),
                    actor: actor))
        case .comment:
            guard !text.isEmpty else { return .refuse(.refused(code: "review_comment", message: "a comment needs text")) }
            // The other side hears of it: the collector of a reviewer's comment, the last
            // reviewer of the collector's.
            var notices: [ReviewNotice] = []
            let event = "comment:\(stamp(time))"
            if actor == current.collector {
                if let reviewer = current.reviewedBy, reviewer != actor {
                    notices.append(ReviewNotice(to: reviewer, type: NotificationType.reviewComment, event: event))
                }
            } else {
                notices = collectorNotice(current, type: NotificationType.reviewComment, event: event, actor: actor)
            }
            return .change(
                ReviewChange(
                    state: current.state, locked: current.locked, decided: false, entryState: nil, entryLocked: nil, text: text,
                    notices: notices, actor: actor))
        }
    }

    private static func collectorNotice(_ current: RecordReview, type: String, event: String, actor: String) -> [ReviewNotice] {
        guard current.collector != actor, !current.collector.isEmpty else { return [] }
        return [ReviewNotice(to: current.collector, type: type, event: event)]
    }

    /// What an edit saved on a reviewed record does to its review: it becomes `edited`, the thread
    /// says who edited it, and the last reviewer (not the editor) is told. nil when the record was
    /// not reviewed since it was received or last edited.
    public static func edited(_ standing: RecordStanding, by editor: String, at time: Date) -> ReviewChange? {
        guard standing.review.isReviewed else { return nil }
        var notices: [ReviewNotice] = []
        if let reviewer = standing.reviewedBy, reviewer != editor {
            notices.append(ReviewNotice(to: reviewer, type: NotificationType.reviewEdited, event: "edited:\(standing.revision + 1)"))
        }
        return ReviewChange(
            state: .edited, locked: false, decided: false, entryState: .edited, entryLocked: nil, text: "", notices: notices, actor: editor)
    }
}

extension ReviewStore {
    /// Asks ``ReviewRules/decide(_:on:text:by:at:)`` in the store's transaction.
    public func review(_ recordId: UUID, _ request: ReviewRequest, text: String, by actor: String, at time: Date) async throws
        -> ReviewOutcome
    {
        try await changeReview(recordId: recordId, at: time) { ReviewRules.decide(request, on: $0, text: text, by: actor, at: time) }
    }
}
