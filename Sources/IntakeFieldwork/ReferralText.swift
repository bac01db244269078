import Foundation
import IntakeClient
import IntakeStore

/// What the referral commands print, and how `intake refer` picks a user or a team.
public enum ReferralText {
    public static func list(_ referrals: [RemoteReferral]) -> [String] {
        guard !referrals.isEmpty else { return ["No referrals."] }
        return [TextTable.row("ID", "STATE", "PRIORITY", "FROM", "TO", "RECORD", widths: [9, 10, 10, 24, 24])]
            + referrals.map { referral in
                let to = referral.assignee.map { "\($0) ('\(referral.toTeam)')" } ?? "'\(referral.toTeam)'"
                return TextTable.row(
                    String(referral.id.prefix(8)), referral.state, referral.priority, "\(referral.referrer) ('\(referral.fromTeam)')", to,
                    String(referral.recordId.prefix(8)), widths: [9, 10, 10, 24, 24])
            }
    }

    public static func show(_ referral: RemoteReferral) -> [String] {
        var lines = [
            "Referral \(referral.id) (\(referral.state), \(referral.priority))",
            "Record \(referral.recordId) of '\(referral.fromTeam)', referred by \(referral.referrer)",
            "To \(referral.assignee.map { "\($0) of " } ?? "")'\(referral.toTeam)'\(referral.allowEdit ? "; may edit the record" : "; may read the record")",
            "Reason: \(referral.reason)",
        ]
        if referral.state == "closed" { lines.insert("Closed: its record was deleted; nothing is left to do.", at: 1) }
        if let at = referral.acceptedAt {
            lines.insert(
                "Accepted \(String(at.prefix(16)).replacingOccurrences(of: "T", with: " "))\(referral.acceptedBy.map { " by \($0)" } ?? "")",
                at: 3)
        }
        for message in referral.messages ?? [] {
            lines.append("  \(String(message.at.prefix(16)).replacingOccurrences(of: "T", with: " "))  \(message.author): \(message.text)")
        }
        return lines
    }
}

/// `intake refer --to NAME`: a member of your team when one has that name (unless --team), else a
/// team; and a referral found by the first characters of its id.
public enum ReferralTarget {
    /// The full id of the referral (received or sent) whose id starts with `prefix`.
    public static func id(_ prefix: String, _ client: IntakeClient) async throws -> String {
        if UUID(uuidString: prefix) != nil { return prefix.lowercased() }
        let all = try await client.referrals(sent: false, state: nil) + client.referrals(sent: true, state: nil)
        return try IDPrefix.resolve(prefix, among: all.map(\.id), noun: "referral", listing: "intake referrals list (or --sent)")
    }

    /// What became of an answer to a referral.
    public enum Answered {
        case sent(RemoteReferral)
        /// The server could not be reached: the answer is queued (sealed) for `intake flush`.
        case queued(referral: String, reason: String)
    }

    /// Sends `verb` for the referral whose id starts with `prefix`; offline, queues it in `store`.
    /// Offline the id is found among the referrals of the inbox fetched last (or given whole).
    public static func answer(_ prefix: String, _ verb: String, client: IntakeClient, store: @autoclosure () throws -> LocalStore)
        async throws -> Answered
    {
        do {
            return .sent(try await client.referral(try await id(prefix, client), verb))
        } catch ClientError.offline(let reason) {
            let store = try store()
            var full = UUID(uuidString: prefix) != nil ? prefix.lowercased() : nil
            if full == nil {
                let known = (try InboxCache(store: store).load()?.notifications ?? []).compactMap { $0.subject["referral"] }
                guard !known.isEmpty else {
                    throw IDPrefixError(
                        "\(reason); offline, give the referral's whole id (no inbox was fetched on this machine to find '\(prefix)' in)")
                }
                full = try IDPrefix.resolve(prefix, among: known, noun: "referral", listing: "intake inbox")
            }
            try store.enqueueAction(QueuedAction(kind: .referralAnswer, target: full!, verb: verb))
            return .queued(referral: full!, reason: reason)
        }
    }

    public static func refer(
        _ client: IntakeClient, record: String, to name: String, teamOnly: Bool, reason: String, priority: String?, allowEdit: Bool
    ) async throws -> RemoteReferral {
        try await toUserOrTeam(name, teamOnly: teamOnly) { (user, team) throws(ClientError) in
            try await client.refer(record, toUser: user, toTeam: team, reason: reason, priority: priority, allowEdit: allowEdit)
        }
    }

    /// `intake referrals retarget ID --to NAME`: read as `refer` reads it.
    public static func retarget(_ client: IntakeClient, id: String, to name: String, teamOnly: Bool) async throws -> RemoteReferral {
        try await toUserOrTeam(name, teamOnly: teamOnly) { (user, team) throws(ClientError) in
            try await client.retargetReferral(id, toUser: user, toTeam: team)
        }
    }

    /// A member of your team when one has that name (unless `teamOnly`), else a team: the server
    /// answers 422 for a name that is no member, and `send` is called again with it as a team.
    static func toUserOrTeam(
        _ name: String, teamOnly: Bool, _ send: (String?, String?) async throws(ClientError) -> RemoteReferral
    ) async throws -> RemoteReferral {
        if !teamOnly {
            do {
                return try await send(name, nil)
            } catch {
                guard case .refused(422, _) = error else { throw error }
            }
        }
        return try await send(nil, name)
    }
}
