import Foundation
import IntakeCore
import Testing

@testable import IntakeService

/// The rules of editing, deleting and re-sending records and of changing patients, decided
/// without a store (the store contracts prove each store runs them, races included).
struct RecordRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let tombstone = Tombstone(
        recordId: UUID(), teamId: 1, questionnaireId: "q", revision: 3, deletedAt: now, deletedBy: "cora", reason: "duplicate")

    @Test func anEditIsSavedOnlyOnTheCurrentRevisionOfTheTeamsLiveRecord() {
        let live = RecordStanding(teamId: 1, revision: 3)
        #expect(RecordRules.edit(live, teamId: 1, baseRevision: 3) == .save(revision: 4))
        #expect(RecordRules.edit(live, teamId: 1, baseRevision: 2) == .refuse(.stale(currentRevision: 3)))
        #expect(RecordRules.edit(live, teamId: 2, baseRevision: 3) == .refuse(.notFound), "another team's record is not told of")
        #expect(RecordRules.edit(nil, teamId: 1, baseRevision: 1) == .refuse(.notFound))
        let deleted = RecordStanding(teamId: 1, revision: 3, tombstone: Self.tombstone)
        #expect(RecordRules.edit(deleted, teamId: 1, baseRevision: 3) == .refuse(.deleted(Self.tombstone)))
        #expect(RecordRules.edit(deleted, teamId: 2, baseRevision: 3) == .refuse(.notFound), "nor its tombstone")
    }

    @Test func aDeletionHappensOnceAndTheSecondGetsTheFirstsTombstone() {
        #expect(RecordRules.delete(RecordStanding(teamId: 1, revision: 1), teamId: 1) == .delete)
        #expect(RecordRules.delete(RecordStanding(teamId: 1, revision: 1), teamId: 2) == .refuse(.notFound))
        #expect(
            RecordRules.delete(RecordStanding(teamId: 1, revision: 3, tombstone: Self.tombstone), teamId: 1)
                == .refuse(.alreadyDeleted(Self.tombstone)))
        #expect(RecordRules.delete(nil, teamId: 1) == .refuse(.notFound))
    }

    @Test func aRecordSentAgainIsADuplicateAConflictTakenOrDeleted() {
        let live = RecordStanding(teamId: 1, revision: 2)
        #expect(RecordRules.resent(live, teamId: 1) { true } == .duplicate(revision: 2))
        #expect(RecordRules.resent(live, teamId: 1) { false } == .conflict(currentRevision: 2))
        var asked = false
        #expect(
            RecordRules.resent(live, teamId: 2) {
                asked = true; return true
            } == .taken)
        #expect(!asked, "another team's record is never compared")
        #expect(
            RecordRules.resent(RecordStanding(teamId: 1, revision: 3, tombstone: Self.tombstone), teamId: 1) { true }
                == .deleted(Self.tombstone))
    }

    @Test func aPatientChangeNeedsTheCurrentRevisionAndDefinedGroups() {
        let patient = Patient(
            id: UUID(), teamId: 1, identification: PatientIdentification(givenName: "A", familyName: "B"), revision: 2,
            archivedAt: nil, sharingScope: nil, createdBy: "x", createdAt: Self.now, updatedAt: Self.now)
        #expect(PatientRules.change(patient, baseRevision: 2) == nil)
        #expect(PatientRules.change(patient, baseRevision: 1) == .stale(current: 2))
        #expect(PatientRules.change(nil, baseRevision: 1) == .notFound)
        #expect(PatientRules.groups(DataGroupChange(add: ["trial"], remove: ["pilot"]), defined: ["pilot", "trial"]) == nil)
        #expect(
            PatientRules.groups(DataGroupChange(add: ["other"]), defined: ["pilot"])
                == .unknownDataGroups(unknown: ["other"], defined: ["pilot"]))
    }

    @Test func aMessageIsToldToTheOtherSide() {
        let open = TeamRulesTests.referral(.open, assignee: "omem")
        #expect(ReferralRules.message(7, on: open, by: "omem", authorInReceivingTeam: true).to == .user("lead"))
        #expect(ReferralRules.message(7, on: open, by: "ocoord", authorInReceivingTeam: true).to == .user("lead"))
        #expect(ReferralRules.message(7, on: open, by: "lead", authorInReceivingTeam: false).to == .referee(assignee: "omem", teamId: 2))
        #expect(ReferralRules.message(7, on: open, by: "tmate", authorInReceivingTeam: false).to == .referee(assignee: "omem", teamId: 2))
        #expect(ReferralRules.message(7, on: open, by: "lead", authorInReceivingTeam: false).event == "message:7")
        #expect(
            ReferralRules.created(open)
                == ReferralNotice(to: .referee(assignee: "omem", teamId: 2), type: NotificationType.referralReceived, event: "created"))
        #expect(NotificationEvent.referral(open.id, "created") == "referral:\(open.id.uuidString.lowercased()):created")
    }
}
