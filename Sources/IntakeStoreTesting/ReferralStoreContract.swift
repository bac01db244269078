import Foundation
import IntakeService
import Testing

/// What every store must do with referrals: the states, who is told, the thread, and the
/// referee's access to the referred record (and to nothing else).
public enum ReferralStoreContract {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Team "t" (coordinator "lead", member "fw") with one record of lead's; team "o" (coordinator
    /// "olead", member "omem").
    static func setUp(_ store: any RecordStore) async throws -> (t: Team, o: Team, record: UUID) {
        let t = try await store.createTeam(name: "t", at: start)
        let o = try await store.createTeam(name: "o", at: start)
        for (name, role, team) in [
            ("lead", Role.coordinator, t), ("fw", .fieldworker, t), ("olead", .coordinator, o), ("omem", .fieldworker, o),
        ] {
            _ = try await store.createUser(NewUser(username: name, passwordHash: "h", role: role, teamId: team.id), at: start)
        }
        let record = RecordStoreContract.record(31)
        _ = try await store.ingest([try IngestItem(record: record)], owner: RecordOwner(teamId: t.id, username: "lead"), at: start)
        return (t, o, record.id)
    }

    static func types(_ store: any RecordStore, _ name: String) async throws -> [String] {
        let user = try #require(try await store.credentials(username: name)?.user)
        return try await store.notifications(NotificationQuery(userId: user.id)).map(\.type)
    }

    /// Reassigning an accepted referral reopens it and tells whom it was taken from; a referral
    /// keeps when and by whom it was accepted; the referrer sends one nobody accepted elsewhere;
    /// nobody is told of their own act. The decisions are ``ReferralRules``'; the store runs them.
    public static func reassignmentReopensRetargetingMovesAndNobodyHearsOfTheirOwnAct(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (t, o, record) = try await setUp(store)
        let third = try await store.createTeam(name: "w", at: start)
        for (name, role) in [("wlead", Role.coordinator), ("omem2", .fieldworker)] {
            _ = try await store.createUser(
                NewUser(username: name, passwordHash: "h", role: role, teamId: name == "wlead" ? third.id : o.id), at: start)
        }
        // A self-referral tells nobody (fw refers to themselves).
        guard
            case .referral(let own) = try await store.createReferral(
                NewReferral(
                    recordId: record, fromTeamId: t.id, referrer: "fw", toTeamId: t.id, assignee: "fw", reason: "Remind me",
                    priority: .routine,
                    allowEdit: false, createdAt: start))
        else {
            Issue.record("no self-referral")
            return
        }
        #expect(try await types(store, "fw").isEmpty, "nobody is told of their own referral")
        _ = try await store.actOnReferral(id: own.id, .accept, by: "fw", at: start)
        #expect(try await types(store, "fw").isEmpty, "nor of their own answer")

        guard
            case .referral(let referral) = try await store.createReferral(
                NewReferral(
                    recordId: record, fromTeamId: t.id, referrer: "lead", toTeamId: o.id, assignee: "omem", reason: "Second opinion",
                    priority: .routine, allowEdit: false, createdAt: start))
        else {
            Issue.record("not created")
            return
        }
        let later = start.addingTimeInterval(60)
        guard case .referral(let accepted) = try await store.actOnReferral(id: referral.id, .accept, by: "omem", at: later) else {
            Issue.record("not accepted")
            return
        }
        #expect(accepted.acceptedBy == "omem" && accepted.acceptedAt.map { abs($0.timeIntervalSince(later)) < 0.01 } == true)
        // Retargeting is for referrals nobody accepted yet.
        #expect(
            try await store.retargetReferral(id: referral.id, toTeamId: third.id, assignee: nil, by: "lead", at: later)
                == .notAllowed(.accepted))

        // Reassigned once accepted: open again, nobody's acceptance, the previous assignee told.
        guard
            case .referral(let moved) = try await store.reassignReferral(
                id: referral.id, to: "omem2", by: "olead", at: later.addingTimeInterval(60))
        else {
            Issue.record("not reassigned")
            return
        }
        #expect(moved.state == .open && moved.assignee == "omem2" && moved.acceptedAt == nil && moved.acceptedBy == nil)
        #expect(try await types(store, "omem").contains(NotificationType.referralUnassigned))
        #expect(try await types(store, "omem2") == [NotificationType.referralReassigned])
        #expect(
            try await store.reassignReferral(id: referral.id, to: "omem2", by: "olead", at: later) == .referral(moved),
            "to its assignee: unchanged")
        // Accepted again: the referrer hears of it again.
        _ = try await store.actOnReferral(id: referral.id, .accept, by: "omem2", at: later.addingTimeInterval(120))
        #expect(try await types(store, "lead").filter { $0 == NotificationType.referralAccepted }.count == 2)

        // One nobody accepted goes elsewhere: the old referee is told, the new one receives it.
        guard
            case .referral(let open) = try await store.createReferral(
                NewReferral(
                    recordId: record, fromTeamId: t.id, referrer: "lead", toTeamId: o.id, assignee: nil, reason: "Dermatology",
                    priority: .routine, allowEdit: false, createdAt: later))
        else {
            Issue.record("not created")
            return
        }
        #expect(
            try await store.retargetReferral(id: open.id, toTeamId: third.id, assignee: "omem", by: "lead", at: later)
                == .notAMember("omem"))
        guard
            case .referral(let retargeted) = try await store.retargetReferral(
                id: open.id, toTeamId: third.id, assignee: nil, by: "lead", at: later)
        else {
            Issue.record("not retargeted")
            return
        }
        #expect(retargeted.toTeam == "w" && retargeted.state == .open && retargeted.assignee == nil)
        #expect(try await types(store, "olead").contains(NotificationType.referralRetargeted))
        #expect(try await types(store, "wlead") == [NotificationType.referralReceived])
        #expect(try await store.referralAccess(recordId: record, username: "wlead", teamId: third.id, role: .coordinator).read)
        #expect(try await store.referrals(ReferralFilter(recordId: record)).count == 3)
        #expect(
            try await store.referrals(ReferralFilter(state: .open, recordId: record)).map(\.id) == [open.id],
            "the state narrows the record's list")
        #expect(try await store.referrals(ReferralFilter(recordId: UUID())).isEmpty)
    }

    /// A referral follows its record and its people: deleting the record closes its open and
    /// accepted referrals (an ended one stays as it is) and tells the referee and the referrer;
    /// a member taken out of the team, or moved by an admin, hands the referrals assigned to them
    /// back to the team's coordinators, open, and they and the referrer are told. The decisions
    /// are ``ReferralRules``'; the store runs them in the same transaction.
    public static func aReferralFollowsItsRecordAndItsPeople(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (t, o, record) = try await setUp(store)
        for name in ["olead2", "omem2"] {
            _ = try await store.createUser(
                NewUser(username: name, passwordHash: "h", role: name == "olead2" ? .coordinator : .fieldworker, teamId: o.id), at: start)
        }
        func refer(_ record: UUID, by referrer: String = "lead", to assignee: String?) async throws -> Referral {
            guard
                case .referral(let referral) = try await store.createReferral(
                    NewReferral(
                        recordId: record, fromTeamId: t.id, referrer: referrer, toTeamId: o.id, assignee: assignee, reason: "Follow-up",
                        priority: .urgent, allowEdit: false, createdAt: start))
            else { throw ContractFailure("not created") }
            return referral
        }
        func state(_ id: UUID) async throws -> Referral? { try await store.referral(id: id) }
        let later = start.addingTimeInterval(60)

        // The record's referrals: one assigned and open, one unassigned and accepted, one completed.
        let assigned = try await refer(record, to: "omem")
        let unassigned = try await refer(record, by: "fw", to: nil)
        _ = try await store.actOnReferral(id: unassigned.id, .accept, by: "olead", at: later)
        let done = try await refer(record, to: "omem")
        _ = try await store.actOnReferral(id: done.id, .accept, by: "omem", at: later)
        _ = try await store.actOnReferral(id: done.id, .complete, by: "omem", at: later)
        let before = try await types(store, "omem").count
        guard case .deleted = try await store.deleteRecord(id: record, teamId: t.id, reason: "entered twice", by: "lead", at: later) else {
            Issue.record("not deleted")
            return
        }
        let (closedOne, closedTwo) = (try await state(assigned.id), try await state(unassigned.id))
        #expect(closedOne?.state == .closed && closedTwo?.state == .closed)
        #expect(try await state(done.id)?.state == .completed, "an ended referral stays as it is")
        let told = try await types(store, "omem")
        #expect(told.count == before + 1 && told.last == NotificationType.referralClosed)
        #expect(try await types(store, "olead").last == NotificationType.referralClosed, "the coordinators held the unassigned one")
        #expect(try await types(store, "fw").last == NotificationType.referralClosed, "its referrer is told")
        #expect(!(try await types(store, "lead")).contains(NotificationType.referralClosed), "nobody is told of their own act")
        #expect(try await store.referralAccess(recordId: record, username: "omem", teamId: o.id, role: .fieldworker).read == false)
        #expect(try await store.actOnReferral(id: assigned.id, .accept, by: "omem", at: later) == .notAllowed(.closed))
        _ = try await store.deleteRecord(id: record, teamId: t.id, reason: "again", by: "lead", at: later)
        #expect(try await types(store, "omem").count == before + 1, "a second deletion tells nobody again")

        // A member taken out: what was assigned to them and open or accepted goes back, open.
        let second = RecordStoreContract.record(32)
        _ = try await store.ingest([try IngestItem(record: second)], owner: RecordOwner(teamId: t.id, username: "lead"), at: start)
        let held = try await refer(second.id, to: "omem")
        _ = try await store.actOnReferral(id: held.id, .accept, by: "omem", at: later)
        let declined = try await refer(second.id, to: "omem")
        _ = try await store.actOnReferral(id: declined.id, .decline, by: "omem", at: later)
        let leadBefore = try await types(store, "lead").filter { $0 == NotificationType.referralReturned }.count
        let removed = try await store.changeMembership(teamId: o.id, username: "omem", by: "olead", at: later.addingTimeInterval(60)) {
            MembershipRules.remove($0, coordinators: $1)
        }
        #expect(removed == .changed(nil))
        let back = try #require(try await state(held.id))
        #expect(back.state == .open && back.assignee == nil && back.acceptedBy == nil && back.acceptedAt == nil, "\(back)")
        let ended = try await state(declined.id)
        #expect(ended?.state == .declined && ended?.assignee == "omem", "an ended one stays")
        #expect(try await types(store, "olead2").last == NotificationType.referralReturned, "the coordinators hold it now")
        #expect(
            !(try await types(store, "olead")).contains(NotificationType.referralReturned), "the coordinator who removed them is not told")
        #expect(
            try await types(store, "lead").filter { $0 == NotificationType.referralReturned }.count == leadBefore + 1,
            "the referrer is told")
        #expect(
            !(try await types(store, "omem")).contains(NotificationType.referralReturned), "the member who left hears of their removal only"
        )
        #expect(try await store.referralAccess(recordId: second.id, username: "olead2", teamId: o.id, role: .coordinator).read)
        guard case .referral(let answered) = try await store.actOnReferral(id: held.id, .accept, by: "olead2", at: later) else {
            Issue.record("a coordinator answers it now")
            return
        }
        #expect(answered.state == .accepted)

        // Moved to another team by an admin: the same.
        let moved = try await refer(second.id, to: "omem2")
        _ = try await store.updateUser(username: "omem2", UserChange(teamId: .some(t.id)))
        let returned = try #require(try await state(moved.id))
        #expect(returned.state == .open && returned.assignee == nil, "\(returned)")
        #expect(try await types(store, "olead2").filter { $0 == NotificationType.referralReturned }.count == 2)
    }

    public static func aReferralMovesFromOpenToCompletedAndEachSideIsTold(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (t, o, record) = try await setUp(store)
        let created = try await store.createReferral(
            NewReferral(
                recordId: record, fromTeamId: t.id, referrer: "lead", toTeamId: o.id, assignee: nil, reason: "Needs a cardiologist",
                priority: .urgent, allowEdit: false, createdAt: start))
        guard case .referral(let referral) = created else {
            Issue.record("not created: \(created)")
            return
        }
        #expect(referral.state == .open && referral.fromTeam == "t" && referral.toTeam == "o" && referral.priority == .urgent)
        #expect(try await types(store, "olead") == [NotificationType.referralReceived], "unassigned: the receiving coordinators are told")
        #expect(try await types(store, "omem").isEmpty)
        #expect(try await store.referralAccess(recordId: record, username: "olead", teamId: o.id, role: .coordinator) == (true, false))
        #expect(try await store.referralAccess(recordId: record, username: "omem", teamId: o.id, role: .fieldworker) == (false, false))

        guard case .referral(let assigned) = try await store.reassignReferral(id: referral.id, to: "omem", by: "olead", at: start) else {
            Issue.record("not reassigned")
            return
        }
        #expect(assigned.assignee == "omem")
        #expect(try await types(store, "omem") == [NotificationType.referralReassigned])
        #expect(try await store.referralAccess(recordId: record, username: "omem", teamId: o.id, role: .fieldworker) == (true, false))
        #expect(try await store.referralAccess(recordId: record, username: "olead", teamId: o.id, role: .coordinator) == (false, false))
        #expect(try await store.reassignReferral(id: referral.id, to: "fw", by: "olead", at: start) == .notAMember("fw"))

        guard case .referral(let accepted) = try await store.actOnReferral(id: referral.id, .accept, by: "omem", at: start) else {
            Issue.record("not accepted")
            return
        }
        #expect(accepted.state == .accepted)
        #expect(try await types(store, "lead") == [NotificationType.referralAccepted])

        let fromReferee = try #require(try await store.addReferralMessage(id: referral.id, author: "omem", text: "Seen today", at: start))
        let fromReferrer = try #require(try await store.addReferralMessage(id: referral.id, author: "lead", text: "Thanks", at: start))
        #expect(try await store.referralMessages(id: referral.id) == [fromReferee, fromReferrer], "an append-only thread, oldest first")
        #expect(try await types(store, "lead") == [NotificationType.referralAccepted, NotificationType.referralMessage])
        #expect(try await types(store, "omem") == [NotificationType.referralReassigned, NotificationType.referralMessage])

        guard case .referral(let completed) = try await store.actOnReferral(id: referral.id, .complete, by: "omem", at: start) else {
            Issue.record("not completed")
            return
        }
        #expect(completed.state == .completed)
        #expect(try await store.referralAccess(recordId: record, username: "omem", teamId: o.id, role: .fieldworker) == (false, false))
        #expect(try await store.actOnReferral(id: referral.id, .withdraw, by: "lead", at: start) == .notAllowed(.completed))

        let lead = try #require(try await store.credentials(username: "lead")?.user)
        for note in try await store.notifications(NotificationQuery(userId: lead.id)) {
            #expect(!note.subject.values.contains { $0.contains("cardiologist") || $0.contains("Thanks") }, "never the reason or a message")
        }
    }

    public static func referralsAreRefusedForAnotherTeamsRecordAndListedBySide(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (t, o, record) = try await setUp(store)
        func refer(from team: Int64, to other: Int64, assignee: String?, allowEdit: Bool = false) async throws -> ReferralOutcome {
            try await store.createReferral(
                NewReferral(
                    recordId: record, fromTeamId: team, referrer: "x", toTeamId: other, assignee: assignee, reason: "r", priority: .routine,
                    allowEdit: allowEdit, createdAt: start))
        }
        #expect(try await refer(from: o.id, to: t.id, assignee: nil) == .recordNotFound, "only the team's own records")
        #expect(try await refer(from: t.id, to: o.id, assignee: "fw") == .notAMember("fw"))
        guard case .referral(let inside) = try await refer(from: t.id, to: t.id, assignee: "fw", allowEdit: true),
            case .referral(let across) = try await refer(from: t.id, to: o.id, assignee: "omem")
        else {
            Issue.record("not created")
            return
        }
        #expect(try await store.referralAccess(recordId: record, username: "fw", teamId: t.id, role: .fieldworker) == (true, true))
        #expect(
            try await store.referrals(ReferralFilter(fromTeamId: t.id)).map(\.id).sorted { $0.uuidString < $1.uuidString }
                == [inside.id, across.id].sorted { $0.uuidString < $1.uuidString })
        #expect(try await store.referrals(ReferralFilter(toTeamId: o.id)).map(\.id) == [across.id])
        #expect(try await store.referrals(ReferralFilter(assignee: "fw")).map(\.id) == [inside.id])
        #expect(
            try await store.actOnReferral(id: across.id, .decline, by: "omem", at: start)
                == .referral(
                    try #require(try await store.referral(id: across.id)).with(state: .declined)))
        #expect(try await store.referrals(ReferralFilter(toTeamId: o.id, state: .open)).isEmpty)
        #expect(try await store.actOnReferral(id: UUID(), .accept, by: "omem", at: start) == .notFound)
        #expect(try await store.addReferralMessage(id: UUID(), author: "omem", text: "x", at: start) == nil)
    }

    /// A record's referrals are listed in every state they reach, oldest first; only the active
    /// ones (``ReferralState/isActive``) give the referee access, and edit only when they allow it
    /// (as ``ReferralRules/access(_:username:teamId:role:)`` decides from that list).
    public static func aRecordsReferralsAreListedInEveryStateAndOnlyActiveOnesGiveAccess(_ kind: some RecordStoreFactory) async throws {
        let store = try await kind.open()
        let (t, o, _) = try await setUp(store)
        for (index, state) in ReferralState.allCases.enumerated() {
            let record = RecordStoreContract.record(UInt64(4100 + index))
            _ = try await store.ingest([try IngestItem(record: record)], owner: RecordOwner(teamId: t.id, username: "lead"), at: start)
            guard
                case .referral(let referral) = try await store.createReferral(
                    NewReferral(
                        recordId: record.id, fromTeamId: t.id, referrer: "lead", toTeamId: o.id, assignee: "omem", reason: "r",
                        priority: .routine,
                        allowEdit: index.isMultiple(of: 2), createdAt: start))
            else {
                Issue.record("\(state): not created")
                continue
            }
            // Each state as a referral reaches it (a new state must be added here to compile).
            switch state {
            case .open: break
            case .accepted: _ = try await store.actOnReferral(id: referral.id, .accept, by: "omem", at: start)
            case .completed:
                _ = try await store.actOnReferral(id: referral.id, .accept, by: "omem", at: start)
                _ = try await store.actOnReferral(id: referral.id, .complete, by: "omem", at: start)
            case .declined: _ = try await store.actOnReferral(id: referral.id, .decline, by: "omem", at: start)
            case .withdrawn: _ = try await store.actOnReferral(id: referral.id, .withdraw, by: "lead", at: start)
            case .closed: _ = try await store.deleteRecord(id: record.id, teamId: t.id, reason: "x", by: "lead", at: start)
            }
            let listed = try await store.referrals(recordId: record.id)
            #expect(listed.map(\.id) == [referral.id] && listed.first?.state == state, "\(state): \(listed.map(\.state))")
            let access = try await store.referralAccess(recordId: record.id, username: "omem", teamId: o.id, role: .fieldworker)
            #expect(access == (state.isActive, state.isActive && referral.allowEdit), "\(state)")
            #expect(
                try await store.referralAccess(recordId: record.id, username: "omem", teamId: t.id, role: .fieldworker) == (false, false),
                "\(state): only to the team it was sent to")
        }
        #expect(try await store.referrals(recordId: UUID()).isEmpty)
    }
}

extension Referral {
    func with(state: ReferralState) -> Referral {
        var copy = self
        copy.state = state
        return copy
    }

}
