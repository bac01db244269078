import Foundation

/// A team's own life: its members, their history, invitations, and the notifications these
/// events leave for the people they concern.
///
/// Every change that concerns someone stores their notification in the same transaction as the
/// change itself, at most one per recipient and event: a notification is never lost or doubled
/// by a crash between the two.
public protocol TeamStore: Sendable {
    // MARK: Members

    /// The team's members, coordinators first, then by name.
    func members(teamId: Int64) async throws -> [Member]
    /// Who joined or left the team or changed role, oldest first.
    func membershipHistory(teamId: Int64) async throws -> [MembershipEvent]
    /// Whether `username` is a member of the team now or has been one (its membership history
    /// names them): who may have collected the team's records.
    func isOrWasMember(username: String, teamId: Int64) async throws -> Bool
    /// Changes a member's role or takes them out, as `decide` says (``MembershipRules``: the
    /// store decides nothing), in one transaction: reads the member (nil when not one) and how many
    /// coordinators the team has, asks `decide`, writes the change, the history event and the
    /// member's notification.
    func changeMembership(
        teamId: Int64, username: String, by actor: String, at time: Date, _ decide: @Sendable (Member?, Int) -> MembershipDecision
    ) async throws -> MembershipOutcome

    // MARK: Invitations

    /// Stores an invitation unless the invitee is unknown, cannot belong to a team, already
    /// belongs to one, or has an open invitation of this team; notifies the invitee.
    func createInvitation(_ invitation: NewInvitation) async throws -> InvitationOutcome
    func invitation(id: UUID) async throws -> Invitation?
    /// Invitations to `invitee` (by user name) or of `teamId`, newest first.
    func invitations(invitee: String?, teamId: Int64?) async throws -> [Invitation]
    /// The invitee accepts with a passcode: `matches` compares it with the stored hash. A wrong
    /// one is counted in the same atomic step (two tries at once are both counted), and the
    /// invitation locks at `lockAfter`. On success the team's coordinators are notified.
    func acceptInvitation(
        id: UUID, invitee: String, at time: Date, lockAfter: Int, matches: @escaping @Sendable (String) -> Bool
    ) async throws -> InvitationOutcome
    /// Declines (as the invitee, `actor`), revokes or confirms (as a coordinator of its team,
    /// checked by the caller) an open invitation. Confirming makes the invitee a member with the
    /// invitation's role. Each notifies whom it concerns.
    func decideInvitation(id: UUID, _ decision: InvitationDecision, by actor: String, at time: Date) async throws -> InvitationOutcome

    // MARK: Announcements

    /// Stores an announcement and, in the same transaction, one notification for each member of
    /// `teamId` (or each enabled user, when nil) except its author.
    func announce(teamId: Int64?, author: String, text: String, at time: Date) async throws -> Announcement

    // MARK: Notifications

    /// Notifications of one user, oldest first after `query.after`.
    func notifications(_ query: NotificationQuery) async throws -> [UserNotification]
    /// Unread notifications of one user, by type.
    func unreadNotificationCounts(userId: Int64) async throws -> [String: Int]
    /// The id of the user's newest notification (0 when they have none): where a stream of what
    /// comes next starts.
    func newestNotificationId(userId: Int64) async throws -> Int64
    /// Marks some (by id) or all of a user's notifications read; how many were unread.
    func markNotificationsRead(userId: Int64, ids: [Int64]?, at time: Date) async throws -> Int
    /// Marks read the user's unread notifications of one subject (their event keys start with
    /// `eventPrefix`, made by ``NotificationEvent``): acting on an invitation or a referral reads
    /// what told of it. How many were unread.
    func markNotificationsRead(userId: Int64, eventPrefix: String, at time: Date) async throws -> Int
    /// Deletes one of a user's notifications; false when they have none with that id.
    func deleteNotification(userId: Int64, id: Int64) async throws -> Bool
    /// Deletes every notification read before `time` (unread ones stay, however old); how many.
    func purgeReadNotifications(readBefore time: Date) async throws -> Int
}

/// Referrals of records between teams, their messages, and the notifications they leave (in the
/// same transaction as the change, like ``TeamStore``'s).
public protocol ReferralStore: Sendable {
    /// Stores a referral of one of the referring team's records to the receiving team (and its
    /// assignee, who must be a member of it); notifies the referee.
    func createReferral(_ referral: NewReferral) async throws -> ReferralOutcome
    func referral(id: UUID) async throws -> Referral?
    /// Referrals matching any of the filter's fields (and its state, if given), newest first.
    func referrals(_ filter: ReferralFilter) async throws -> [Referral]
    /// Changes a referral as `decide` says (``ReferralRules``: the store decides nothing), in
    /// one transaction: reads it, asks `decide`, checks the member the change needs, writes the
    /// change and the notifications it lists (never to its actor). `.notFound` without such a
    /// referral; the referral as it is when the decision leaves it unchanged.
    func changeReferral(id: UUID, at time: Date, _ decide: @Sendable (Referral) -> ReferralDecision) async throws -> ReferralOutcome
    /// Adds a message to the thread and notifies the other side; nil when there is no such referral.
    func addReferralMessage(id: UUID, author: String, text: String, at time: Date) async throws -> ReferralMessage?
    /// The thread, oldest first.
    func referralMessages(id: UUID) async throws -> [ReferralMessage]
    /// Every referral of a record, in any state, oldest first.
    func referrals(recordId: UUID) async throws -> [Referral]
}

extension ReferralStore {
    /// Whether `username` (of `teamId`, as `role`) may read, and edit, a record through its
    /// referrals, as ``ReferralRules/access(_:username:teamId:role:)`` decides.
    public func referralAccess(recordId: UUID, username: String, teamId: Int64, role: Role) async throws -> (read: Bool, edit: Bool) {
        ReferralRules.access(try await referrals(recordId: recordId), username: username, teamId: teamId, role: role)
    }
}
