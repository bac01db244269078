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
                    String(invitation.id.prefix(8)), invitation.team, invitation.invitee, invitation.role, invitation.state,
                    minute(invitation.expiresAt),
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
            return
                "\(s["invitedBy"] ?? "A coordinator") invited you to \(team) (invitation \(invitation)); accept with 'intake invitation accept \(invitation)'."
        case "invitation_accepted":
            return
                "\(s["invitee"] ?? "Someone") accepted the invitation to \(team); confirm with 'intake invitation confirm \(invitation)'."
        case "invitation_confirmed": return "You are now a member of \(team)."
        case "invitation_declined": return "\(s["invitee"] ?? "Someone") declined the invitation to \(team)."
        case "invitation_revoked": return "Your invitation to \(team) was revoked by a coordinator."
        case "announcement":
            return "\(s["by"] ?? "A coordinator") to \(s["team"].map { "'\($0)'" } ?? "everyone"): \(s["text"] ?? "")"
        case "referral_received":
            let referral = s["referral"].map { String($0.prefix(8)) } ?? ""
            let urgent = s["priority"] == "urgent" ? "URGENT: " : ""
            return
                "\(urgent)\(s["by"] ?? "Someone") of '\(s["fromTeam"] ?? "?")' referred a patient to \(s["toTeam"].map { "'\($0)'" } ?? "you") (\(s["priority"] ?? "routine"); referral \(referral)); read it with 'intake referrals show \(referral)', answer with 'intake referrals answer accept \(referral)' (or decline)."
        case "referral_accepted", "referral_declined", "referral_completed", "referral_withdrawn":
            let verb =
                notification.type == "referral_withdrawn" ? "withdrew" : notification.type.replacingOccurrences(of: "referral_", with: "")
            let referral = s["referral"].map { String($0.prefix(8)) } ?? ""
            return "\(s["by"] ?? "Someone") \(verb) the referral \(referral); see 'intake referrals show \(referral)'."
        case "referral_reassigned":
            return
                "\(s["by"] ?? "A coordinator") gave you the referral \(s["referral"].map { String($0.prefix(8)) } ?? "") from '\(s["fromTeam"] ?? "?")'."
        case "referral_unassigned":
            return
                "\(s["by"] ?? "A coordinator") gave the referral \(s["referral"].map { String($0.prefix(8)) } ?? "") to someone else; it is no longer yours."
        case "referral_retargeted":
            return
                "\(s["by"] ?? "The referrer") sent the referral \(s["referral"].map { String($0.prefix(8)) } ?? "") elsewhere; it is no longer \(s["toTeam"] == nil ? "yours" : "for you")."
        case "referral_message":
            let referral = s["referral"].map { String($0.prefix(8)) } ?? ""
            return "\(s["by"] ?? "Someone") wrote on the referral \(referral); read it with 'intake referrals show \(referral)'."
        case "referral_closed":
            let referral = s["referral"].map { String($0.prefix(8)) } ?? ""
            return
                "\(s["by"] ?? "A coordinator") deleted record \(s["record"].map { String($0.prefix(8)) } ?? ""); the referral \(referral) is closed (nothing is left to do)."
        case "referral_returned":
            let referral = s["referral"].map { String($0.prefix(8)) } ?? ""
            return
                "The referral \(referral) is back with the coordinators of '\(s["toTeam"] ?? "?")', open: the member it was assigned to left the team. A coordinator answers it ('intake referrals answer accept \(referral)') or gives it to someone ('intake referrals reassign \(referral) USER')."
        case "records_transferred":
            let count = Int(s["records"] ?? "") ?? 0
            let what =
                s["patient"].map { "patient \($0.prefix(8)) with \(count) record\(count == 1 ? "" : "s")" }
                ?? "\(count) record\(count == 1 ? "" : "s")"
            return
                "\(s["by"] ?? "A coordinator") moved \(what) from '\(s["fromTeam"] ?? "?")' to '\(s["toTeam"] ?? "?")'; the members of '\(s["toTeam"] ?? "?")' see \(count == 1 && s["patient"] == nil ? "it" : "them") now (intake lookup)."
        case "record_alert":
            // Ids only: the message is the questionnaire's, the answers stay in the record.
            let record = s["recordId"].map { String($0.prefix(8)) } ?? ""
            let message = s["questionnaireId"].flatMap { id in
                s["questionnaireVersion"].flatMap { version in s["alert"].flatMap { alertMessage(id, version, $0) } }
            }
            return "ALERT \(s["alert"] ?? "?") of \(s["questionnaireId"] ?? "a questionnaire") (record \(record))"
                + (message.map { ": \($0); open the record with 'intake lookup --id \(record)'" }
                    ?? ": open the record to act on it: 'intake lookup --id \(record)' (this machine lacks that questionnaire version for the alert's message).")
        case "case_overdue":
            // Ids only: who the case is about stays in the case.
            let id = s["case"].map { String($0.prefix(8)) } ?? "?"
            return
                "Case \(id) (\(s["list"] ?? "?")) that you follow is overdue: 'intake cases pull', 'intake cases show \(id)', then 'intake fill --case \(id)'."
        case "cases_overdue":
            return
                "\(s["count"] ?? "?") open case(s) of '\(s["team"] ?? "?")' are overdue ('intake cases list' after 'intake cases pull', or the console's Cases)."
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
        default:
            // A kind this version of intake does not know yet (a newer server): its words, not its code.
            let kind = notification.type.replacingOccurrences(of: "_", with: " ")
            return
                "\(kind.prefix(1).uppercased() + kind.dropFirst()): \(s.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))."
        }
    }

    public static func enrolments(_ enrolments: [RemoteEnrolment]) -> [String] {
        guard !enrolments.isEmpty else { return ["No enrolment codes. Make one with 'intake team enrol TEAM USER'."] }
        return [TextTable.row("CODE", "FOR", "STATE", "EXPIRES", "WRONG TRIES", "BY", widths: [9, 20, 9, 17, 12])]
            + enrolments.map {
                TextTable.row(
                    "\($0.id)-…", $0.username, $0.state, minute($0.expiresAt), "\($0.failedAttempts)", $0.createdBy,
                    widths: [9, 20, 9, 17, 12])
            }
    }

    public static func devices(_ devices: [RemoteDevice]) -> [String] {
        guard !devices.isEmpty else { return ["No machines enrolled. Enrol one with 'intake team enrol TEAM USER'."] }
        let widths = [5, 18, 14, 17, 17, 17, 6, 8]
        return [TextTable.row("ID", "NAME", "USER", "ENROLLED", "LAST SEEN", "LAST UPLOAD", "QUEUE", "VERSION", "STATE", widths: widths)]
            + devices.map {
                TextTable.row(
                    "\($0.id)", $0.name, $0.username, minute($0.enrolledAt), $0.lastSeenAt.map(minute) ?? "-",
                    $0.lastUploadAt.map(minute) ?? "-",
                    $0.queueSize.map(String.init) ?? "-", $0.intakeVersion ?? "-",
                    $0.revokedAt.map { "revoked \(day($0))" } ?? "active", widths: widths)
            }
    }

    private static func day(_ time: String) -> String { String(time.prefix(10)) }
    private static func minute(_ time: String) -> String { String(time.prefix(16)).replacingOccurrences(of: "T", with: " ") }
}

/// The kinds of notification `intake inbox --type` shows: words for groups of them, or a
/// notification's own type.
public struct NotificationKinds: Sendable {
    /// Each word and the types it stands for (a type ending in `_` stands for every type starting so).
    public static let groups: [(word: String, types: [String])] = [
        ("invitation", ["invitation_"]), ("referral", ["referral_"]), ("alert", ["record_alert"]), ("review", ["review_"]),
        ("team", ["membership_changed"]), ("announcement", ["announcement"]), ("transfer", ["records_transferred"]),
        ("case", ["case_overdue", "cases_overdue"]),
    ]

    private let patterns: [String]

    /// Reads `invitation,alert` or `referral_received`; nil after an unknown word, with the words.
    public init?(_ text: String) {
        var patterns: [String] = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !word.isEmpty {
            if let group = Self.groups.first(where: { $0.word == word || $0.word + "s" == word }) {
                patterns += group.types
            } else if Self.groups.contains(where: { $0.types.contains { $0.hasSuffix("_") ? word.hasPrefix($0) : word == $0 } }) {
                patterns.append(word)
            } else {
                return nil
            }
        }
        guard !patterns.isEmpty else { return nil }
        self.patterns = patterns
    }

    public func includes(_ type: String) -> Bool {
        patterns.contains { $0.hasSuffix("_") ? type.hasPrefix($0) : type == $0 }
    }

    /// The words, for a message.
    public static var words: String { groups.map(\.word).joined(separator: ", ") }
}
