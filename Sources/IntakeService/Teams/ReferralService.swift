import Foundation
import IntakeCore
import IntakeExport

/// Referrals between members and teams, with who may see and do what decided here: the referrer
/// and their team's coordinators on the sending side; the assignee (or, while nobody is
/// assigned, the receiving team's coordinators) on the receiving side.
public struct ReferralService: Sendable {
    /// What referrals need of a store: the referrals, the records and patients they point to,
    /// teams by name, and the key of their links.
    public typealias Store = ReferralStore & RecordDataStore & PatientStore & AccountStore & SecretStore & TeamStore
    let store: any Store
    let clock: @Sendable () -> Date
    let hub: NotificationHub
    public static let maxTextLength = 2000

    let access: RecordAccessService

    public init(store: any Store, clock: @escaping @Sendable () -> Date = { Date() }, hub: NotificationHub, access: RecordAccessService) {
        self.store = store
        self.clock = clock
        self.hub = hub
        self.access = access
    }

    /// Refers one of the user's team's records to a member of their team (`toUser`) or to a team (`toTeam`).
    public func refer(
        _ recordId: UUID, toUser: String?, toTeam: String?, reason: String, priority: ReferralPriority, allowEdit: Bool, by user: User
    ) async throws -> Referral {
        guard let own = user.teamId, user.role == .fieldworker || user.role == .coordinator else {
            throw ServiceError.forbidden("only members of a team refer patients")
        }
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, reason.unicodeScalars.count <= Self.maxTextLength else {
            throw ServiceError.invalidRequest("a reason has 1 to \(Self.maxTextLength) characters")
        }
        let target: Int64
        switch (toUser, toTeam) {
        case (_?, nil): target = own
        case (nil, let name?):
            guard let team = try await store.team(named: name) else { throw ServiceError.notFound("no team is named '\(name)'") }
            target = team.id
        default: throw ServiceError.invalidRequest("refer to a member of your team (toUser) or to a team (toTeam), not both")
        }
        // Only the team's records its member sees may be referred (a collector-only
        // questionnaire's record of another collector is "not found", as everywhere else).
        do {
            _ = try await access.record(recordId, for: .refer, by: user)
        } catch let refused as ServiceError where refused.isMissing {
            throw ServiceError.notFound("no record \(recordId.uuidString.lowercased()) in your team")
        }
        defer { hub.notify() }
        let outcome = try await store.createReferral(
            NewReferral(
                recordId: recordId, fromTeamId: own, referrer: user.username, toTeamId: target, assignee: toUser, reason: reason,
                priority: priority, allowEdit: allowEdit, createdAt: clock()))
        return try Self.referral(outcome)
    }

    /// Received (assigned to the user, or to the team they coordinate) or sent (by the user, or by
    /// the team they coordinate), newest first.
    public func referrals(for user: User, received: Bool, state: ReferralState?) async throws -> [Referral] {
        guard let team = user.teamId else { return [] }
        let coordinator = user.role == .coordinator
        let filter =
            received
            ? ReferralFilter(toTeamId: coordinator ? team : nil, assignee: user.username, state: state)
            : ReferralFilter(fromTeamId: team, state: state)
        return try await store.referrals(filter).filter { referral in
            received
                ? referral.assignee == user.username || (coordinator && referral.toTeamId == team)
                : coordinator || referral.referrer == user.username
        }
    }

    /// The team's referrals, sent and received, as CSV for its coordinators: one row each, the
    /// patient as the keyed `patient_key` exports use, never the reason or the thread (free text
    /// that may name the patient), cells escaped as in every export.
    public func exportCSV(of team: Team) async throws -> String {
        let referrals = try await store.referrals(ReferralFilter(fromTeamId: team.id, toTeamId: team.id))
        let keyer = try PatientKeyer(secret: try await store.secret(named: ExportService.patientKeySecret))
        var out = CSV.line([
            "referral_id", "record_id", "patient_key", "direction", "from_team", "referrer", "to_team", "assignee", "priority", "state",
            "allow_edit", "messages", "created_at", "updated_at",
        ])
        for referral in referrals.reversed() {
            let patient = try await store.record(id: referral.recordId)?.record.patient
            let messages = try await store.referralMessages(id: referral.id).count
            let cells = [
                Self.key(referral.id), Self.key(referral.recordId), patient.flatMap { keyer.key(for: $0) } ?? "",
                referral.fromTeamId == team.id ? (referral.toTeamId == team.id ? "internal" : "sent") : "received", referral.fromTeam,
                referral.referrer, referral.toTeam, referral.assignee ?? "", referral.priority.rawValue, referral.state.rawValue,
                referral.allowEdit ? "1" : "0", String(messages), Timestamp.string(from: referral.createdAt),
                Timestamp.string(from: referral.updatedAt),
            ]
            out += CSV.line(cells.map { CSV.escape($0, marker: nil) })
        }
        return out
    }

    private static func key(_ id: UUID) -> String { id.uuidString.lowercased() }

    /// A referral the user takes part in, and its thread.
    public func referral(_ id: UUID, for user: User) async throws -> (Referral, [ReferralMessage]) {
        let referral = try await visible(id, to: user)
        return (referral, try await store.referralMessages(id: id))
    }

    public func act(_ id: UUID, _ action: ReferralAction, by user: User) async throws -> Referral {
        let referral = try await visible(id, to: user)
        @Sendable func refusal(_ current: Referral) -> String? {
            if action == .withdraw {
                return Self.sends(current, user) ? nil : "only the referrer or a coordinator of '\(current.fromTeam)' withdraws a referral"
            }
            return Self.receives(current, user)
                ? nil : "only the person the referral is assigned to (or, unassigned, a coordinator of '\(current.toTeam)') answers it"
        }
        return try await change(referral, by: user, refusal: refusal) { current, now in
            ReferralRules.act(action, on: current, by: user.username, at: now)
        }
    }

    public func reassign(_ id: UUID, to assignee: String, by user: User) async throws -> Referral {
        let referral = try await visible(id, to: user)
        @Sendable func refusal(_ current: Referral) -> String? {
            user.role == .coordinator && user.teamId == current.toTeamId
                ? nil : "only a coordinator of '\(current.toTeam)' reassigns its referrals"
        }
        return try await change(referral, by: user, refusal: refusal) { current, now in
            ReferralRules.reassign(current, to: assignee, by: user.username, at: now)
        }
    }

    /// Changes a referral as `decide` says, if `refusal` lets `user` act on it: asked on the
    /// referral as they saw it, and again as the transaction reads it (a reassignment or retarget
    /// that landed meanwhile takes the action away from whoever no longer holds the referral).
    /// Acting reads what told them of it.
    private func change(
        _ referral: Referral, by user: User, refusal: @escaping @Sendable (Referral) -> String?,
        decide: @escaping @Sendable (Referral, Date) -> ReferralDecision
    ) async throws -> Referral {
        if let refused = refusal(referral) { throw ServiceError.forbidden(refused) }
        defer { hub.notify() }
        let now = clock()
        let outcome = try await store.changeReferral(id: referral.id, at: now) { current in
            if let refused = refusal(current) { return .refuse(.notYours(refused)) }
            return decide(current, now)
        }
        let changed = try Self.referral(outcome)
        await read(referral.id, by: user)
        return changed
    }

    /// Sends a referral nobody has accepted yet elsewhere: to a member of the referring team
    /// (`toUser`) or to a team (`toTeam`). The referrer's, or their team's coordinators', to do.
    public func retarget(_ id: UUID, toUser: String?, toTeam: String?, by user: User) async throws -> Referral {
        let referral = try await visible(id, to: user)
        guard Self.sends(referral, user) else {
            throw ServiceError.forbidden("only the referrer or a coordinator of '\(referral.fromTeam)' sends a referral elsewhere")
        }
        // Only while the record is still one the user's team may refer (not transferred or
        // deleted since, and the user still its member): retargeting gives the new team access.
        do {
            _ = try await access.record(referral.recordId, for: .refer, by: user)
        } catch let refused as ServiceError where refused.isMissing {
            throw ServiceError.refused("record_gone", "the referred record is no longer your team's to refer; it cannot be sent elsewhere")
        }
        let target: Int64
        switch (toUser, toTeam) {
        case (_?, nil): target = referral.fromTeamId
        case (nil, let name?):
            guard let team = try await store.team(named: name) else { throw ServiceError.notFound("no team is named '\(name)'") }
            target = team.id
        default: throw ServiceError.invalidRequest("send it to a member of your team (toUser) or to a team (toTeam), not both")
        }
        defer { hub.notify() }
        let outcome = try await store.retargetReferral(id: id, toTeamId: target, assignee: toUser, by: user.username, at: clock())
        if case .referral(let unchanged) = outcome, unchanged == referral {
            throw ServiceError.conflict("referral_unchanged", "the referral already goes there; give another team or member")
        }
        let changed = try Self.referral(outcome)
        await read(id, by: user)
        return changed
    }

    public func message(_ id: UUID, text: String, by user: User) async throws -> ReferralMessage {
        _ = try await visible(id, to: user)
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.unicodeScalars.count <= Self.maxTextLength else {
            throw ServiceError.invalidRequest("a message has 1 to \(Self.maxTextLength) characters")
        }
        defer { hub.notify() }
        guard let message = try await store.addReferralMessage(id: id, author: user.username, text: text, at: clock()) else {
            throw ServiceError.notFound("no referral has the id \(id)")
        }
        await read(id, by: user)
        return message
    }

    /// The referrals of one record or of one registry patient's records that the user takes part
    /// in (sent, received or followed), newest first. A patient not of the user's team is not found.
    public func referrals(for user: User, record: UUID?, patient: UUID?, state: ReferralState?) async throws -> [Referral] {
        guard let team = user.teamId else { return [] }
        if let patient {
            guard let found = try await store.patient(id: patient), found.teamId == team else {
                throw ServiceError.notFound("no patient \(patient.uuidString.lowercased()) in your team")
            }
        }
        let all = try await store.referrals(ReferralFilter(state: state, recordId: record, patientId: patient))
        return all.filter { Self.sends($0, user) || Self.receives($0, user) || Self.watches($0, user) }
    }

    /// The referral, if the user takes part in it; not found otherwise, as if it did not exist.
    private func visible(_ id: UUID, to user: User) async throws -> Referral {
        guard let referral = try await store.referral(id: id),
            Self.sends(referral, user) || Self.receives(referral, user) || Self.watches(referral, user)
        else { throw ServiceError.notFound("no referral has the id \(id)") }
        return referral
    }

    /// The answers `user` may give the referral as it stands, as ``act(_:_:by:)`` decides them: a
    /// page offers these and no other.
    public static func actions(_ referral: Referral, for user: User) -> [ReferralAction] {
        ReferralAction.allCases.filter { action in
            action.transition.from.contains(referral.state) && (action == .withdraw ? sends(referral, user) : receives(referral, user))
        }
    }

    private static func sends(_ referral: Referral, _ user: User) -> Bool {
        referral.referrer == user.username || (user.role == .coordinator && user.teamId == referral.fromTeamId)
    }

    private static func receives(_ referral: Referral, _ user: User) -> Bool {
        referral.assignee == user.username || (referral.assignee == nil && user.role == .coordinator && user.teamId == referral.toTeamId)
    }

    /// The receiving team's coordinators follow its referrals even once assigned.
    private static func watches(_ referral: Referral, _ user: User) -> Bool {
        user.role == .coordinator && user.teamId == referral.toTeamId
    }

    private static func referral(_ outcome: ReferralOutcome) throws -> Referral {
        switch outcome {
        case .referral(let referral): return referral
        case .notFound: throw ServiceError.notFound("no such referral")
        case .recordNotFound: throw ServiceError.notFound("your team has no such record")
        case .notAMember(let name): throw ServiceError.invalidRequest("\(name) is not a member of the receiving team")
        case .notAllowed(let state):
            throw ServiceError.conflict("referral_\(state.rawValue)", "the referral is \(state.rawValue); it cannot do that now")
        case .notYours(let message): throw ServiceError.forbidden(message)
        }
    }

    /// Acting on a referral reads what told `user` of it (best effort: the action stands).
    func read(_ referral: UUID, by user: User) async {
        _ = try? await store.markNotificationsRead(userId: user.id, eventPrefix: NotificationEvent.referralPrefix(referral), at: clock())
    }
}
