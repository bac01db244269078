import Foundation
import Testing

@testable import IntakeService

/// The record-access policy on its own: each rule, decided without a server.
struct RecordAccessPolicyTests {
    static func user(_ name: String, _ role: Role, team: Int64?) -> User {
        User(id: 1, username: name, role: role, teamId: team, teamName: nil, disabled: false, createdAt: Date())
    }

    let fatima = Self.user("fatima", .fieldworker, team: 1)
    let farid = Self.user("farid", .fieldworker, team: 1)
    let cora = Self.user("cora", .coordinator, team: 1)
    let otto = Self.user("otto", .coordinator, team: 2)

    /// A follow-up sent through ODK names a case a field worker was given, though it was closed
    /// since, or one whose opening record is theirs; not another's case, nor another team's.
    @Test func aVisitNamesACaseItsFieldWorkerHadAndNoOther() {
        func visit(_ user: User, team: Int64 = 1, assignee: String?, open: Bool, hadIt: Bool = false) -> AccessDecision {
            RecordAccessPolicy.decide(.visit, by: user, onCaseOf: team, assignee: assignee, isOpen: open, hadIt: hadIt)
        }
        #expect(visit(fatima, assignee: "fatima", open: false) == .allowed, "closed since the visit was made")
        #expect(visit(fatima, assignee: nil, open: false) == .allowed, "the team's, closed since")
        #expect(visit(fatima, assignee: "farid", open: true) == .notFound, "another's, never hers")
        #expect(visit(fatima, assignee: "farid", open: true, hadIt: true) == .allowed, "she opened it; given to farid since")
        #expect(visit(fatima, team: 2, assignee: nil, open: true, hadIt: true) == .notFound)
        #expect(visit(cora, assignee: "farid", open: false) == .allowed)
        #expect(visit(otto, assignee: nil, open: true) == .notFound)
        #expect(
            RecordAccessPolicy.decide(.read, by: fatima, onCaseOf: 1, assignee: "fatima", isOpen: false) == .notFound,
            "visiting is not reading")
    }

    @Test func aTeamSeesItsRecordsAndNobodyElseKnowsThemExceptByReferralOrGrant() {
        let record = RecordFacts(teamId: 1, collector: "fatima")
        for action in RecordAction.allCases { #expect(RecordAccessPolicy.decide(action, by: otto, on: record) == .notFound, "\(action)") }
        for user in [fatima, farid, cora] {
            #expect(RecordAccessPolicy.decide(.read, by: user, on: record) == .allowed)
            #expect(RecordAccessPolicy.decide(.edit, by: user, on: record) == .allowed)
            #expect(RecordAccessPolicy.decide(.refer, by: user, on: record) == .allowed)
        }
        var referred = record
        referred.referral = (true, false)
        #expect(RecordAccessPolicy.decide(.read, by: otto, on: referred) == .allowed)
        #expect(RecordAccessPolicy.decide(.edit, by: otto, on: referred) == .forbidden(code: "read_only_referral"))
        for action: RecordAction in [.delete, .transfer, .grant, .refer] {
            #expect(RecordAccessPolicy.decide(action, by: otto, on: referred) == .notFound, "a referral never gives \(action)")
        }
        referred.referral = (true, true)
        #expect(RecordAccessPolicy.decide(.edit, by: otto, on: referred) == .allowed)
        var granted = record
        granted.grant = (true, false)
        #expect(RecordAccessPolicy.decide(.edit, by: otto, on: granted) == .forbidden(code: "read_only_grant"))
        granted.grant = (true, true)
        #expect(RecordAccessPolicy.decide(.edit, by: otto, on: granted) == .allowed)
    }

    @Test func collectorOnlyHidesAnotherFieldWorkersRecordButNotFromCoordinators() {
        let record = RecordFacts(teamId: 1, collector: "fatima", collectorOnly: true)
        #expect(RecordAccessPolicy.decide(.read, by: fatima, on: record) == .allowed)
        #expect(RecordAccessPolicy.decide(.read, by: cora, on: record) == .allowed)
        for action: RecordAction in [.read, .edit, .refer] {
            #expect(RecordAccessPolicy.decide(action, by: farid, on: record) == .notFound, "\(action)")
        }
        #expect(RecordAccessPolicy.needsReferralsAndGrants(farid, record), "a teammate's referral or grant may still open it")
        #expect(!RecordAccessPolicy.needsReferralsAndGrants(fatima, record))
        #expect(RecordAccessPolicy.sees(farid, collectorOnly: true, collector: "fatima") == false)
        #expect(RecordAccessPolicy.sees(farid, collectorOnly: false, collector: "fatima"))
    }

    @Test func aDeletedRecordIsGoneToWhoCouldSeeItAndUnknownToOthers() {
        let record = RecordFacts(teamId: 1, collector: "", deleted: true)
        for action: RecordAction in [.read, .edit, .delete, .transfer, .grant] {
            #expect(RecordAccessPolicy.decide(action, by: cora, on: record) == .gone, "\(action)")
        }
        #expect(RecordAccessPolicy.decide(.refer, by: cora, on: record) == .notFound)
        #expect(RecordAccessPolicy.decide(.read, by: otto, on: record) == .notFound)
        var referred = record
        referred.referral = (true, false)
        #expect(RecordAccessPolicy.decide(.read, by: otto, on: referred) == .gone)
    }

    @Test func coordinatorsExportTheirTeamResearchersWhatConsentSharesDeIdentified() {
        #expect(
            RecordAccessPolicy.export(by: cora, includeIdentifiers: true, unlinkedRecordsReachResearchers: false)
                == .success(ExportReach(teamId: 1, consent: nil)))
        let teamless = Self.user("nora", .coordinator, team: nil)
        #expect(
            RecordAccessPolicy.export(by: teamless, includeIdentifiers: false, unlinkedRecordsReachResearchers: false) == .failure(.noTeam))
        var researcher = Self.user("rita", .researcher, team: nil)
        #expect(
            RecordAccessPolicy.export(by: researcher, includeIdentifiers: true, unlinkedRecordsReachResearchers: true)
                == .failure(.identifiers))
        #expect(
            RecordAccessPolicy.export(by: researcher, includeIdentifiers: false, unlinkedRecordsReachResearchers: true)
                == .success(ExportReach(teamId: nil, consent: ConsentFilter(scopes: ResearchAccess.external.scopes, includeUnlinked: true))),
            "a researcher without a stated access level is an external one")
        researcher.researchAccess = .study
        #expect(
            RecordAccessPolicy.export(by: researcher, includeIdentifiers: false, unlinkedRecordsReachResearchers: false)
                == .success(ExportReach(teamId: nil, consent: ConsentFilter(scopes: ResearchAccess.study.scopes, includeUnlinked: false))))
        for role: Role in [.fieldworker, .admin] {
            #expect(
                RecordAccessPolicy.export(
                    by: Self.user("x", role, team: 1), includeIdentifiers: false, unlinkedRecordsReachResearchers: false) == .failure(.role)
            )
        }
    }
}
