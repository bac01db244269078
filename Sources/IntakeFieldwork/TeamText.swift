import Foundation
import IntakeClient

/// What the team, invitation and inbox commands print: tables and sentences, never patient data
/// (notifications carry none).
public enum TeamText {
    public static func members(_ members: [RemoteMember], team: String) -> [String] {
        guard !members.isEmpty else { return ["'\(team)' has no members."] }
        return [TextTable.row("USER", "ROLE", "SINCE", widths: [24, 12])]
            + members.map { TextTable.row($0.username, $0.role, day($0.since), widths: [24, 12]) }
    }

    public static func history(_ events: [RemoteMembershipEvent]) -> [String] {
        guard !events.isEmpty else { return ["No membership changes yet."] }
        return [TextTable.row("WHEN", "USER", "CHANGE", "BY", widths: [17, 24, 26])]
            + events.map {
                let change = $0.event == "left" ? "left" : "\($0.event.replacingOccurrences(of: "_", with: " ")) as \($0.role ?? "?")"
                return TextTable.row(minute($0.at), $0.username, change, $0.by, widths: [17, 24, 26])
            }
    }

    public static func invitations(_ invitations: [RemoteInvitation]) -> [String] {
        guard !invitations.isEmpty else { return ["No invitations."] }
        return [TextTable.row("ID", "TEAM", "INVITEE", "ROLE", "STATE", "EXPIRES", widths: [9, 16, 20, 12, 10])]
            + invitations.flatMap { invitation -> [String] in
                let row = TextTable.row(
                    String(invitation.id.prefix(8)), invitation.team, invitation.invitee, invitation.role, invitation.state, minute(invitation.expiresAt),
                    widths: [9, 16, 20, 12, 10])
                return [row] + (invitation.message.map { ["          \(invitation.invitedBy): \($0)"] } ?? [])
            }
    }

    /// What to tell the coordinator who just invited someone.
    public static func issued(_ invitation: RemoteInvitation, passcode: String) -> [String] {
        [
            "Invited \(invitation.invitee) to '\(invitation.team)' as \(invitation.role) (invitation \(invitation.id)).",
            "Passcode: \(passcode)",
            "Give the passcode to \(invitation.invitee) in person or by phone; it is shown only now.",
            "They accept with 'intake invitation accept \(invitation.id.prefix(8))'; then confirm with 'intake invitation confirm \(invitation.id.prefix(8))'.",
            "It expires \(minute(invitation.expiresAt)) UTC and locks after 5 wrong passcodes.",
        ]
    }

    /// One line per notification, newest last: when, what happened, in words.
    /// `alertMessage` gives an alert's message from a copy of its questionnaire on this machine
    /// (questionnaire id, version, alert number), when there is one: the server sends ids only.
    public static func inbox(
        _ notifications: [RemoteNotification], alertMessage: (String, String, String) -> String? = { _, _, _ in nil }
    ) -> [String] {
        guard !notifications.isEmpty else { return ["Nothing new."] }
        return notifications.map { "\($0.read ? " " : "*") \(minute($0.createdAt))  \(describe($0, alertMessage: alertMessage))" }
    }

    public static func describe(
        _ notification: RemoteNotification, alertMessage: (String, String, String) -> String? = { _, _, _ in nil }
    ) -> String {
        let s = notification.subject
        let team = s["team"].map { "'\($0)'" } ?? "a team"
        let invitation = s["invitation"].map { String($0.prefix(8)) } ?? ""
        switch notification.type {
        case "invitation_received":
            return "\(s["invitedBy"] ?? "A coordinator") invited you to \(team) (invitation \(invitation)); accept with 'intake invitation accept \(invitation)'."
        case "invitation_accepted":
            return "\(s["invitee"] ?? "Someone") accepted the invitation to \(team); confirm with 'intake invitation confirm \(invitation)'."
        case "invitation_confirmed": return "You are now a member of \(team)."
        case "invitation_declined": return "\(s["invitee"] ?? "Someone") declined the invitation to \(team)."
        case "invitation_revoked": return "Your invitation to \(team) was revoked by a coordinator."
        case "announcement":
            return "\(s["by"] ?? "A coordinator") to \(s["team"].map { "'\($0)'" } ?? "everyone"): \(s["text"] ?? "")"
        case "referral_received":
            return "\(s["by"] ?? "Someone") of '\(s["fromTeam"] ?? "?")' referred a patient to \(s["toTeam"].map { "'\($0)'" } ?? "you") (\(s["priority"] ?? "routine"); referral \(s["referral"].map { String($0.prefix(8)) } ?? ""))."
        case "referral_accepted", "referral_declined", "referral_completed", "referral_withdrawn":
            let verb = notification.type == "referral_withdrawn" ? "withdrew" : notification.type.replacingOccurrences(of: "referral_", with: "")
            return "\(s["by"] ?? "Someone") \(verb) the referral \(s["referral"].map { String($0.prefix(8)) } ?? "")."
        case "referral_reassigned":
            return "\(s["by"] ?? "A coordinator") gave you the referral \(s["referral"].map { String($0.prefix(8)) } ?? "") from '\(s["fromTeam"] ?? "?")'."
        case "referral_unassigned":
            return "\(s["by"] ?? "A coordinator") gave the referral \(s["referral"].map { String($0.prefix(8)) } ?? "") to someone else; it is no longer yours."
        case "referral_retargeted":
            return "\(s["by"] ?? "The referrer") sent the referral \(s["referral"].map { String($0.prefix(8)) } ?? "") elsewhere; it is no longer \(s["toTeam"] == nil ? "yours" : "for you")."
        case "referral_message":
            return "\(s["by"] ?? "Someone") wrote on the referral \(s["referral"].map { String($0.prefix(8)) } ?? "")."
        case "record_alert":
            // Ids only: the message is the questionnaire's, the answers stay in the record.
            let record = s["recordId"].map { String($0.prefix(8)) } ?? ""
            let message = s["questionnaireId"].flatMap { id in
                s["questionnaireVersion"].flatMap { version in s["alert"].flatMap { alertMessage(id, version, $0) } }
            }
            return "ALERT \(s["alert"] ?? "?") of \(s["questionnaireId"] ?? "a questionnaire") (record \(record))"
                + (message.map { ": \($0)" } ?? ": open the record to act on it (this machine lacks that questionnaire version for the alert's message).")
        case "review_has_issues", "review_rejected", "review_reopened", "review_comment", "review_edited":
            // Ids only: the comment stays in the record's thread ('intake review show').
            let record = s["record"].map { String($0.prefix(8)) } ?? ""
            let by = s["by"] ?? "Someone"
            let show = "see 'intake review show \(record)'"
            switch notification.type {
            case "review_has_issues": return "\(by) says your record \(record) (\(s["questionnaire"] ?? "?")) has issues; \(show)."
            case "review_rejected": return "\(by) rejected your record \(record) (\(s["questionnaire"] ?? "?")); \(show)."
            case "review_reopened": return "\(by) reopened your record \(record): it can be edited again."
            case "review_comment": return "\(by) wrote on the review of record \(record); \(show)."
            default: return "\(by) edited record \(record), which you reviewed; \(show)."
            }
        case "membership_changed":
            if s["change"] == "removed" { return "\(s["by"] ?? "A coordinator") took you out of \(team)." }
            return "\(s["by"] ?? "A coordinator") made you a \(s["role"] ?? "member") of \(team)."
        default: return "\(notification.type) \(s.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        }
    }

    public static func enrolments(_ enrolments: [RemoteEnrolment]) -> [String] {
        guard !enrolments.isEmpty else { return ["No enrolment codes. Make one with 'intake team enrol TEAM USER'."] }
        return [TextTable.row("CODE", "FOR", "STATE", "EXPIRES", "WRONG TRIES", "BY", widths: [9, 20, 9, 17, 12])]
            + enrolments.map {
                TextTable.row("\($0.id)-…", $0.username, $0.state, minute($0.expiresAt), "\($0.failedAttempts)", $0.createdBy, widths: [9, 20, 9, 17, 12])
            }
    }

    public static func devices(_ devices: [RemoteDevice]) -> [String] {
        guard !devices.isEmpty else { return ["No machines enrolled. Enrol one with 'intake team enrol TEAM USER'."] }
        let widths = [5, 18, 14, 17, 17, 17, 6, 8]
        return [TextTable.row("ID", "NAME", "USER", "ENROLLED", "LAST SEEN", "LAST UPLOAD", "QUEUE", "VERSION", "STATE", widths: widths)]
            + devices.map {
                TextTable.row(
                    "\($0.id)", $0.name, $0.username, minute($0.enrolledAt), $0.lastSeenAt.map(minute) ?? "-", $0.lastUploadAt.map(minute) ?? "-",
                    $0.queueSize.map(String.init) ?? "-", $0.intakeVersion ?? "-",
                    $0.revokedAt.map { "revoked \(day($0))" } ?? "active", widths: widths)
            }
    }

    private static func day(_ time: String) -> String { String(time.prefix(10)) }
    private static func minute(_ time: String) -> String { String(time.prefix(16)).replacingOccurrences(of: "T", with: " ") }
}
