import Foundation

/// Where a referral stands: open → accepted → completed, or declined (by the referee) or
/// withdrawn (by the referrer), or closed (its record was deleted). While open or accepted the
/// referee may read the referred record.
public enum ReferralState: String, Sendable, Codable, CaseIterable {
    case open, accepted, completed, declined, withdrawn, closed

    /// States in which the referee has access to the record.
    public var isActive: Bool { self == .open || self == .accepted }
}

public enum ReferralPriority: String, Sendable, Codable, CaseIterable {
    case routine, urgent, emergency
}

/// A patient (one of their records) referred by a member of one team to a member of their team
/// or to another team.
public struct Referral: Sendable, Hashable {
    public var id: UUID
    public var recordId: UUID
    public var fromTeamId: Int64
    public var fromTeam: String
    public var referrer: String
    public var toTeamId: Int64
    public var toTeam: String
    /// Who handles it in the receiving team; nil until its coordinators assign someone.
    public var assignee: String?
    public var reason: String
    public var priority: ReferralPriority
    /// Whether the referee may edit the record, not only read it.
    public var allowEdit: Bool
    public var state: ReferralState
    public var createdAt: Date
    public var updatedAt: Date
    /// When it was accepted, and by whom (nil while nobody has, and again after a reassignment;
    /// unknown for referrals accepted before this was kept).
    public var acceptedAt: Date?
    public var acceptedBy: String?

    package init(
        id: UUID, recordId: UUID, fromTeamId: Int64, fromTeam: String, referrer: String, toTeamId: Int64, toTeam: String, assignee: String?,
        reason: String, priority: ReferralPriority, allowEdit: Bool, state: ReferralState, createdAt: Date, updatedAt: Date,
        acceptedAt: Date? = nil, acceptedBy: String? = nil
    ) {
        self.acceptedAt = acceptedAt
        self.acceptedBy = acceptedBy
        self.id = id
        self.recordId = recordId
        self.fromTeamId = fromTeamId
        self.fromTeam = fromTeam
        self.referrer = referrer
        self.toTeamId = toTeamId
        self.toTeam = toTeam
        self.assignee = assignee
        self.reason = reason
        self.priority = priority
        self.allowEdit = allowEdit
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

public struct NewReferral: Sendable {
    public var id: UUID
    public var recordId: UUID
    public var fromTeamId: Int64
    public var referrer: String
    public var toTeamId: Int64
    public var assignee: String?
    public var reason: String
    public var priority: ReferralPriority
    public var allowEdit: Bool
    public var createdAt: Date

    public init(
        id: UUID = UUID(), recordId: UUID, fromTeamId: Int64, referrer: String, toTeamId: Int64, assignee: String?, reason: String,
        priority: ReferralPriority, allowEdit: Bool, createdAt: Date
    ) {
        self.id = id
        self.recordId = recordId
        self.fromTeamId = fromTeamId
        self.referrer = referrer
        self.toTeamId = toTeamId
        self.assignee = assignee
        self.reason = reason
        self.priority = priority
        self.allowEdit = allowEdit
        self.createdAt = createdAt
    }
}

/// One message of a referral's thread; the thread only grows.
public struct ReferralMessage: Sendable, Hashable {
    public var id: Int64
    public var referralId: UUID
    public var author: String
    public var text: String
    public var at: Date

    package init(id: Int64, referralId: UUID, author: String, text: String, at: Date) {
        self.id = id
        self.referralId = referralId
        self.author = author
        self.text = text
        self.at = at
    }
}

/// What the referee or the referrer does with a referral.
public enum ReferralAction: String, Sendable, CaseIterable {
    case accept, decline, complete, withdraw

    /// The states the action may start from, and the one it leads to.
    public var transition: (from: Set<ReferralState>, to: ReferralState) {
        switch self {
        case .accept: ([.open], .accepted)
        case .decline: ([.open], .declined)
        case .complete: ([.accepted], .completed)
        case .withdraw: ([.open, .accepted], .withdrawn)
        }
    }

    /// The notification it leaves: the referrer is told of the referee's answer; the referee of a withdrawal.
    public var notificationType: String {
        switch self {
        case .accept: NotificationType.referralAccepted
        case .decline: NotificationType.referralDeclined
        case .complete: NotificationType.referralCompleted
        case .withdraw: NotificationType.referralWithdrawn
        }
    }
}

/// Which referrals to list.
public struct ReferralFilter: Sendable {
    /// Sent from this team.
    public var fromTeamId: Int64?
    /// Received by this team (all of them, for its coordinators).
    public var toTeamId: Int64?
    /// Assigned to this user.
    public var assignee: String?
    public var state: ReferralState?
    /// Only referrals of this record (with the others, not instead of them).
    public var recordId: UUID?
    /// Only referrals of this registry patient's records.
    public var patientId: UUID?

    public init(
        fromTeamId: Int64? = nil, toTeamId: Int64? = nil, assignee: String? = nil, state: ReferralState? = nil, recordId: UUID? = nil,
        patientId: UUID? = nil
    ) {
        self.fromTeamId = fromTeamId
        self.toTeamId = toTeamId
        self.assignee = assignee
        self.state = state
        self.recordId = recordId
        self.patientId = patientId
    }
}

public enum ReferralOutcome: Sendable, Equatable {
    case referral(Referral)
    case notFound
    /// The record is not one of the referring team's.
    case recordNotFound
    /// The assignee is not a member of the receiving team.
    case notAMember(String)
    case notAllowed(ReferralState)
    /// The actor may no longer do this: the referral changed hands since they looked (checked
    /// again in the transaction, on the referral as it is).
    case notYours(String)
}
