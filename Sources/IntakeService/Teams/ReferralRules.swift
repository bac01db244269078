import Foundation

/// Who hears of a change to a referral.
public enum ReferralRecipient: Sendable, Equatable {
    case user(String)
    /// The referee of the referral as it was or became: its assignee, or while nobody is assigned
    /// the coordinators of its receiving team.
    case referee(assignee: String?, teamId: Int64)
}

/// One notification a referral change leaves (the store writes it in the same transaction).
public struct ReferralNotice: Sendable, Equatable {
    public var to: ReferralRecipient
    public var type: String
    /// Unique per recipient: `referral:<id>:` and this.
    public var event: String

    public init(to: ReferralRecipient, type: String, event: String) {
        self.to = to
        self.type = type
        self.event = event
    }
}

/// What becomes of a referral: its new state, receiving team and assignee, and who is told.
public struct ReferralChange: Sendable, Equatable {
    public var state: ReferralState
    public var toTeamId: Int64
    public var assignee: String?
    public var acceptedAt: Date?
    public var acceptedBy: String?
    /// Someone who must be a member of `toTeamId`, checked in the transaction (`notAMember` otherwise).
    public var mustBeMember: String?
    public var notices: [ReferralNotice]
    /// Who did it: never told of their own change, named as `by` in the notifications.
    public var actor: String
}

/// The store's part of a decision: refuse with an outcome, leave the referral as it is, or change it.
public enum ReferralDecision: Sendable, Equatable {
    case refuse(ReferralOutcome)
    case unchanged
    case change(ReferralChange)
}

/// The referral state machine, decided once for every store: each store reads the referral in
/// its transaction, asks one of these what to do, and writes what it says.
public enum ReferralRules {
    /// Whether `username` (of `teamId`, as `role`) may read, and edit, a record through its
    /// `referrals`: one that is active (``ReferralState/isActive``) to their team, and assigned to
    /// them or, unassigned, to the team they coordinate. Edit when such a referral allows it.
    public static func access(_ referrals: [Referral], username: String, teamId: Int64, role: Role) -> (read: Bool, edit: Bool) {
        let giving = referrals.filter {
            $0.state.isActive && $0.toTeamId == teamId && ($0.assignee == username || ($0.assignee == nil && role == .coordinator))
        }
        return (!giving.isEmpty, giving.contains { $0.allowEdit })
    }

    static func stamp(_ time: Date) -> String { String(format: "%.3f", time.timeIntervalSince1970) }

    /// Who hears of a new referral: its referee (the referrer never: a self-referral tells nobody).
    public static func created(_ referral: Referral) -> ReferralNotice {
        ReferralNotice(
            to: .referee(assignee: referral.assignee, teamId: referral.toTeamId), type: NotificationType.referralReceived, event: "created")
    }

    /// Who hears of a message: the other side. The referrer hears from the receiving side (the
    /// assignee or a member of the receiving team), the referee from everyone else.
    public static func message(_ messageId: Int64, on referral: Referral, by author: String, authorInReceivingTeam: Bool) -> ReferralNotice
    {
        let fromReferee = author != referral.referrer && (author == referral.assignee || authorInReceivingTeam)
        return ReferralNotice(
            to: fromReferee ? .user(referral.referrer) : .referee(assignee: referral.assignee, teamId: referral.toTeamId),
            type: NotificationType.referralMessage, event: "message:\(messageId)")
    }

    /// Accept, decline, complete or withdraw (who may is the service's to check first).
    public static func act(_ action: ReferralAction, on current: Referral, by actor: String, at time: Date) -> ReferralDecision {
        let (from, to) = action.transition
        guard from.contains(current.state) else { return .refuse(.notAllowed(current.state)) }
        var change = ReferralChange(
            state: to, toTeamId: current.toTeamId, assignee: current.assignee, acceptedAt: current.acceptedAt,
            acceptedBy: current.acceptedBy,
            notices: [], actor: actor)
        if action == .accept {
            change.acceptedAt = time
            change.acceptedBy = actor
        }
        // A referral can be accepted again after a reassignment: each answer is its own event.
        let event = "\(to.rawValue):\(stamp(time))"
        if action == .withdraw {
            change.notices = [
                ReferralNotice(
                    to: .referee(assignee: current.assignee, teamId: current.toTeamId), type: action.notificationType, event: event)
            ]
        } else {
            change.notices = [ReferralNotice(to: .user(current.referrer), type: action.notificationType, event: event)]
        }
        return .change(change)
    }

    /// Gives an open or accepted referral to another member of the receiving team. An accepted
    /// one goes back to open (the new assignee has not accepted it); the previous assignee is told.
    public static func reassign(_ current: Referral, to assignee: String, by actor: String, at time: Date) -> ReferralDecision {
        guard current.state.isActive else { return .refuse(.notAllowed(current.state)) }
        guard assignee != current.assignee else { return .unchanged }
        let reopened = current.state == .accepted
        var notices = [
            ReferralNotice(to: .user(assignee), type: NotificationType.referralReassigned, event: "assigned:\(stamp(time)):\(assignee)")
        ]
        if let previous = current.assignee {
            notices.append(
                ReferralNotice(
                    to: .user(previous), type: NotificationType.referralUnassigned, event: "unassigned:\(stamp(time)):\(previous)"))
        }
        return .change(
            ReferralChange(
                state: reopened ? .open : current.state, toTeamId: current.toTeamId, assignee: assignee,
                acceptedAt: reopened ? nil : current.acceptedAt, acceptedBy: reopened ? nil : current.acceptedBy, mustBeMember: assignee,
                notices: notices, actor: actor))
    }

    /// Sends a referral nobody accepted yet to another team (or another member): the previous
    /// referee is told it was taken back, the new one receives it.
    public static func retarget(_ current: Referral, toTeamId: Int64, assignee: String?, by actor: String, at time: Date)
        -> ReferralDecision
    {
        guard current.state == .open else { return .refuse(.notAllowed(current.state)) }
        guard toTeamId != current.toTeamId || assignee != current.assignee else { return .unchanged }
        return .change(
            ReferralChange(
                state: .open, toTeamId: toTeamId, assignee: assignee, acceptedAt: nil, acceptedBy: nil, mustBeMember: assignee,
                notices: [
                    ReferralNotice(
                        to: .referee(assignee: current.assignee, teamId: current.toTeamId), type: NotificationType.referralRetargeted,
                        event: "retargeted:\(stamp(time))"),
                    ReferralNotice(
                        to: .referee(assignee: assignee, teamId: toTeamId), type: NotificationType.referralReceived,
                        event: "received:\(stamp(time))"),
                ], actor: actor))
    }
}

extension ReferralRules {
    /// The referred record was deleted: an open or accepted referral is closed (its referee can
    /// no longer read the record, and nothing is left to do), and both sides are told; one that
    /// ended already stays as it is.
    public static func recordDeleted(_ current: Referral, by actor: String, at time: Date) -> ReferralDecision {
        guard current.state.isActive else { return .unchanged }
        let event = "closed:\(stamp(time))"
        return .change(
            ReferralChange(
                state: .closed, toTeamId: current.toTeamId, assignee: current.assignee, acceptedAt: current.acceptedAt,
                acceptedBy: current.acceptedBy,
                notices: [
                    ReferralNotice(
                        to: .referee(assignee: current.assignee, teamId: current.toTeamId), type: NotificationType.referralClosed,
                        event: event),
                    ReferralNotice(to: .user(current.referrer), type: NotificationType.referralClosed, event: event),
                ], actor: actor))
    }

    /// `member` left team `teamId` (taken out by a coordinator, or moved by an admin): an open or
    /// accepted referral assigned to them there goes back to the team's coordinators, open, and
    /// they and the referrer are told. Any other referral stays as it is.
    public static func memberLeft(_ current: Referral, member: String, teamId: Int64, by actor: String, at time: Date) -> ReferralDecision {
        guard current.state.isActive, current.toTeamId == teamId, current.assignee == member else { return .unchanged }
        let event = "returned:\(stamp(time))"
        var notices = [ReferralNotice(to: .referee(assignee: nil, teamId: teamId), type: NotificationType.referralReturned, event: event)]
        if current.referrer != member {
            notices.append(ReferralNotice(to: .user(current.referrer), type: NotificationType.referralReturned, event: event))
        }
        return .change(
            ReferralChange(state: .open, toTeamId: teamId, assignee: nil, acceptedAt: nil, acceptedBy: nil, notices: notices, actor: actor))
    }
}

extension ReferralStore {
    /// Accept, decline, complete or withdraw, as ``ReferralRules/act(_:on:by:at:)`` decides.
    public func actOnReferral(id: UUID, _ action: ReferralAction, by actor: String, at time: Date) async throws -> ReferralOutcome {
        try await changeReferral(id: id, at: time) { ReferralRules.act(action, on: $0, by: actor, at: time) }
    }

    /// Reassign, as ``ReferralRules/reassign(_:to:by:at:)`` decides.
    public func reassignReferral(id: UUID, to assignee: String, by actor: String, at time: Date) async throws -> ReferralOutcome {
        try await changeReferral(id: id, at: time) { ReferralRules.reassign($0, to: assignee, by: actor, at: time) }
    }

    /// Send elsewhere, as ``ReferralRules/retarget(_:toTeamId:assignee:by:at:)`` decides.
    public func retargetReferral(id: UUID, toTeamId: Int64, assignee: String?, by actor: String, at time: Date) async throws
        -> ReferralOutcome
    {
        try await changeReferral(id: id, at: time) {
            ReferralRules.retarget($0, toTeamId: toTeamId, assignee: assignee, by: actor, at: time)
        }
    }
}
