import Foundation
import Testing

@testable import IntakeService

/// The team and referral rules on their own, decided without a store (the store contracts prove
/// each store runs them, races included).
struct TeamRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aTeamAlwaysKeepsACoordinator() {
        let lead = Member(username: "lead", role: .coordinator, since: Self.now)
        let fw = Member(username: "fw", role: .fieldworker, since: Self.now)
        #expect(MembershipRules.changeRole(of: lead, to: .fieldworker, coordinators: 1) == .refuse(.lastCoordinator))
        #expect(MembershipRules.changeRole(of: lead, to: .fieldworker, coordinators: 2) == .apply(.role(.fieldworker)))
        #expect(MembershipRules.changeRole(of: fw, to: .fieldworker, coordinators: 1) == .unchanged)
        #expect(MembershipRules.changeRole(of: nil, to: .coordinator, coordinators: 1) == .refuse(.notMember))
        #expect(MembershipRules.remove(lead, coordinators: 1) == .refuse(.lastCoordinator))
        #expect(MembershipRules.remove(fw, coordinators: 1) == .apply(.remove))
    }

    static func referral(_ state: ReferralState, assignee: String? = nil) -> Referral {
        Referral(
            id: UUID(), recordId: UUID(), fromTeamId: 1, fromTeam: "t", referrer: "lead", toTeamId: 2, toTeam: "o", assignee: assignee,
            reason: "r", priority: .routine, allowEdit: false, state: state, createdAt: now, updatedAt: now,
            acceptedAt: state == .accepted ? now : nil, acceptedBy: state == .accepted ? assignee : nil)
    }

    @Test func referralsMoveOnlyFromTheStatesTheirActionsStartFrom() {
        #expect(ReferralRules.act(.complete, on: Self.referral(.open), by: "x", at: Self.now) == .refuse(.notAllowed(.open)))
        guard case .change(let accepted) = ReferralRules.act(.accept, on: Self.referral(.open, assignee: "omem"), by: "omem", at: Self.now)
        else {
            Issue.record("not accepted")
            return
        }
        #expect(accepted.state == .accepted && accepted.acceptedBy == "omem" && accepted.acceptedAt == Self.now)
        #expect(accepted.notices.map(\.to) == [.user("lead")], "the referrer hears the answer")
        guard case .change(let withdrawn) = ReferralRules.act(.withdraw, on: Self.referral(.open), by: "lead", at: Self.now) else {
            Issue.record("not withdrawn")
            return
        }
        #expect(withdrawn.notices.map(\.to) == [.referee(assignee: nil, teamId: 2)], "the referee hears the withdrawal")
    }

    @Test func reassigningReopensAndRetargetingIsForOpenReferralsOnly() {
        guard
            case .change(let moved) = ReferralRules.reassign(
                Self.referral(.accepted, assignee: "omem"), to: "omem2", by: "olead", at: Self.now)
        else {
            Issue.record("not reassigned")
            return
        }
        #expect(moved.state == .open && moved.acceptedAt == nil && moved.mustBeMember == "omem2")
        #expect(moved.notices.map(\.type) == [NotificationType.referralReassigned, NotificationType.referralUnassigned])
        #expect(ReferralRules.reassign(Self.referral(.open, assignee: "omem"), to: "omem", by: "olead", at: Self.now) == .unchanged)
        #expect(
            ReferralRules.reassign(Self.referral(.completed), to: "omem", by: "olead", at: Self.now) == .refuse(.notAllowed(.completed)))
        #expect(
            ReferralRules.retarget(Self.referral(.accepted, assignee: "omem"), toTeamId: 3, assignee: nil, by: "lead", at: Self.now)
                == .refuse(.notAllowed(.accepted)))
        #expect(ReferralRules.retarget(Self.referral(.open), toTeamId: 2, assignee: nil, by: "lead", at: Self.now) == .unchanged)
        guard
            case .change(let retargeted) = ReferralRules.retarget(
                Self.referral(.open), toTeamId: 3, assignee: nil, by: "lead", at: Self.now)
        else {
            Issue.record("not retargeted")
            return
        }
        #expect(
            retargeted.toTeamId == 3
                && retargeted.notices.map(\.to) == [.referee(assignee: nil, teamId: 2), .referee(assignee: nil, teamId: 3)])
    }

    @Test func aDeletedRecordClosesOnlyActiveReferralsAndTellsBothSides() {
        for ended in [ReferralState.completed, .declined, .withdrawn, .closed] {
            #expect(ReferralRules.recordDeleted(Self.referral(ended, assignee: "omem"), by: "lead", at: Self.now) == .unchanged)
        }
        guard case .change(let closed) = ReferralRules.recordDeleted(Self.referral(.accepted, assignee: "omem"), by: "lead", at: Self.now)
        else {
            Issue.record("not closed")
            return
        }
        #expect(closed.state == .closed && closed.assignee == "omem")
        #expect(closed.notices.map(\.to) == [.referee(assignee: "omem", teamId: 2), .user("lead")])
        #expect(closed.notices.allSatisfy { $0.type == NotificationType.referralClosed })
    }

    @Test func aLeavingMemberHandsBackOnlyActiveReferralsAssignedToThem() {
        #expect(
            ReferralRules.memberLeft(Self.referral(.open, assignee: "other"), member: "omem", teamId: 2, by: "olead", at: Self.now)
                == .unchanged)
        #expect(
            ReferralRules.memberLeft(Self.referral(.open, assignee: "omem"), member: "omem", teamId: 9, by: "olead", at: Self.now)
                == .unchanged)
        #expect(
            ReferralRules.memberLeft(Self.referral(.declined, assignee: "omem"), member: "omem", teamId: 2, by: "olead", at: Self.now)
                == .unchanged)
        guard
            case .change(let back) = ReferralRules.memberLeft(
                Self.referral(.accepted, assignee: "omem"), member: "omem", teamId: 2, by: "olead", at: Self.now)
        else {
            Issue.record("not handed back")
            return
        }
        #expect(back.state == .open && back.assignee == nil && back.acceptedBy == nil && back.acceptedAt == nil)
        #expect(back.notices.map(\.to) == [.referee(assignee: nil, teamId: 2), .user("lead")])
        // A member who referred to themselves is not told of it as its referrer.
        var own = Self.referral(.open, assignee: "omem")
        own.referrer = "omem"
        guard case .change(let returned) = ReferralRules.memberLeft(own, member: "omem", teamId: 2, by: "olead", at: Self.now) else {
            Issue.record("not handed back")
            return
        }
        #expect(returned.notices.map(\.to) == [.referee(assignee: nil, teamId: 2)])
    }

    static func invitation(_ state: InvitationState, expiresIn seconds: TimeInterval = 3600) -> Invitation {
        Invitation(
            id: UUID(), teamId: 1, teamName: "t", invitee: "ana", role: .fieldworker, invitedBy: "lead", storedState: state, createdAt: now,
            expiresAt: now.addingTimeInterval(seconds), updatedAt: now, failedAttempts: 0)
    }

    @Test func onlyFieldWorkersAndCoordinatorsOfNoTeamMayBeInvitedAndOnlyOnceAtATime() {
        let free = Invitee(role: .fieldworker, teamId: nil)
        #expect(InvitationRules.invite(nil, theirs: [], at: Self.now) == .refuse(.unknownUser))
        #expect(
            InvitationRules.invite(Invitee(role: .researcher, teamId: nil), theirs: [], at: Self.now) == .refuse(.notInvitable(.researcher))
        )
        #expect(InvitationRules.invite(Invitee(role: .admin, teamId: nil), theirs: [], at: Self.now) == .refuse(.notInvitable(.admin)))
        #expect(InvitationRules.invite(Invitee(role: nil, teamId: nil), theirs: [], at: Self.now) == .refuse(.notInvitable(.researcher)))
        #expect(InvitationRules.invite(Invitee(role: .coordinator, teamId: 3), theirs: [], at: Self.now) == .refuse(.alreadyInTeam))
        #expect(InvitationRules.invite(free, theirs: [], at: Self.now) == .create)
        for state in InvitationState.allCases {
            let earlier = Self.invitation(state)
            let outcome = InvitationRules.invite(free, theirs: [earlier], at: Self.now)
            #expect(outcome == (state.isOpen ? .refuse(.alreadyInvited(earlier.id)) : .create), "\(state)")
            // Past its expiry (at the very instant), an open invitation no longer blocks.
            #expect(InvitationRules.invite(free, theirs: [Self.invitation(state, expiresIn: 0)], at: Self.now) == .create, "\(state)")
        }
    }

    @Test func anAcceptanceIsToldToTheTeamsCoordinatorsOnly() {
        let members = [
            Member(username: "lead", role: .coordinator, since: Self.now), Member(username: "fw", role: .fieldworker, since: Self.now),
            Member(username: "cora", role: .coordinator, since: Self.now),
        ]
        #expect(InvitationRules.toldOfAcceptance(members: members) == ["lead", "cora"])
        #expect(InvitationRules.toldOfAcceptance(members: []).isEmpty)
    }

    @Test func aGrantGoesFromTheRecordsTeamToSomeoneOutsideIt() {
        let grant = NewGrant(
            recordId: UUID(), fromTeamId: 1, toUser: "wanda", toTeam: nil, access: .read, expiresAt: Self.now, grantedBy: "lead",
            grantedAt: Self.now)
        #expect(GrantRules.create(grant, recordTeamId: nil, recipient: .user("wanda", teamId: 2)) == .refuse(.recordNotFound))
        #expect(GrantRules.create(grant, recordTeamId: 2, recipient: .user("wanda", teamId: 2)) == .refuse(.recordNotFound))
        #expect(GrantRules.create(grant, recordTeamId: 1, recipient: .unknownUser("wanda")) == .refuse(.unknownUser("wanda")))
        #expect(GrantRules.create(grant, recordTeamId: 1, recipient: .unknownTeam("lab")) == .refuse(.unknownTeam("lab")))
        #expect(GrantRules.create(grant, recordTeamId: 1, recipient: .user("wanda", teamId: 1)) == .refuse(.alreadyInTeam("wanda")))
        #expect(GrantRules.create(grant, recordTeamId: 1, recipient: .user("wanda", teamId: 2)) == .create(toTeamId: nil))
        #expect(GrantRules.create(grant, recordTeamId: 1, recipient: .user("wanda", teamId: nil)) == .create(toTeamId: nil))
        #expect(GrantRules.create(grant, recordTeamId: 1, recipient: .team("lab", id: 3)) == .create(toTeamId: 3))
    }

    @Test func onlyActiveReferralsToTheCallersTeamGiveAccess() {
        for state in ReferralState.allCases {
            var toTeam = Self.referral(state)
            toTeam.allowEdit = true
            #expect(
                ReferralRules.access([toTeam], username: "olead", teamId: 2, role: .coordinator) == (state.isActive, state.isActive),
                "\(state)")
            #expect(
                ReferralRules.access([toTeam], username: "omem", teamId: 2, role: .fieldworker) == (false, false),
                "unassigned: coordinators only")
            #expect(ReferralRules.access([toTeam], username: "olead", teamId: 3, role: .coordinator) == (false, false), "another team")
            let assigned = Self.referral(state, assignee: "omem")
            #expect(
                ReferralRules.access([assigned], username: "omem", teamId: 2, role: .fieldworker) == (state.isActive, false), "\(state)")
            #expect(
                ReferralRules.access([assigned], username: "olead", teamId: 2, role: .coordinator) == (false, false), "assigned to another")
        }
        #expect(
            ReferralRules.access([Self.referral(.closed), Self.referral(.open)], username: "x", teamId: 2, role: .coordinator) == (
                true, false
            ))
    }
}
