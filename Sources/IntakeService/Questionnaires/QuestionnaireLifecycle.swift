import Foundation
import IntakeCore

/// Where a questionnaire version stands in its life on the server.
public enum QuestionnaireState: String, Sendable, Codable, CaseIterable {
    /// Being prepared: managers see and try it; records on it are refused until it is published.
    case draft
    /// Open: field machines fill it and the server takes its records.
    case published
    /// No new records: those filled on it before it closed are still taken (late uploads), and
    /// edits of its records.
    case closed
    /// Records on it are refused, naming the version to move them to.
    case retired
}

/// The rules of a questionnaire version's life: which changes of state are allowed, and which
/// records a version in each state takes. The stores only keep the state.
public enum QuestionnaireLifecycle {
    /// Whether a version may go from `from` to `to`: a draft is published; a published version
    /// closes (and reopens) or retires; a retired one may come back as closed, to take late
    /// uploads again. Nothing goes back to draft: its records may already exist.
    public static func allows(_ from: QuestionnaireState, to: QuestionnaireState) -> Bool {
        switch (from, to) {
        case (.draft, .published), (.published, .closed), (.closed, .published), (.published, .retired), (.closed, .retired),
            (.retired, .closed):
            true
        default: false
        }
    }

    /// Why a version in `status` refuses `record`, or nil when it takes it. `isEdit`: the record
    /// is already on the server (an edit keeps its version's records workable while it is closed).
    /// `current`: the newest published version of the same questionnaire, to move to.
    public static func refusal(
        of record: PatientResponse, status: QuestionnaireStatus, isEdit: Bool, current: String?
    ) -> (code: String, message: String)? {
        let reference = record.questionnaire
        let moveTo =
            current.map { "new records use version \($0); a coordinator can close this version again to take records filled on it" }
            ?? "no version of \(reference.id) is published now; ask a coordinator"
        switch status.state {
        case .published: return nil
        case .draft:
            return (
                "questionnaire_draft",
                "questionnaire \(reference) is a draft, not published yet; records on it are refused until a coordinator publishes it"
            )
        case .closed:
            // Filled before it closed: a late upload, taken. Started after: refused.
            guard !isEdit, let closedAt = status.changedAt, record.createdAt > closedAt else { return nil }
            return (
                "questionnaire_closed",
                "questionnaire \(reference) was closed to new records on \(Timestamp.string(from: closedAt)); \(moveTo)"
            )
        case .retired:
            return ("questionnaire_retired", "questionnaire \(reference) is retired and takes no records; \(moveTo)")
        }
    }
}

/// A version's state, when it last changed and by whom.
public struct QuestionnaireStatus: Sendable, Hashable, Codable {
    public var state: QuestionnaireState
    public var changedAt: Date?
    public var changedBy: String?

    public init(state: QuestionnaireState, changedAt: Date? = nil, changedBy: String? = nil) {
        self.state = state
        self.changedAt = changedAt
        self.changedBy = changedBy
    }
}
