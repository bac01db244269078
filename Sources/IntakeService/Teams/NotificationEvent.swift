import Foundation
import IntakeCore

/// What each notification says and under which event key, made here once for every store. A
/// recipient gets at most one notification per key, so a change retried after a crash never
/// tells anyone twice.
///
/// Subjects hold ids and names only: never a referral's reason, an announcement's audience's
/// answers or a record's content.
public enum NotificationEvent {
    static func lower(_ id: UUID) -> String { id.uuidString.lowercased() }

    /// `event` says what happened (`created`, `accepted:<time>`, `message:<id>`, …).
    public static func referral(_ id: UUID, _ event: String) -> String { "referral:\(lower(id)):\(event)" }

    /// What every event key of one referral (or invitation) starts with.
    public static func referralPrefix(_ id: UUID) -> String { "referral:\(lower(id)):" }
    public static func invitationPrefix(_ id: UUID) -> String { "invitation:\(lower(id)):" }

    /// One event of a team's membership history.
    public static func membership(_ eventId: Int64) -> String { "membership:\(eventId)" }

    /// `event` is `created`, `accepted` or the state a decision left (`declined`, `revoked`, `confirmed`).
    public static func invitation(_ id: UUID, _ event: String) -> String { "invitation:\(lower(id)):\(event)" }

    public static func announcement(_ id: Int64) -> String { "announcement:\(id)" }

    /// A case overdue, once per due date (a new due date is told again).
    public static func caseOverdue(_ id: UUID, due: LocalDate) -> String { "case-overdue:\(lower(id)):\(due)" }

    /// A team's overdue cases, once a day (in the team's time zone).
    public static func casesOverdue(teamId: Int64, on day: LocalDate) -> String { "cases-overdue:\(teamId):\(day)" }

    /// One transfer, told to the coordinators of both teams.
    public static func transfer(_ id: UUID) -> String { "transfer:\(lower(id))" }

    /// One event of a record's review (`has_issues:<time>`, `comment:<time>`, `edited:<revision>`, …).
    public static func review(_ recordId: UUID, _ event: String) -> String { "review:\(lower(recordId)):\(event)" }

    /// What every event key of one record's review starts with.
    public static func reviewPrefix(_ recordId: UUID) -> String { "review:\(lower(recordId)):" }

    /// Ids and names only: the record, its questionnaire, the state, who acted; never the comment.
    public static func subject(_ review: RecordReview, by actor: String) -> [String: String] {
        [
            "record": lower(review.recordId), "questionnaire": review.questionnaireId, "version": review.questionnaireVersion,
            "state": review.state.rawValue, "by": actor,
        ]
    }

    public static func subject(_ referral: Referral, by actor: String) -> [String: String] {
        [
            "referral": lower(referral.id), "record": lower(referral.recordId), "fromTeam": referral.fromTeam, "toTeam": referral.toTeam,
            "priority": referral.priority.rawValue, "by": actor,
        ]
    }

    public static func subject(_ invitation: Invitation) -> [String: String] {
        ["invitation": lower(invitation.id), "team": invitation.teamName, "invitee": invitation.invitee, "invitedBy": invitation.invitedBy]
    }
}
