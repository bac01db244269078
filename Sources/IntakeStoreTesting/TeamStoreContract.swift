import Foundation
import IntakeService
import Testing

/// The behaviour every store must have for teams: members and their history, invitations, and
/// the notifications they leave, the same for every store, including when requests race.
public enum TeamStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A team "t" with a coordinator "lead"; users "ana" (fieldworker), "rui" (researcher) without a team.
    static func setUp(_ store: any RecordStore) async throws -> Team {
        let team = try await store.createTeam(name: "t", at: start)
        _ = try await store.createUser(NewUser(username: "lead", passwordHash: "h", role: .coordinator, teamId: team.id), at: start)
        _ = try await store.createUser(NewUser(username: "ana", passwordHash: "h", role: .fieldworker, teamId: nil), at: start)
        _ = try await store.createUser(NewUser(username: "rui", passwordHash: "h", role: .researcher, teamId: nil), at: start)
        return team
    }

    static func invitation(_ team: Team, _ invitee: String, code: String = "123456", at time: Date = start) -> NewInvitation {
        NewInvitation(
            teamId: team.id, invitee: invitee, role: .fieldworker, invitedBy: "lead", passcodeHash: "hash:" + code, createdAt: time,
            expiresAt: time.addingTimeInterval(7 * 86_400))
    }

    /// Two stores on one database, as two servers would be, set up as ``setUp(_:)`` does.
    static func twoServers(_ kind: some RecordStoreFactory) async throws -> (any RecordStore, any RecordStore, Team) {
        let database = try kind.newDatabase()
        let first = try await kind.open(database: database)
        let second = try await kind.open(database: database)
        return (first, second, try await setUp(first))
    }

    static func matching(_ code: String) -> @Sendable (String) -> Bool { { $0 == "hash:" + code } }

    static func user(_ store: any RecordStore, _ name: String) async throws -> User {
        try #require(try await store.credentials(username: name)?.user)
    }

    /// A member without a team forms one and leads it, in one step; two formations by one user
    /// at once (two servers) make one team, and the other is told they belong to it.
    public static func aMemberFormsOneTeamAndLeadsItEvenWhenTwoTriesRace(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await twoServers(kind)
        #expect(try await first.formTeam(name: "other", leader: "lead", at: start) == .alreadyInTeam("t"))
        #expect(try await first.formTeam(name: "t", leader: "ana", at: start) == .nameTaken)
        #expect(try await first.formTeam(name: "x", leader: "nobody", at: start) == .noSuchUser)
        async let a = first.formTeam(name: "north", leader: "ana", at: start)
        async let b = second.formTeam(name: "south", leader: "ana", at: start)
        let outcomes = try await [a, b]
        let formed = outcomes.compactMap { if case .formed(let team) = $0 { team } else { nil } }
        try #require(formed.count == 1, "\(outcomes)")
        #expect(outcomes.contains(.alreadyInTeam(formed[0].name)), "\(outcomes)")
        let ana = try await user(first, "ana")
        #expect(ana.teamId == formed[0].id && ana.role == .coordinator)
        #expect(try await first.teams().map(\.name).sorted() == [formed[0].name, team.name].sorted(), "no team without its leader is left")
        let history = try await first.membershipHistory(teamId: formed[0].id)
        #expect(history.map(\.username) == ["ana"] && history.first?.kind == .joined && history.first?.role == .coordinator)
        #expect(try await first.members(teamId: formed[0].id).map(\.username) == ["ana"])
    }

    /// A short id (the first characters of a record's id) finds the team's live record, never
    /// another team's or a deleted one.
    public static func aShortIdFindsTheTeamsLiveRecordsOnly(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        let other = try await store.createTeam(name: "other", at: start)
        let ours = RecordStoreContract.record(41), theirs = RecordStoreContract.record(42), gone = RecordStoreContract.record(43)
        _ = try await store.ingest(
            [try IngestItem(record: ours), try IngestItem(record: gone)], owner: RecordOwner(teamId: team.id, username: "lead"), at: start)
        _ = try await store.ingest([try IngestItem(record: theirs)], owner: RecordOwner(teamId: other.id, username: "x"), at: start)
        _ = try await store.deleteRecord(id: gone.id, teamId: team.id, reason: "twice", by: "lead", at: start)
        func short(_ id: UUID) -> String { String(id.uuidString.lowercased().prefix(8)) }
        #expect(try await store.records(idPrefix: short(ours.id), teamId: team.id, limit: 10).map(\.id) == [ours.id])
        #expect(
            try await store.records(idPrefix: ours.id.uuidString.lowercased(), teamId: team.id, limit: 10).first?.collector
                == ours.collector)
        #expect(try await store.records(idPrefix: short(theirs.id), teamId: team.id, limit: 10).isEmpty, "another team's record")
        #expect(try await store.records(idPrefix: short(gone.id), teamId: team.id, limit: 10).isEmpty, "a deleted record")
    }

    /// Who may have collected a team's records: its members and former members, no one else;
    /// a record keeps its collector apart from who uploaded it.
    public static func membersAndFormerMembersAreTheTeamsCollectors(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        let other = try await store.createTeam(name: "other", at: start)
        _ = try await store.createUser(NewUser(username: "bo", passwordHash: "h", role: .fieldworker, teamId: team.id), at: start)
        #expect(try await store.isOrWasMember(username: "lead", teamId: team.id))
        #expect(try await store.isOrWasMember(username: "bo", teamId: team.id))
        #expect(try await !store.isOrWasMember(username: "ana", teamId: team.id), "never a member")
        #expect(try await !store.isOrWasMember(username: "nobody", teamId: team.id))
        #expect(try await !store.isOrWasMember(username: "lead", teamId: other.id), "a member of another team")
        let removed = try await store.removeMember(teamId: team.id, username: "bo", by: "lead", at: start.addingTimeInterval(60))
        #expect({ if case .changed = removed { true } else { false } }(), "\(removed)")
        #expect(try await store.isOrWasMember(username: "bo", teamId: team.id), "a former member stays a collector of the team's records")
        #expect(try await !store.isOrWasMember(username: "bo", teamId: other.id))

        let record = RecordStoreContract.record(31).with { $0.collector = "bo" }
        #expect(
            try await store.ingest([try IngestItem(record: record)], owner: RecordOwner(teamId: team.id, username: "lead"), at: start) == [
                .created(revision: 1)
            ])
        let stored = try #require(try await store.record(id: record.id))
        #expect(stored.collector == "bo" && stored.receivedBy == "lead")
        let page = try await store.changes(teamId: team.id, after: 0, limit: 10)
        guard case .saved(let changed)? = page.changes.first?.kind else {
            Issue.record("the change feed does not hold the record")
            return
        }
        #expect(changed.collector == "bo" && changed.receivedBy == "lead")
    }

    public static func anInvitationGoesFromPendingToConfirmedAndTheInviteeJoins(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        guard case .invitation(let created) = try await store.createInvitation(invitation(team, "ana")) else {
            Issue.record("not created")
            return
        }
        #expect(created.storedState == .pending && created.invitee == "ana" && created.teamName == "t")
        #expect(try await store.createInvitation(invitation(team, "ana")) == .alreadyInvited(created.id), "one open invitation per person")
        // Acting on it reads what told of it: only that subject's notifications, only the user's.
        let invitee = try await user(store, "ana"), coordinator = try await user(store, "lead")
        #expect(try await store.unreadNotificationCounts(userId: invitee.id)[NotificationType.invited] == 1)
        let other = NotificationEvent.invitationPrefix(UUID())
        #expect(try await store.markNotificationsRead(userId: invitee.id, eventPrefix: other, at: start) == 0)
        #expect(
            try await store.markNotificationsRead(
                userId: coordinator.id, eventPrefix: NotificationEvent.invitationPrefix(created.id), at: start) == 0)
        #expect(
            try await store.markNotificationsRead(
                userId: invitee.id, eventPrefix: NotificationEvent.invitationPrefix(created.id), at: start) == 1)
        #expect(try await store.unreadNotificationCounts(userId: invitee.id)[NotificationType.invited] == nil)

        let accepted = try await store.acceptInvitation(
            id: created.id, invitee: "ana", at: start.addingTimeInterval(60), lockAfter: 5, matches: matching("123456"))
        guard case .invitation(let afterAccept) = accepted else {
            Issue.record("not accepted: \(accepted)")
            return
        }
        #expect(afterAccept.storedState == .accepted)
        #expect(try await store.members(teamId: team.id).map(\.username) == ["lead"], "not a member before a coordinator confirms")

        let confirmed = try await store.decideInvitation(id: created.id, .confirm, by: "lead", at: start.addingTimeInterval(120))
        guard case .invitation(let afterConfirm) = confirmed else {
            Issue.record("not confirmed: \(confirmed)")
            return
        }
        #expect(afterConfirm.storedState == .confirmed)
        let members = try await store.members(teamId: team.id)
        #expect(members.map(\.username) == ["lead", "ana"], "coordinators first")
        #expect(members.last?.role == .fieldworker && members.last?.since == start.addingTimeInterval(120))
        #expect(try await user(store, "ana").teamId == team.id)
        #expect(
            try await store.decideInvitation(id: created.id, .confirm, by: "lead", at: start.addingTimeInterval(180))
                == .notAllowed(.confirmed))

        let history = try await store.membershipHistory(teamId: team.id)
        #expect(history.map(\.username) == ["lead", "ana"] && history.map(\.kind) == [.joined, .joined])
        #expect(history.last?.by == "lead")

        // Each event left one notification for whom it concerns.
        let ana = try await user(store, "ana"), lead = try await user(store, "lead")
        let anas = try await store.notifications(NotificationQuery(userId: ana.id))
        #expect(anas.map(\.type) == [NotificationType.invited, NotificationType.invitationConfirmed])
        #expect(anas.first?.subject["invitation"] == created.id.uuidString.lowercased() && anas.first?.subject["team"] == "t")
        #expect(try await store.notifications(NotificationQuery(userId: lead.id)).map(\.type) == [NotificationType.invitationAccepted])
        #expect(anas[0].id < anas[1].id, "ids grow in the order events happen")
    }

    public static func wrongPasscodesAreCountedAndLockTheInvitation(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        guard case .invitation(let created) = try await store.createInvitation(invitation(team, "ana")) else {
            Issue.record("not created")
            return
        }
        for remaining in (1...4).reversed() {
            #expect(
                try await store.acceptInvitation(id: created.id, invitee: "ana", at: start, lockAfter: 5, matches: matching("000000"))
                    == .wrongPasscode(remaining: remaining))
        }
        #expect(
            try await store.acceptInvitation(id: created.id, invitee: "ana", at: start, lockAfter: 5, matches: matching("000000"))
                == .notAllowed(.locked))
        #expect(
            try await store.acceptInvitation(id: created.id, invitee: "ana", at: start, lockAfter: 5, matches: matching("123456"))
                == .notAllowed(.locked), "the right passcode no longer opens a locked invitation")
        #expect(
            try await store.acceptInvitation(id: created.id, invitee: "lead", at: start, lockAfter: 5, matches: matching("123456"))
                == .notFound,
            "only the invitee may accept")
        // A new invitation may be sent once the locked one is closed.
        guard case .invitation = try await store.createInvitation(invitation(team, "ana")) else {
            Issue.record("a new invitation after a locked one")
            return
        }
    }

    public static func invitationsExpireAndAreRefusedForWhoCannotJoin(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        #expect(try await store.createInvitation(invitation(team, "nobody")) == .unknownUser)
        #expect(try await store.createInvitation(invitation(team, "rui")) == .notInvitable(.researcher))
        #expect(try await store.createInvitation(invitation(team, "lead")) == .alreadyInTeam)
        guard case .invitation(let created) = try await store.createInvitation(invitation(team, "ana")) else {
            Issue.record("not created")
            return
        }
        let late = start.addingTimeInterval(8 * 86_400)
        #expect(
            try await store.acceptInvitation(id: created.id, invitee: "ana", at: late, lockAfter: 5, matches: matching("123456"))
                == .notAllowed(.expired))
        #expect(try await store.invitation(id: created.id)?.state(at: late) == .expired)
        guard case .invitation = try await store.createInvitation(invitation(team, "ana", at: late)) else {
            Issue.record("an expired invitation does not block a new one")
            return
        }
        #expect(try await store.invitations(invitee: "ana", teamId: nil).count == 2)
        #expect(try await store.invitations(invitee: nil, teamId: team.id).count == 2)
        #expect(try await store.invitation(id: UUID()) == nil)
    }

    public static func declinedAndRevokedInvitationsNotifyAndStayClosed(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        _ = try await store.createUser(NewUser(username: "bo", passwordHash: "h", role: .fieldworker, teamId: nil), at: start)
        guard case .invitation(let toAna) = try await store.createInvitation(invitation(team, "ana")),
            case .invitation(let toBo) = try await store.createInvitation(invitation(team, "bo"))
        else {
            Issue.record("not created")
            return
        }
        #expect(try await store.decideInvitation(id: toAna.id, .decline, by: "bo", at: start) == .notFound, "only the invitee declines")
        guard case .invitation(let declined) = try await store.decideInvitation(id: toAna.id, .decline, by: "ana", at: start) else {
            Issue.record("not declined")
            return
        }
        #expect(declined.storedState == .declined)
        #expect(try await store.decideInvitation(id: toAna.id, .confirm, by: "lead", at: start) == .notAllowed(.declined))
        guard case .invitation(let revoked) = try await store.decideInvitation(id: toBo.id, .revoke, by: "lead", at: start) else {
            Issue.record("not revoked")
            return
        }
        #expect(revoked.storedState == .revoked)
        #expect(
            try await store.acceptInvitation(id: toBo.id, invitee: "bo", at: start, lockAfter: 5, matches: matching("123456"))
                == .notAllowed(.revoked))
        let lead = try await user(store, "lead"), bo = try await user(store, "bo")
        #expect(try await store.notifications(NotificationQuery(userId: lead.id)).map(\.type) == [NotificationType.invitationDeclined])
        #expect(
            try await store.notifications(NotificationQuery(userId: bo.id)).map(\.type) == [
                NotificationType.invited, NotificationType.invitationRevoked,
            ])
    }

    public static func coordinatorsChangeRolesAndRemoveMembersButNeverTheLastCoordinator(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        _ = try await store.createUser(NewUser(username: "bo", passwordHash: "h", role: .fieldworker, teamId: team.id), at: start)
        #expect(
            try await store.changeMemberRole(teamId: team.id, username: "lead", to: .fieldworker, by: "lead", at: start) == .lastCoordinator
        )
        #expect(try await store.removeMember(teamId: team.id, username: "lead", by: "lead", at: start) == .lastCoordinator)
        #expect(try await store.changeMemberRole(teamId: team.id, username: "ana", to: .coordinator, by: "lead", at: start) == .notMember)
        let promoted = try await store.changeMemberRole(teamId: team.id, username: "bo", to: .coordinator, by: "lead", at: start)
        #expect(promoted == .changed(Member(username: "bo", role: .coordinator, since: start)))
        #expect(try await store.removeMember(teamId: team.id, username: "lead", by: "bo", at: start.addingTimeInterval(1)) == .changed(nil))
        #expect(try await store.members(teamId: team.id).map(\.username) == ["bo"])
        #expect(try await user(store, "lead").teamId == nil)
        let history = try await store.membershipHistory(teamId: team.id)
        #expect(history.map(\.kind) == [.joined, .joined, .roleChanged, .left])
        #expect(history.map(\.username) == ["lead", "bo", "bo", "lead"] && history.last?.by == "bo")
        let lead = try await user(store, "lead")
        let notes = try await store.notifications(NotificationQuery(userId: lead.id))
        #expect(notes.map(\.type) == [NotificationType.membershipChanged] && notes.first?.subject["change"] == "removed")
    }

    public static func notificationsAreReadCountedAndDeletedPerUser(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        for name in ["a1", "a2", "a3"] {
            _ = try await store.createUser(NewUser(username: name, passwordHash: "h", role: .fieldworker, teamId: nil), at: start)
            guard case .invitation(let created) = try await store.createInvitation(invitation(team, name)) else {
                Issue.record("not created")
                return
            }
            _ = try await store.acceptInvitation(id: created.id, invitee: name, at: start, lockAfter: 5, matches: matching("123456"))
        }
        let lead = try await user(store, "lead"), a1 = try await user(store, "a1")
        #expect(try await store.unreadNotificationCounts(userId: lead.id) == [NotificationType.invitationAccepted: 3])
        let all = try await store.notifications(NotificationQuery(userId: lead.id))
        #expect(all.count == 3 && all.allSatisfy { $0.readAt == nil })
        #expect(try await store.newestNotificationId(userId: lead.id) == all[2].id)
        #expect(
            try await store.newestNotificationId(userId: a1.id)
                == (try await store.notifications(NotificationQuery(userId: a1.id)).map(\.id).max() ?? 0))
        let quiet = try await store.createUser(NewUser(username: "quiet", passwordHash: "h", role: .fieldworker, teamId: nil), at: start)
        #expect(try await store.newestNotificationId(userId: quiet.id) == 0, "told of nothing")
        let page = try await store.notifications(NotificationQuery(userId: lead.id, after: all[0].id, limit: 1))
        #expect(page.map(\.id) == [all[1].id], "paged after an id")
        // A person's inbox: the newest first, paged back by the last id shown.
        let newest = try await store.notifications(NotificationQuery(userId: lead.id, newestFirst: true, limit: 2))
        #expect(newest.map(\.id) == [all[2].id, all[1].id], "newest first")
        let older = try await store.notifications(NotificationQuery(userId: lead.id, before: newest[1].id, newestFirst: true, limit: 2))
        #expect(older.map(\.id) == [all[0].id], "the oldest reached by paging back")
        #expect(
            try await store.notifications(NotificationQuery(userId: lead.id, after: all[0].id, before: all[2].id)).map(\.id) == [all[1].id],
            "between two ids")
        #expect(try await store.markNotificationsRead(userId: a1.id, ids: [all[0].id], at: start) == 0, "not another user's")
        #expect(try await store.markNotificationsRead(userId: lead.id, ids: [all[0].id], at: start) == 1)
        #expect(try await store.markNotificationsRead(userId: lead.id, ids: [all[0].id], at: start) == 0, "already read")
        #expect(try await store.notifications(NotificationQuery(userId: lead.id, unreadOnly: true)).map(\.id) == [all[1].id, all[2].id])
        #expect(try await store.unreadNotificationCounts(userId: lead.id) == [NotificationType.invitationAccepted: 2])
        #expect(
            try await store.notifications(NotificationQuery(userId: lead.id, types: [NotificationType.invited])).isEmpty, "filtered by type"
        )
        #expect(try await store.deleteNotification(userId: a1.id, id: all[1].id) == false)
        #expect(try await store.deleteNotification(userId: lead.id, id: all[1].id))
        #expect(try await store.markNotificationsRead(userId: lead.id, ids: nil, at: start) == 1)
        #expect(try await store.unreadNotificationCounts(userId: lead.id).isEmpty)
        #expect(try await store.notifications(NotificationQuery(userId: lead.id)).map(\.id) == [all[0].id, all[2].id])
    }

    public static func anAnnouncementReachesEveryMemberOrEveryoneButItsAuthorOnce(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        let other = try await store.createTeam(name: "o", at: start)
        _ = try await store.createUser(NewUser(username: "bo", passwordHash: "h", role: .fieldworker, teamId: team.id), at: start)
        _ = try await store.createUser(NewUser(username: "cy", passwordHash: "h", role: .fieldworker, teamId: other.id), at: start)
        _ = try await store.createUser(NewUser(username: "off", passwordHash: "h", role: .fieldworker, teamId: team.id), at: start)
        _ = try await store.updateUser(username: "off", UserChange(disabled: true))

        let toTeam = try await store.announce(teamId: team.id, author: "lead", text: "Clinic closed Friday", at: start)
        #expect(toTeam.recipients == 1 && toTeam.teamId == team.id, "bo only: not the author, not another team, not a disabled user")
        let bo = try await user(store, "bo"), cy = try await user(store, "cy"), lead = try await user(store, "lead")
        let received = try await store.notifications(NotificationQuery(userId: bo.id))
        #expect(received.map(\.type) == [NotificationType.announcement])
        #expect(received.first?.subject == ["announcement": String(toTeam.id), "by": "lead", "text": "Clinic closed Friday", "team": "t"])
        #expect(try await store.notifications(NotificationQuery(userId: cy.id)).isEmpty)
        #expect(try await store.notifications(NotificationQuery(userId: lead.id)).isEmpty)

        let toAll = try await store.announce(teamId: nil, author: "admin", text: "Update on Monday", at: start)
        #expect(toAll.recipients == 5, "lead, ana, rui, bo, cy: every enabled user")
        #expect(toAll.id != toTeam.id)
        #expect(try await store.unreadNotificationCounts(userId: bo.id) == [NotificationType.announcement: 2])
        #expect(try await store.unreadNotificationCounts(userId: cy.id) == [NotificationType.announcement: 1])
    }

    public static func readNotificationsPastTheirRetentionArePurgedAndUnreadOnesKept(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        _ = try await store.createUser(NewUser(username: "bo", passwordHash: "h", role: .fieldworker, teamId: team.id), at: start)
        for text in ["one", "two", "three"] { _ = try await store.announce(teamId: team.id, author: "lead", text: text, at: start) }
        let bo = try await user(store, "bo")
        let all = try await store.notifications(NotificationQuery(userId: bo.id))
        #expect(try await store.markNotificationsRead(userId: bo.id, ids: [all[0].id], at: start) == 1)
        #expect(try await store.markNotificationsRead(userId: bo.id, ids: [all[1].id], at: start.addingTimeInterval(86_400)) == 1)
        #expect(try await store.purgeReadNotifications(readBefore: start.addingTimeInterval(3600)) == 1, "read before the cutoff")
        #expect(try await store.notifications(NotificationQuery(userId: bo.id)).map(\.id) == [all[1].id, all[2].id])
        #expect(try await store.purgeReadNotifications(readBefore: start.addingTimeInterval(365 * 86_400)) == 1, "unread ones stay")
        #expect(try await store.notifications(NotificationQuery(userId: bo.id)).map(\.id) == [all[2].id])
    }

    /// Two servers taking wrong passcodes at once count every one: after 5 the invitation is
    /// locked, and exactly 4 tries were told how many remained.
    public static func wrongPasscodesTriedAtOnceByTwoServersAreAllCounted(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await twoServers(kind)
        guard case .invitation(let created) = try await first.createInvitation(invitation(team, "ana")) else {
            Issue.record("not created")
            return
        }
        let outcomes = try await withThrowingTaskGroup(of: InvitationOutcome.self) { group in
            for index in 0..<10 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    try await store.acceptInvitation(id: created.id, invitee: "ana", at: start, lockAfter: 5, matches: matching("999999"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let told = outcomes.compactMap { if case .wrongPasscode(let remaining) = $0 { remaining } else { nil } }
        #expect(told.sorted() == [1, 2, 3, 4], "\(outcomes)")
        #expect(outcomes.filter { $0 == .notAllowed(.locked) }.count == 6)
        #expect(try await second.invitation(id: created.id)?.failedAttempts == 5)
    }

    /// Two coordinators confirming at once let the invitee in once, with one history event and one notification.
    public static func anInvitationConfirmedTwiceAtOnceJoinsOnce(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await twoServers(kind)
        guard case .invitation(let created) = try await first.createInvitation(invitation(team, "ana")) else {
            Issue.record("not created")
            return
        }
        _ = try await first.acceptInvitation(id: created.id, invitee: "ana", at: start, lockAfter: 5, matches: matching("123456"))
        async let a = first.decideInvitation(id: created.id, .confirm, by: "lead", at: start)
        async let b = second.decideInvitation(id: created.id, .confirm, by: "lead", at: start)
        let outcomes = try await [a, b]
        #expect(outcomes.filter { if case .invitation = $0 { true } else { false } }.count == 1, "\(outcomes)")
        #expect(outcomes.contains(.notAllowed(.confirmed)))
        #expect(try await first.membershipHistory(teamId: team.id).filter { $0.username == "ana" }.count == 1)
        let ana = try await user(first, "ana")
        #expect(
            try await first.notifications(NotificationQuery(userId: ana.id)).filter { $0.type == NotificationType.invitationConfirmed }
                .count == 1)
    }

    /// An open invitation (pending or accepted, and not expired) blocks another from the same
    /// team; a closed one (declined, revoked) or one past its expiry does not; another team may
    /// invite the same person meanwhile. As ``InvitationRules/invite(_:theirs:at:)`` decides.
    public static func anOpenInvitationBlocksAnotherAndAClosedOneDoesNot(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        let other = try await store.createTeam(name: "other", at: start)
        guard case .invitation(let first) = try await store.createInvitation(invitation(team, "ana")) else {
            Issue.record("not created")
            return
        }
        _ = try await store.acceptInvitation(id: first.id, invitee: "ana", at: start, lockAfter: 5, matches: matching("123456"))
        #expect(
            try await store.createInvitation(invitation(team, "ana", at: start.addingTimeInterval(60))) == .alreadyInvited(first.id),
            "an accepted invitation, not yet confirmed, is still open")
        guard
            case .invitation = try await store.createInvitation(
                NewInvitation(
                    teamId: other.id, invitee: "ana", role: .fieldworker, invitedBy: "admin", passcodeHash: "hash:1", createdAt: start,
                    expiresAt: start.addingTimeInterval(86_400)))
        else {
            Issue.record("another team's invitation is not blocked by this team's")
            return
        }
        // At the very instant it expires, it no longer blocks.
        guard case .invitation(let second) = try await store.createInvitation(invitation(team, "ana", at: first.expiresAt)) else {
            Issue.record("an invitation at its predecessor's expiry is blocked")
            return
        }
        _ = try await store.decideInvitation(id: second.id, .decline, by: "ana", at: first.expiresAt)
        guard case .invitation(let third) = try await store.createInvitation(invitation(team, "ana", at: first.expiresAt)) else {
            Issue.record("a declined invitation blocks a new one")
            return
        }
        _ = try await store.decideInvitation(id: third.id, .revoke, by: "lead", at: first.expiresAt)
        guard case .invitation = try await store.createInvitation(invitation(team, "ana", at: first.expiresAt)) else {
            Issue.record("a revoked invitation blocks a new one")
            return
        }
    }

    /// Two servers inviting one person to one team at once make one invitation: the others are
    /// told it exists, and the invitee is told once.
    public static func twoServersInvitingOnePersonAtOnceMakeOneInvitation(_ kind: some RecordStoreFactory) async throws {
        let (first, second, team) = try await twoServers(kind)
        let outcomes = try await withThrowingTaskGroup(of: InvitationOutcome.self) { group in
            for index in 0..<8 {
                let store = index.isMultiple(of: 2) ? first : second
                group.addTask { try await store.createInvitation(invitation(team, "ana")) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let created = outcomes.compactMap { if case .invitation(let invitation) = $0 { invitation } else { nil } }
        try #require(created.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .alreadyInvited(created[0].id) }.count == 7, "\(outcomes)")
        #expect(try await second.invitations(invitee: "ana", teamId: nil).count == 1)
        let ana = try await user(first, "ana")
        #expect(try await first.notifications(NotificationQuery(userId: ana.id)).filter { $0.type == NotificationType.invited }.count == 1)
    }

    /// An accepted invitation is told to every coordinator of the team, and to no one else (as
    /// ``InvitationRules/toldOfAcceptance(members:)`` decides).
    public static func anAcceptanceTellsEveryCoordinatorAndNoOneElse(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let team = try await setUp(store)
        _ = try await store.createUser(NewUser(username: "cora", passwordHash: "h", role: .coordinator, teamId: team.id), at: start)
        _ = try await store.createUser(NewUser(username: "fay", passwordHash: "h", role: .fieldworker, teamId: team.id), at: start)
        guard case .invitation(let created) = try await store.createInvitation(invitation(team, "ana")) else {
            Issue.record("not created")
            return
        }
        guard
            case .invitation = try await store.acceptInvitation(
                id: created.id, invitee: "ana", at: start, lockAfter: 5, matches: matching("123456"))
        else {
            Issue.record("not accepted")
            return
        }
        for (name, told) in [("lead", true), ("cora", true), ("fay", false), ("ana", false)] {
            let who = try await user(store, name)
            let accepted = try await store.notifications(NotificationQuery(userId: who.id)).filter {
                $0.type == NotificationType.invitationAccepted
            }
            #expect(accepted.count == (told ? 1 : 0), "\(name)")
        }
    }
}
