import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Every route × every role × the caller's own team, another team, another team's record
/// referred or granted to the caller, and its own team's record hidden from it (collector-only)
/// or deleted, against the status the access policy itself says:
/// ``RoutePolicy`` (who may call the route, with or without a team, and what it acts on) and
/// ``RecordAccessPolicy`` (what the caller may do with the record). The cases give only what a
/// call needs (its URI and body) and what the route answers a caller it lets through; a route
/// without a case, or without a row in the policy, fails the test.
struct AccessMatrixTests {
    static let callers: [String?] = [nil, "fieldworker-a", "coordinator-a", "researcher", "admin"]

    struct Case {
        var method: HTTPRequest.Method
        /// The route as registered, e.g. `/v1/records/{id}`.
        var route: String
        /// The URI to call; `{own}` stands for a record (of the caller's team, another team's, or
        /// one referred or granted to the caller), `{doomed}` for a record made for this one call.
        var uri: String
        /// What the route answers a caller the policy lets through (the fixture may make that a
        /// 404: an id that does not exist).
        var success: HTTPResponse.Status
        /// The same, where it differs by caller.
        var successFor: [String?: HTTPResponse.Status] = [:]
        /// On another team's resource, where the fixture (not the policy) decides for a caller.
        var otherFor: [String?: HTTPResponse.Status] = [:]
        var body: @Sendable (TestServer, Int, UUID) async throws -> Data? = { _, _, _ in nil }
    }

    /// Whose resource a call is on.
    enum Side: String, CaseIterable {
        case own, other
        /// Another team's record referred to the caller's team (read only, nobody assigned: its coordinators).
        case referred
        /// Another team's record with a read grant to fieldworker-a.
        case granted
        /// The caller's team's record another field worker collected, on the collector-only
        /// questionnaire (the matrix runs with the questionnaire collector-only).
        case hidden
        /// The caller's team's record, deleted.
        case deleted
    }

    /// The record a side's `{own}` stands for, as the policy sees it for `caller`.
    static func facts(_ side: Side, for caller: String) -> RecordFacts {
        switch side {
        case .own: RecordFacts(teamId: 1, collector: "fieldworker-a", collectorOnly: true)
        case .other: RecordFacts(teamId: 2, collector: "fieldworker-b", collectorOnly: true)
        case .referred:
            RecordFacts(teamId: 2, collector: "fieldworker-b", collectorOnly: true, referral: (caller == "coordinator-a", false))
        case .granted: RecordFacts(teamId: 2, collector: "fieldworker-b", collectorOnly: true, grant: (caller == "fieldworker-a", false))
        case .hidden: RecordFacts(teamId: 1, collector: "fieldworker-a2", collectorOnly: true)
        case .deleted: RecordFacts(teamId: 1, collector: "fieldworker-a", collectorOnly: true, deleted: true)
        }
    }

    /// The status the policy says `caller` gets from `test` on `side`.
    static func expected(_ test: Case, caller: String?, user: User?, side: Side) -> HTTPResponse.Status {
        let rule = RoutePolicy.rule(test.method.rawValue, test.route)!
        if let refusal = RoutePolicy.refusal(rule, user) { return refusal.status }
        let success = test.successFor[caller] ?? test.success
        guard let user, let caller else { return success }
        switch (rule.scope, side) {
        case (.teamCreation, _):
            // The test server keeps the default: only admins create teams.
            return user.role == .admin ? success : .forbidden
        case (.none, _), (_, .own): return success
        case (.record(let action), _):
            switch RecordAccessPolicy.decide(action, by: user, on: facts(side, for: caller)) {
            case .allowed: return success
            case .notFound: return .notFound
            case .gone: return .gone
            case .forbidden: return .forbidden
            }
        case (.team, _): return test.otherFor[caller] ?? (user.role == .admin ? success : .forbidden)
        case (.patient(let write), _): return test.otherFor[caller] ?? (user.role == .admin && !write ? success : .notFound)
        case (.export, _): return success
        }
    }

    static func json(_ value: some Encodable) -> Data { try! JSONEncoder().encode(value) }
    static func json(_ value: some RecordBody) -> Data { value.jsonBody }

    static func cases() -> [Case] {
        [
            Case(method: .get, route: "/health", uri: "/health", success: .ok),
            Case(method: .get, route: "/openapi.yaml", uri: "/openapi.yaml", success: .ok),
            Case(method: .get, route: "/metrics", uri: "/metrics", success: .ok),
            Case(
                method: .post, route: "/v1/sessions", uri: "/v1/sessions", success: .created,
                body: { _, _, _ in json(["username": "researcher", "password": "password-researcher"]) }),
            Case(method: .get, route: "/v1/me", uri: "/v1/me", success: .ok),
            Case(method: .get, route: "/v1/questionnaires", uri: "/v1/questionnaires", success: .ok),
            Case(
                method: .get, route: "/v1/questionnaires/{id}/versions/{version}", uri: "/v1/questionnaires/{qid}/versions/{qversion}",
                success: .ok),
            Case(
                method: .post, route: "/v1/questionnaires", uri: "/v1/questionnaires",
                success: .ok,
                body: { server, _, _ in
                    let published = try await server.services.store.questionnaires()[0]
                    return json(["files": published.files, "lists": published.lists])
                }),
            Case(
                method: .put, route: "/v1/questionnaires/{id}/versions/{version}/state",
                uri: "/v1/questionnaires/{qid}/versions/{qversion}/state",
                success: .ok, body: { _, _, _ in json(["state": "published"]) }),
            // The fixture's version is published: a test record of it is refused.
            Case(
                method: .post, route: "/v1/questionnaires/{id}/versions/{version}/test-records",
                uri: "/v1/questionnaires/{qid}/versions/{qversion}/test-records", success: .unprocessableContent,
                body: { server, n, _ in json(server.record(seed: UInt64(700 + n))) }),
            Case(
                method: .get, route: "/v1/questionnaires/{id}/versions/{version}/test-records",
                uri: "/v1/questionnaires/{qid}/versions/{qversion}/test-records", success: .ok),
            Case(
                method: .post, route: "/v1/questionnaires/{id}/versions/{version}/test-records/discard",
                uri: "/v1/questionnaires/{qid}/versions/{qversion}/test-records/discard", success: .ok),
            Case(
                method: .post, route: "/v1/records", uri: "/v1/records", success: .created,
                body: { server, n, _ in json(server.record(seed: UInt64(100 + n))) }),
            Case(
                method: .post, route: "/v1/records/batch", uri: "/v1/records/batch", success: .ok,
                body: { server, n, _ in json(Batch(records: [server.record(seed: UInt64(200 + n))])) }),
            Case(method: .get, route: "/v1/records", uri: "/v1/records?familyName=a", success: .ok),
            Case(method: .get, route: "/v1/records/ids", uri: "/v1/records/ids?prefix=0000", success: .ok),
            Case(method: .get, route: "/v1/records/{id}", uri: "/v1/records/{own}", success: .ok),
            Case(
                method: .put, route: "/v1/records/{id}", uri: "/v1/records/{own}", success: .ok,
                body: { server, n, target in
                    guard let current = try await server.services.store.record(id: target) else {
                        // The deleted side: an edit of a record that is no more.
                        return json(Update(baseRevision: 1, record: server.record(seed: UInt64(300 + n)).with { $0.id = target }))
                    }
                    return json(
                        Update(baseRevision: current.revision, record: current.record.with { $0.patient.externalId = UUID().uuidString }))
                }),
            Case(method: .get, route: "/v1/records/{id}/revisions", uri: "/v1/records/{own}/revisions", success: .ok),
            // No record of the fixture names a file: a caller let through finds none.
            Case(
                method: .get, route: "/v1/records/{id}/attachments/{sha256}",
                uri: "/v1/records/{own}/attachments/\(AttachmentFixture.digest)",
                success: .notFound),
            Case(method: .get, route: "/v1/uploads/{sha256}", uri: "/v1/uploads/\(AttachmentFixture.digest)", success: .ok),
            Case(
                method: .put, route: "/v1/uploads/{sha256}", uri: "/v1/uploads/\(AttachmentFixture.digest)", success: .created,
                body: { _, _, _ in AttachmentFixture.png }),
            Case(
                method: .get, route: "/v1/exports/attachments/{id}/{sha256}",
                uri: "/v1/exports/attachments/{own}/\(AttachmentFixture.digest)",
                success: .notFound),
            // `{doomed}`: a record made for this one call, in the caller's team or another.
            Case(
                method: .delete, route: "/v1/records/{id}", uri: "/v1/records/{doomed}",
                success: .ok,
                body: { _, _, _ in json(["reason": "entered twice"]) }),
            Case(method: .get, route: "/v1/cases", uri: "/v1/cases", success: .ok),
            // No case has this id: whoever the routes let through is told so.
            Case(method: .get, route: "/v1/cases/{id}", uri: "/v1/cases/00000000-0000-4000-8000-0000000000c1", success: .notFound),
            Case(
                method: .put, route: "/v1/cases/{id}/assignee", uri: "/v1/cases/00000000-0000-4000-8000-0000000000c1/assignee",
                success: .notFound, body: { _, _, _ in json(["assignee": "fieldworker-a"]) }),
            Case(
                method: .put, route: "/v1/cases/{id}/status", uri: "/v1/cases/00000000-0000-4000-8000-0000000000c1/status",
                success: .notFound, body: { _, _, _ in json(["status": "closed"]) }),
            Case(method: .get, route: "/v1/changes", uri: "/v1/changes?since=0", success: .ok),
            Case(
                method: .post, route: "/v1/records/{id}/grants", uri: "/v1/records/{own}/grants",
                success: .created,
                body: { _, _, _ in
                    json([
                        "toUser": "fieldworker-b", "access": "read", "expiresAt": Timestamp.string(from: Date().addingTimeInterval(3600)),
                    ])
                }),
            Case(
                method: .get, route: "/v1/records/{id}/grants", uri: "/v1/records/{own}/grants",
                success: .ok),
            Case(
                method: .delete, route: "/v1/records/{id}/grants/{grant}", uri: "/v1/records/{own}/grants/{fresh}",
                success: .notFound),
            Case(method: .get, route: "/v1/grants", uri: "/v1/grants", success: .ok),
            Case(method: .get, route: "/v1/records/{id}/review", uri: "/v1/records/{own}/review", success: .ok),
            // has_issues never locks: the record stays editable for the cases after.
            Case(
                method: .post, route: "/v1/records/{id}/review", uri: "/v1/records/{own}/review", success: .ok,
                body: { _, _, _ in json(["state": "has_issues"]) }),
            // Never locked: nothing to reopen.
            Case(method: .post, route: "/v1/records/{id}/review/reopen", uri: "/v1/records/{own}/review/reopen", success: .conflict),
            Case(
                method: .post, route: "/v1/records/{id}/review/comments", uri: "/v1/records/{own}/review/comments", success: .created,
                body: { _, _, _ in json(["text": "checked"]) }),
            Case(method: .get, route: "/v1/reviews", uri: "/v1/reviews?state=has_issues", success: .ok),
            Case(
                method: .post, route: "/v1/records/{id}/transfer", uri: "/v1/records/{doomed}/transfer",
                success: .ok,
                body: { _, _, _ in json(["toTeam": "team-c"]) }),
            Case(
                method: .post, route: "/v1/patients/{id}/transfer", uri: "/v1/patients/{fresh}/transfer",
                success: .notFound,
                body: { _, _, _ in json(["toTeam": "team-c"]) }),
            Case(method: .get, route: "/v1/questionnaires/{id}/access", uri: "/v1/questionnaires/{qid}/access", success: .ok),
            Case(
                method: .put, route: "/v1/questionnaires/{id}/access", uri: "/v1/questionnaires/{qid}/access", success: .ok,
                body: { _, _, _ in json(["collectorOnly": true]) }),
            Case(method: .get, route: "/v1/changes/stream", uri: "/v1/changes/stream", success: .ok),
            Case(
                method: .post, route: "/v1/tombstones/purge", uri: "/v1/tombstones/purge", success: .ok,
                body: { _, _, _ in json(["olderThanDays": 30]) }),
            Case(method: .get, route: "/v1/teams", uri: "/v1/teams", success: .ok),
            Case(
                method: .post, route: "/v1/teams", uri: "/v1/teams", success: .created,
                body: { _, n, _ in json(["name": "team-\(n)"]) }),
            Case(method: .get, route: "/v1/users", uri: "/v1/users", success: .ok),
            Case(
                method: .post, route: "/v1/users", uri: "/v1/users", success: .created,
                body: { _, n, _ in json(["username": "user-\(n)", "password": "a-long-password", "role": "researcher"]) }),
            Case(
                method: .patch, route: "/v1/users/{username}", uri: "/v1/users/researcher", success: .ok,
                body: { _, _, _ in json(["role": "researcher"]) }),
            Case(method: .post, route: "/v1/users/{username}/unlock", uri: "/v1/users/researcher/unlock", success: .ok),
            Case(
                method: .post, route: "/v1/users/{username}/tokens", uri: "/v1/users/researcher/tokens", success: .created,
                body: { _, _, _ in json(["name": "matrix"]) }),
            Case(method: .get, route: "/v1/users/{username}/tokens", uri: "/v1/users/researcher/tokens", success: .ok),
            Case(
                method: .delete, route: "/v1/users/{username}/tokens/{token}", uri: "/v1/users/researcher/tokens/000000000000",
                success: .notFound),
            Case(
                method: .get, route: "/v1/exports", uri: "/v1/exports?format=jsonl",
                success: .ok),
            Case(
                method: .patch, route: "/v1/teams/{team}", uri: "/v1/teams/{ownTeam}", success: .ok,
                body: { _, _, _ in json(["timeZone": "Asia/Amman"]) }),
            Case(
                method: .get, route: "/v1/teams/{team}/members", uri: "/v1/teams/{ownTeam}/members", success: .ok),
            Case(
                method: .get, route: "/v1/teams/{team}/history", uri: "/v1/teams/{ownTeam}/history", success: .ok),
            Case(
                method: .get, route: "/v1/teams/{team}/referrals", uri: "/v1/teams/{ownTeam}/referrals", success: .ok),
            Case(
                method: .patch, route: "/v1/teams/{team}/members/{username}", uri: "/v1/teams/{ownTeam}/members/{teamFieldworker}",
                success: .ok, body: { _, _, _ in json(["role": "fieldworker"]) }),
            Case(
                method: .delete, route: "/v1/teams/{team}/members/{username}", uri: "/v1/teams/{ownTeam}/members/nobody",
                success: .notFound),
            Case(
                method: .post, route: "/v1/teams/{team}/invitations", uri: "/v1/teams/{ownTeam}/invitations", success: .created,
                body: { server, n, _ in
                    _ = try await server.services.accounts.createUser(
                        username: "invitee-\(n)", password: "a-long-password", role: .fieldworker, team: nil)
                    return json(["username": "invitee-\(n)"])
                }),
            Case(
                method: .post, route: "/v1/teams/{team}/enrolments", uri: "/v1/teams/{ownTeam}/enrolments", success: .created,
                otherFor: ["admin": .unprocessableContent], body: { _, _, _ in json(["username": "fieldworker-a"]) }),
            Case(method: .get, route: "/v1/teams/{team}/enrolments", uri: "/v1/teams/{ownTeam}/enrolments", success: .ok),
            Case(method: .get, route: "/v1/teams/{team}/devices", uri: "/v1/teams/{ownTeam}/devices", success: .ok),
            Case(
                method: .delete, route: "/v1/teams/{team}/devices/{device}", uri: "/v1/teams/{ownTeam}/devices/999999", success: .notFound),
            // Public: a wrong code, whoever sends it.
            Case(
                method: .post, route: "/v1/devices", uri: "/v1/devices", success: .unprocessableContent,
                body: { _, _, _ in json(["code": "ABCD-EFGH-JKLM-NPQR", "deviceId": "matrix-machine"]) }),
            Case(method: .get, route: "/v1/invitations", uri: "/v1/invitations", success: .ok),
            Case(method: .get, route: "/v1/reports", uri: "/v1/reports?limit=10", success: .ok),
            Case(
                method: .post, route: "/v1/invitations/{id}/accept", uri: "/v1/invitations/{fresh}/accept", success: .notFound,
                body: { _, _, _ in json(["passcode": "000000"]) }),
            Case(method: .post, route: "/v1/invitations/{id}/decline", uri: "/v1/invitations/{fresh}/decline", success: .notFound),
            Case(method: .post, route: "/v1/invitations/{id}/revoke", uri: "/v1/invitations/{fresh}/revoke", success: .notFound),
            Case(method: .post, route: "/v1/invitations/{id}/confirm", uri: "/v1/invitations/{fresh}/confirm", success: .notFound),
            Case(
                method: .post, route: "/v1/announcements", uri: "/v1/announcements", success: .created,
                body: { _, _, _ in json(["text": "Clinic closed Friday"]) }),
            Case(method: .get, route: "/v1/notifications", uri: "/v1/notifications?unread=true", success: .ok),
            Case(method: .get, route: "/v1/notifications/counts", uri: "/v1/notifications/counts", success: .ok),
            Case(method: .get, route: "/v1/notifications/stream", uri: "/v1/notifications/stream", success: .ok),
            Case(
                method: .post, route: "/v1/notifications/read", uri: "/v1/notifications/read", success: .ok,
                body: { _, _, _ in json(["all": true]) }),
            Case(method: .delete, route: "/v1/notifications/{id}", uri: "/v1/notifications/999999", success: .notFound),
            Case(
                method: .post, route: "/v1/referrals", uri: "/v1/referrals", success: .created,
                body: { _, _, target in
                    json(["recordId": target.uuidString.lowercased(), "toTeam": "team-b", "reason": "needs a specialist"])
                }),
            Case(method: .get, route: "/v1/referrals", uri: "/v1/referrals?direction=sent", success: .ok),
            Case(method: .get, route: "/v1/referrals/{id}", uri: "/v1/referrals/{fresh}", success: .notFound),
            Case(method: .post, route: "/v1/referrals/{id}/accept", uri: "/v1/referrals/{fresh}/accept", success: .notFound),
            Case(method: .post, route: "/v1/referrals/{id}/decline", uri: "/v1/referrals/{fresh}/decline", success: .notFound),
            Case(method: .post, route: "/v1/referrals/{id}/complete", uri: "/v1/referrals/{fresh}/complete", success: .notFound),
            Case(method: .post, route: "/v1/referrals/{id}/withdraw", uri: "/v1/referrals/{fresh}/withdraw", success: .notFound),
            Case(
                method: .post, route: "/v1/referrals/{id}/reassign", uri: "/v1/referrals/{fresh}/reassign", success: .notFound,
                body: { _, _, _ in json(["toUser": "fieldworker-b"]) }),
            Case(
                method: .post, route: "/v1/referrals/{id}/retarget", uri: "/v1/referrals/{fresh}/retarget", success: .notFound,
                body: { _, _, _ in json(["toTeam": "team-c"]) }),
            Case(
                method: .post, route: "/v1/referrals/{id}/messages", uri: "/v1/referrals/{fresh}/messages", success: .notFound,
                body: { _, _, _ in json(["text": "hello"]) }),
            Case(
                method: .post, route: "/v1/webhooks", uri: "/v1/webhooks", success: .created,
                body: { _, _, _ in json(["url": "https://hooks.example.org/intake"]) }),
            Case(method: .get, route: "/v1/webhooks", uri: "/v1/webhooks", success: .ok),
            Case(method: .get, route: "/v1/webhooks/{id}", uri: "/v1/webhooks/{fresh}", success: .notFound),
            Case(method: .delete, route: "/v1/webhooks/{id}", uri: "/v1/webhooks/{fresh}", success: .notFound),
            Case(method: .post, route: "/v1/webhooks/{id}/resume", uri: "/v1/webhooks/{fresh}/resume", success: .notFound),
            Case(
                method: .post, route: "/v1/patients", uri: "/v1/patients", success: .created,
                body: { _, counter, _ in json(["givenName": "Amina", "familyName": "Haddad \(counter)"]) }),
            Case(
                method: .post, route: "/v1/patients/batch", uri: "/v1/patients/batch", success: .ok,
                body: { _, counter, _ in json(["patients": [["givenName": "Bilal", "familyName": "Khan \(counter)"]]]) }),
            Case(method: .get, route: "/v1/patients", uri: "/v1/patients?name=haddad", success: .ok),
            Case(
                method: .get, route: "/v1/patients/{id}", uri: "/v1/patients/{ownPatient}", success: .ok),
            Case(
                method: .patch, route: "/v1/patients/{id}", uri: "/v1/patients/{ownPatient}", success: .conflict,
                body: { _, _, _ in json(["baseRevision": 999]) }),
            Case(method: .post, route: "/v1/patients/{id}/archive", uri: "/v1/patients/{ownPatient}/archive", success: .ok),
            Case(method: .post, route: "/v1/patients/{id}/restore", uri: "/v1/patients/{ownPatient}/restore", success: .ok),
            Case(
                method: .put, route: "/v1/patients/{id}/consent", uri: "/v1/patients/{ownPatient}/consent", success: .ok,
                body: { _, _, _ in json(["scope": "sponsors_and_partners", "method": "written"]) }),
            Case(
                method: .get, route: "/v1/patients/{id}/consent", uri: "/v1/patients/{ownPatient}/consent", success: .ok),
            Case(
                method: .post, route: "/v1/data-groups", uri: "/v1/data-groups",
                success: .created,
                body: { _, counter, _ in json(["name": "arm_\(counter)"]) }),
            Case(method: .get, route: "/v1/data-groups", uri: "/v1/data-groups", success: .ok),
            Case(method: .get, route: "/v1/audit", uri: "/v1/audit", success: .ok),
            Case(method: .get, route: "/v1/audit/verify", uri: "/v1/audit/verify", success: .ok),
            Case(
                method: .delete, route: "/v1/data-groups/{name}", uri: "/v1/data-groups/never_defined",
                success: .notFound),
            Case(
                method: .put, route: "/v1/patients/{id}/reports/{series}/{date}",
                uri: "/v1/patients/{ownPatient}/reports/vitals/2026-01-01",
                // The field worker stores it first; the coordinator's replaces it.
                success: .ok, successFor: ["fieldworker-a": .created],
                body: { _, _, _ in json(["weight": 61]) }),
            Case(
                method: .get, route: "/v1/patients/{id}/reports/{series}", uri: "/v1/patients/{ownPatient}/reports/vitals",
                success: .ok),
            Case(
                method: .get, route: "/v1/patients/{id}/reports/{series}/{date}",
                uri: "/v1/patients/{ownPatient}/reports/vitals/2026-01-01",
                // The other team's patient has no report of that date: an admin, who may read it, is told so.
                success: .ok,
                otherFor: ["admin": .notFound]),
            Case(method: .delete, route: "/v1/sessions/current", uri: "/v1/sessions/current", success: .noContent),
        ]
    }

    @Test func everyRouteAnswersEveryRoleAsDocumented() async throws {
        // Event streams end after a moment here, so that the matrix can read them whole.
        var server = try await TestServer.make { $0.streamLifetime = .milliseconds(100) }
        try await server.addUser("fieldworker-a2", role: .fieldworker, team: "team-a")
        _ = try await server.services.store.setCollectorOnly(
            questionnaireId: server.questionnaire.reference.id, true, by: "admin", at: Date())
        let hidden = server.record(seed: 5, collector: "fieldworker-a2"), deleted = server.record(seed: 6)
        _ = try await server.services.records.ingest([hidden, deleted], owner: RecordOwner(teamId: 1, username: "fieldworker-a2"))
        _ = try await server.services.records.delete(deleted.id, teamId: 1, reason: "entered twice", by: "coordinator-a")
        let own = server.record(seed: 1), other = server.record(seed: 2, collector: "fieldworker-b")
        _ = try await server.services.records.ingest([own], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        _ = try await server.services.records.ingest([other], owner: RecordOwner(teamId: 2, username: "fieldworker-b"))
        _ = try await server.services.accounts.createTeam(name: "team-c")
        let patients = (own: UUID(), other: UUID())
        for (id, team) in [(patients.own, Int64(1)), (patients.other, Int64(2))] {
            _ = try await server.services.store.registerPatients([
                NewPatient(
                    id: id, teamId: team, identification: PatientIdentification(givenName: "Amina", familyName: "Haddad"), createdBy: "x",
                    createdAt: Date())
            ])
        }
        // Another team's records reaching team-a: one referred to it (read only, nobody
        // assigned: its coordinators), one with a read grant to fieldworker-a.
        let referred = server.record(seed: 3, collector: "fieldworker-b"), granted = server.record(seed: 4, collector: "fieldworker-b")
        _ = try await server.services.records.ingest([referred, granted], owner: RecordOwner(teamId: 2, username: "fieldworker-b"))
        let coordinatorB = try #require(try await server.services.store.credentials(username: "coordinator-b")?.user)
        _ = try await server.services.referrals.refer(
            referred.id, toUser: nil, toTeam: "team-a", reason: "second opinion", priority: .routine, allowEdit: false, by: coordinatorB)
        _ = try await server.services.store.createGrant(
            NewGrant(
                recordId: granted.id, fromTeamId: 2, toUser: "fieldworker-a", toTeam: nil, access: .read,
                expiresAt: Date().addingTimeInterval(86_400),
                grantedBy: "coordinator-b", grantedAt: Date()))

        let cases = Self.cases()
        let routes = IntakeServerApp.router(server.services).routes
        #expect(Set(cases.map { "\($0.method.rawValue) \($0.route)" }) == Set(routes), "the matrix covers every registered route")
        #expect(
            Set(RoutePolicy.rules.map(\.key)) == Set(routes),
            "the policy has a row for every route, and no row for a route that is not there")
        let documented = try ContractTests.documentedRoutes(try IntakeServerApp.openAPIDocument())
        #expect(Set(RoutePolicy.rules.map(\.key)) == documented, "the policy covers every route of openapi.yaml")
        var users: [String: User] = [:]
        // Signing out revokes the caller's token: give that case tokens of its own.
        for caller in Self.callers.compactMap({ $0 }) {
            let user = try #require(try await server.services.store.credentials(username: caller)?.user)
            users[caller] = user
            server.tokens["signout-\(caller)"] = try await server.services.accounts.issueToken(for: user, name: "signout", expiresAt: nil)
        }
        let q = server.questionnaire.reference
        let mismatches = try await server.application().test(.router) { [server, users] client in
            var mismatches: [String] = []
            var counter = 0
            for test in cases {
                let scope = RoutePolicy.rule(test.method.rawValue, test.route)?.scope
                for caller in Self.callers {
                    for side in Side.allCases {
                        switch side {
                        case .own: break
                        case .other:
                            guard
                                test.uri.contains("{own}") || test.uri.contains("{ownTeam}") || test.uri.contains("{ownPatient}")
                                    || test.uri.contains("{doomed}")
                            else { continue }
                        case .referred, .granted:
                            guard test.uri.contains("{own}"), case .record = scope else { continue }
                        case .hidden, .deleted:
                            guard test.uri.contains("{own}") || test.uri.contains("{doomed}"), case .record = scope else { continue }
                        }
                        counter += 1
                        let target =
                            switch side {
                            case .own: own.id
                            case .other: other.id
                            case .referred: referred.id
                            case .granted: granted.id
                            case .hidden: hidden.id
                            case .deleted: deleted.id
                            }
                        var doomed = ""
                        if test.uri.contains("{doomed}") {
                            let inTeam = side == .own || side == .hidden || side == .deleted
                            let collector = side == .hidden ? "fieldworker-a2" : inTeam ? "fieldworker-a" : "fieldworker-b"
                            let record = server.record(seed: UInt64(5_000 + counter), collector: collector)
                            let owner =
                                inTeam ? RecordOwner(teamId: 1, username: collector) : RecordOwner(teamId: 2, username: "fieldworker-b")
                            _ = try await server.services.records.ingest([record], owner: owner)
                            if side == .deleted {
                                _ = try await server.services.records.delete(
                                    record.id, teamId: 1, reason: "entered twice", by: "coordinator-a")
                            }
                            doomed = record.id.uuidString.lowercased()
                        }
                        let ownSide = side == .own
                        let uri = test.uri.replacingOccurrences(of: "{own}", with: target.uuidString.lowercased())
                            .replacingOccurrences(of: "{doomed}", with: doomed)
                            .replacingOccurrences(of: "{qid}", with: q.id).replacingOccurrences(of: "{qversion}", with: q.version)
                            .replacingOccurrences(of: "{ownTeam}", with: ownSide ? "team-a" : "team-b")
                            .replacingOccurrences(of: "{teamFieldworker}", with: ownSide ? "fieldworker-a" : "fieldworker-b")
                            .replacingOccurrences(of: "{fresh}", with: UUID().uuidString.lowercased())
                            .replacingOccurrences(
                                of: "{ownPatient}", with: (ownSide ? patients.own : patients.other).uuidString.lowercased())
                        let expected = Self.expected(test, caller: caller, user: caller.flatMap { users[$0] }, side: side)
                        let token = test.route == "/v1/sessions/current" ? caller.map { "signout-\($0)" } : caller
                        let response = try await client.send(
                            test.method, uri, as: token, in: server, body: try await test.body(server, counter, target))
                        if response.status != expected {
                            mismatches.append(
                                "\(test.method) \(uri) (\(side)) as \(caller ?? "anonymous"): \(response.status.code), expected \(expected.code)"
                            )
                        }
                        #expect(response.status.code < 500)
                    }
                }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }
}
