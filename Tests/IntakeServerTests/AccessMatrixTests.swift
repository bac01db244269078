import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import Testing

@testable import IntakeServer

/// Every route × every role × own or other team, against the expected status.
struct AccessMatrixTests {
    static let callers: [String?] = [nil, "fieldworker-a", "coordinator-a", "researcher", "admin"]

    struct Case {
        var method: HTTPRequest.Method
        /// The route as registered, e.g. `/v1/records/{id}`.
        var route: String
        /// The URI to call; `{own}` and `{other}` stand for a record of the caller's team and of another.
        var uri: String
        /// Expected status by caller (`nil` key: no token), for the caller's own team's resources.
        var expected: [String?: HTTPResponse.Status]
        /// For routes on a team (`{ownTeam}`): the statuses when the team is another one.
        var otherTeam: [String?: HTTPResponse.Status]? = nil
        var body: @Sendable (TestServer, Int, UUID) async throws -> Data? = { _, _, _ in nil }
    }

    /// Routes a team's coordinators and admins use: on another team, a coordinator is refused.
    static func managers(_ status: HTTPResponse.Status) -> (own: [String?: HTTPResponse.Status], other: [String?: HTTPResponse.Status]) {
        (
            [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": status, "researcher": .forbidden, "admin": status],
            [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .forbidden, "researcher": .forbidden, "admin": status]
        )
    }

    static func everyone(_ status: HTTPResponse.Status, anonymous: HTTPResponse.Status = .unauthorized) -> [String?: HTTPResponse.Status] {
        [nil: anonymous, "fieldworker-a": status, "coordinator-a": status, "researcher": status, "admin": status]
    }

    /// The registry: its team's field workers and coordinators, and admins (reading); never researchers.
    static func patientReaders(_ status: HTTPResponse.Status) -> [String?: HTTPResponse.Status] {
        [nil: .unauthorized, "fieldworker-a": status, "coordinator-a": status, "researcher": .forbidden, "admin": status]
    }

    /// Another team's patient: not found for its non-members; an admin reads every team's.
    static let adminReadsOtherTeams: [String?: HTTPResponse.Status] = [
        nil: .unauthorized, "fieldworker-a": .notFound, "coordinator-a": .notFound, "researcher": .forbidden, "admin": .ok,
    ]

    static func writers(_ status: HTTPResponse.Status) -> [String?: HTTPResponse.Status] {
        [nil: .unauthorized, "fieldworker-a": status, "coordinator-a": status, "researcher": .forbidden, "admin": .forbidden]
    }

    static func admins(_ status: HTTPResponse.Status) -> [String?: HTTPResponse.Status] {
        [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .forbidden, "researcher": .forbidden, "admin": status]
    }

    static func json(_ value: some Encodable) -> Data { try! JSONEncoder().encode(value) }
    static func json(_ value: some RecordBody) -> Data { value.jsonBody }

    static func cases() -> [Case] {
        [
            Case(method: .get, route: "/health", uri: "/health", expected: everyone(.ok, anonymous: .ok)),
            Case(method: .get, route: "/openapi.yaml", uri: "/openapi.yaml", expected: everyone(.ok, anonymous: .ok)),
            Case(
                method: .post, route: "/v1/sessions", uri: "/v1/sessions", expected: everyone(.created, anonymous: .created),
                body: { _, _, _ in json(["username": "researcher", "password": "password-researcher"]) }),
            Case(method: .get, route: "/v1/me", uri: "/v1/me", expected: everyone(.ok)),
            Case(method: .get, route: "/v1/questionnaires", uri: "/v1/questionnaires", expected: everyone(.ok)),
            Case(
                method: .get, route: "/v1/questionnaires/{id}/versions/{version}", uri: "/v1/questionnaires/{qid}/versions/{qversion}",
                expected: everyone(.ok)),
            Case(
                method: .post, route: "/v1/questionnaires", uri: "/v1/questionnaires",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .ok, "researcher": .forbidden, "admin": .ok],
                body: { server, _, _ in
                    let published = try await server.services.store.questionnaires()[0]
                    return json(["files": published.files, "lists": published.lists])
                }),
            Case(
                method: .post, route: "/v1/records", uri: "/v1/records", expected: writers(.created),
                body: { server, n, _ in json(server.record(seed: UInt64(100 + n))) }),
            Case(
                method: .post, route: "/v1/records/batch", uri: "/v1/records/batch", expected: writers(.ok),
                body: { server, n, _ in json(Batch(records: [server.record(seed: UInt64(200 + n))])) }),
            Case(method: .get, route: "/v1/records", uri: "/v1/records?familyName=a", expected: writers(.ok)),
            Case(method: .get, route: "/v1/records/{id}", uri: "/v1/records/{own}", expected: writers(.ok)),
            Case(
                method: .put, route: "/v1/records/{id}", uri: "/v1/records/{own}", expected: writers(.ok),
                body: { server, _, target in
                    let current = try await server.services.store.record(id: target)!
                    return json(
                        Update(baseRevision: current.revision, record: current.record.with { $0.patient.externalId = UUID().uuidString }))
                }),
            Case(method: .get, route: "/v1/records/{id}/revisions", uri: "/v1/records/{own}/revisions", expected: writers(.ok)),
            // `{doomed}`: a record made for this one call, in the caller's team or another.
            Case(
                method: .delete, route: "/v1/records/{id}", uri: "/v1/records/{doomed}",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .ok, "researcher": .forbidden, "admin": .forbidden],
                body: { _, _, _ in json(["reason": "entered twice"]) }),
            Case(method: .get, route: "/v1/changes", uri: "/v1/changes?since=0", expected: writers(.ok)),
            Case(
                method: .post, route: "/v1/records/{id}/grants", uri: "/v1/records/{own}/grants",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .created, "researcher": .forbidden, "admin": .forbidden],
                body: { _, _, _ in json(["toUser": "fieldworker-b", "access": "read", "expiresAt": Timestamp.string(from: Date().addingTimeInterval(3600))]) }),
            Case(
                method: .get, route: "/v1/records/{id}/grants", uri: "/v1/records/{own}/grants",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .ok, "researcher": .forbidden, "admin": .forbidden]),
            Case(
                method: .delete, route: "/v1/records/{id}/grants/{grant}", uri: "/v1/records/{own}/grants/{fresh}",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .notFound, "researcher": .forbidden, "admin": .forbidden]),
            Case(method: .get, route: "/v1/grants", uri: "/v1/grants", expected: writers(.ok)),
            Case(
                method: .post, route: "/v1/records/{id}/transfer", uri: "/v1/records/{doomed}/transfer",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .ok, "researcher": .forbidden, "admin": .forbidden],
                body: { _, _, _ in json(["toTeam": "team-c"]) }),
            Case(
                method: .post, route: "/v1/patients/{id}/transfer", uri: "/v1/patients/{fresh}/transfer",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .notFound, "researcher": .forbidden, "admin": .forbidden],
                body: { _, _, _ in json(["toTeam": "team-c"]) }),
            Case(method: .get, route: "/v1/questionnaires/{id}/access", uri: "/v1/questionnaires/{qid}/access", expected: everyone(.ok)),
            Case(
                method: .put, route: "/v1/questionnaires/{id}/access", uri: "/v1/questionnaires/{qid}/access", expected: admins(.ok),
                body: { _, _, _ in json(["collectorOnly": false]) }),
            Case(method: .get, route: "/v1/changes/stream", uri: "/v1/changes/stream", expected: writers(.ok)),
            Case(
                method: .post, route: "/v1/tombstones/purge", uri: "/v1/tombstones/purge", expected: admins(.ok),
                body: { _, _, _ in json(["olderThanDays": 30]) }),
            Case(method: .get, route: "/v1/teams", uri: "/v1/teams", expected: admins(.ok)),
            Case(
                method: .post, route: "/v1/teams", uri: "/v1/teams", expected: admins(.created),
                body: { _, n, _ in json(["name": "team-\(n)"]) }),
            Case(method: .get, route: "/v1/users", uri: "/v1/users", expected: admins(.ok)),
            Case(
                method: .post, route: "/v1/users", uri: "/v1/users", expected: admins(.created),
                body: { _, n, _ in json(["username": "user-\(n)", "password": "a-long-password", "role": "researcher"]) }),
            Case(
                method: .patch, route: "/v1/users/{username}", uri: "/v1/users/researcher", expected: admins(.ok),
                body: { _, _, _ in json(["role": "researcher"]) }),
            Case(method: .post, route: "/v1/users/{username}/unlock", uri: "/v1/users/researcher/unlock", expected: admins(.ok)),
            Case(
                method: .post, route: "/v1/users/{username}/tokens", uri: "/v1/users/researcher/tokens", expected: admins(.created),
                body: { _, _, _ in json(["name": "matrix"]) }),
            Case(
                method: .get, route: "/v1/exports", uri: "/v1/exports?format=jsonl",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .ok, "researcher": .ok, "admin": .forbidden]),
            Case(
                method: .get, route: "/v1/teams/{team}/members", uri: "/v1/teams/{ownTeam}/members", expected: managers(.ok).own,
                otherTeam: managers(.ok).other),
            Case(
                method: .get, route: "/v1/teams/{team}/history", uri: "/v1/teams/{ownTeam}/history", expected: managers(.ok).own,
                otherTeam: managers(.ok).other),
            Case(
                method: .get, route: "/v1/teams/{team}/referrals", uri: "/v1/teams/{ownTeam}/referrals", expected: managers(.ok).own,
                otherTeam: managers(.ok).other),
            Case(
                method: .patch, route: "/v1/teams/{team}/members/{username}", uri: "/v1/teams/{ownTeam}/members/{teamFieldworker}",
                expected: managers(.ok).own, otherTeam: managers(.ok).other, body: { _, _, _ in json(["role": "fieldworker"]) }),
            Case(
                method: .delete, route: "/v1/teams/{team}/members/{username}", uri: "/v1/teams/{ownTeam}/members/nobody",
                expected: managers(.notFound).own, otherTeam: managers(.notFound).other),
            Case(
                method: .post, route: "/v1/teams/{team}/invitations", uri: "/v1/teams/{ownTeam}/invitations", expected: managers(.created).own,
                otherTeam: managers(.created).other,
                body: { server, n, _ in
                    _ = try await server.services.accounts.createUser(username: "invitee-\(n)", password: "a-long-password", role: .fieldworker, team: nil)
                    return json(["username": "invitee-\(n)"])
                }),
            Case(method: .get, route: "/v1/invitations", uri: "/v1/invitations", expected: everyone(.ok)),
            Case(
                method: .post, route: "/v1/invitations/{id}/accept", uri: "/v1/invitations/{fresh}/accept", expected: everyone(.notFound),
                body: { _, _, _ in json(["passcode": "000000"]) }),
            Case(method: .post, route: "/v1/invitations/{id}/decline", uri: "/v1/invitations/{fresh}/decline", expected: everyone(.notFound)),
            Case(method: .post, route: "/v1/invitations/{id}/revoke", uri: "/v1/invitations/{fresh}/revoke", expected: managers(.notFound).own),
            Case(method: .post, route: "/v1/invitations/{id}/confirm", uri: "/v1/invitations/{fresh}/confirm", expected: managers(.notFound).own),
            Case(
                method: .post, route: "/v1/announcements", uri: "/v1/announcements", expected: managers(.created).own,
                body: { _, _, _ in json(["text": "Clinic closed Friday"]) }),
            Case(method: .get, route: "/v1/notifications", uri: "/v1/notifications?unread=true", expected: everyone(.ok)),
            Case(method: .get, route: "/v1/notifications/counts", uri: "/v1/notifications/counts", expected: everyone(.ok)),
            Case(method: .get, route: "/v1/notifications/stream", uri: "/v1/notifications/stream", expected: everyone(.ok)),
            Case(
                method: .post, route: "/v1/notifications/read", uri: "/v1/notifications/read", expected: everyone(.ok),
                body: { _, _, _ in json(["all": true]) }),
            Case(method: .delete, route: "/v1/notifications/{id}", uri: "/v1/notifications/999999", expected: everyone(.notFound)),
            Case(
                method: .post, route: "/v1/referrals", uri: "/v1/referrals", expected: writers(.created),
                body: { _, _, target in json(["recordId": target.uuidString.lowercased(), "toTeam": "team-b", "reason": "needs a specialist"]) }),
            Case(method: .get, route: "/v1/referrals", uri: "/v1/referrals?direction=sent", expected: writers(.ok)),
            Case(method: .get, route: "/v1/referrals/{id}", uri: "/v1/referrals/{fresh}", expected: writers(.notFound)),
            Case(method: .post, route: "/v1/referrals/{id}/accept", uri: "/v1/referrals/{fresh}/accept", expected: writers(.notFound)),
            Case(method: .post, route: "/v1/referrals/{id}/decline", uri: "/v1/referrals/{fresh}/decline", expected: writers(.notFound)),
            Case(method: .post, route: "/v1/referrals/{id}/complete", uri: "/v1/referrals/{fresh}/complete", expected: writers(.notFound)),
            Case(method: .post, route: "/v1/referrals/{id}/withdraw", uri: "/v1/referrals/{fresh}/withdraw", expected: writers(.notFound)),
            Case(
                method: .post, route: "/v1/referrals/{id}/reassign", uri: "/v1/referrals/{fresh}/reassign", expected: writers(.notFound),
                body: { _, _, _ in json(["toUser": "fieldworker-b"]) }),
            Case(
                method: .post, route: "/v1/referrals/{id}/messages", uri: "/v1/referrals/{fresh}/messages", expected: writers(.notFound),
                body: { _, _, _ in json(["text": "hello"]) }),
            Case(
                method: .post, route: "/v1/webhooks", uri: "/v1/webhooks", expected: everyone(.created),
                body: { _, _, _ in json(["url": "https://hooks.example.org/intake"]) }),
            Case(method: .get, route: "/v1/webhooks", uri: "/v1/webhooks", expected: everyone(.ok)),
            Case(method: .get, route: "/v1/webhooks/{id}", uri: "/v1/webhooks/{fresh}", expected: everyone(.notFound)),
            Case(method: .delete, route: "/v1/webhooks/{id}", uri: "/v1/webhooks/{fresh}", expected: everyone(.notFound)),
            Case(method: .post, route: "/v1/webhooks/{id}/resume", uri: "/v1/webhooks/{fresh}/resume", expected: everyone(.notFound)),
            Case(
                method: .post, route: "/v1/patients", uri: "/v1/patients", expected: writers(.created),
                body: { _, counter, _ in json(["givenName": "Amina", "familyName": "Haddad \(counter)"]) }),
            Case(
                method: .post, route: "/v1/patients/batch", uri: "/v1/patients/batch", expected: writers(.ok),
                body: { _, counter, _ in json(["patients": [["givenName": "Bilal", "familyName": "Khan \(counter)"]]]) }),
            Case(method: .get, route: "/v1/patients", uri: "/v1/patients?name=haddad", expected: patientReaders(.ok)),
            Case(
                method: .get, route: "/v1/patients/{id}", uri: "/v1/patients/{ownPatient}", expected: patientReaders(.ok),
                otherTeam: adminReadsOtherTeams),
            Case(
                method: .patch, route: "/v1/patients/{id}", uri: "/v1/patients/{ownPatient}", expected: writers(.conflict),
                otherTeam: [nil: .unauthorized, "fieldworker-a": .notFound, "coordinator-a": .notFound, "researcher": .forbidden, "admin": .forbidden],
                body: { _, _, _ in json(["baseRevision": 999]) }),
            Case(method: .post, route: "/v1/patients/{id}/archive", uri: "/v1/patients/{ownPatient}/archive", expected: writers(.ok)),
            Case(method: .post, route: "/v1/patients/{id}/restore", uri: "/v1/patients/{ownPatient}/restore", expected: writers(.ok)),
            Case(
                method: .put, route: "/v1/patients/{id}/consent", uri: "/v1/patients/{ownPatient}/consent", expected: writers(.ok),
                body: { _, _, _ in json(["scope": "sponsors_and_partners", "method": "written"]) }),
            Case(
                method: .get, route: "/v1/patients/{id}/consent", uri: "/v1/patients/{ownPatient}/consent", expected: patientReaders(.ok),
                otherTeam: adminReadsOtherTeams),
            Case(
                method: .post, route: "/v1/data-groups", uri: "/v1/data-groups",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .forbidden, "researcher": .forbidden, "admin": .created],
                body: { _, counter, _ in json(["name": "arm_\(counter)"]) }),
            Case(method: .get, route: "/v1/data-groups", uri: "/v1/data-groups", expected: everyone(.ok)),
            Case(method: .get, route: "/v1/audit", uri: "/v1/audit", expected: admins(.ok)),
            Case(method: .get, route: "/v1/audit/verify", uri: "/v1/audit/verify", expected: admins(.ok)),
            Case(
                method: .delete, route: "/v1/data-groups/{name}", uri: "/v1/data-groups/never_defined",
                expected: [nil: .unauthorized, "fieldworker-a": .forbidden, "coordinator-a": .forbidden, "researcher": .forbidden, "admin": .notFound]),
            Case(
                method: .put, route: "/v1/patients/{id}/reports/{series}/{date}", uri: "/v1/patients/{ownPatient}/reports/vitals/2026-01-01",
                // The field worker stores it first; the coordinator's replaces it.
                expected: [nil: .unauthorized, "fieldworker-a": .created, "coordinator-a": .ok, "researcher": .forbidden, "admin": .forbidden],
                otherTeam: [nil: .unauthorized, "fieldworker-a": .notFound, "coordinator-a": .notFound, "researcher": .forbidden, "admin": .forbidden],
                body: { _, _, _ in json(["weight": 61]) }),
            Case(
                method: .get, route: "/v1/patients/{id}/reports/{series}", uri: "/v1/patients/{ownPatient}/reports/vitals",
                expected: patientReaders(.ok), otherTeam: adminReadsOtherTeams),
            Case(
                method: .get, route: "/v1/patients/{id}/reports/{series}/{date}", uri: "/v1/patients/{ownPatient}/reports/vitals/2026-01-01",
                // The other team's patient has no report of that date: an admin, who may read it, is told so.
                expected: patientReaders(.ok),
                otherTeam: [nil: .unauthorized, "fieldworker-a": .notFound, "coordinator-a": .notFound, "researcher": .forbidden, "admin": .notFound]),
            Case(method: .delete, route: "/v1/sessions/current", uri: "/v1/sessions/current", expected: everyone(.noContent)),
        ]
    }

    @Test func everyRouteAnswersEveryRoleAsDocumented() async throws {
        // Event streams end after a moment here, so that the matrix can read them whole.
        var server = try await TestServer.make { $0.streamLifetime = .milliseconds(100) }
        let own = server.record(seed: 1), other = server.record(seed: 2, collector: "fieldworker-b")
        _ = try await server.services.records.ingest([own], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        _ = try await server.services.records.ingest([other], owner: RecordOwner(teamId: 2, username: "fieldworker-b"))
        _ = try await server.services.accounts.createTeam(name: "team-c")
        let patients = (own: UUID(), other: UUID())
        for (id, team) in [(patients.own, Int64(1)), (patients.other, Int64(2))] {
            _ = try await server.services.store.registerPatients([
                NewPatient(id: id, teamId: team, identification: PatientIdentification(givenName: "Amina", familyName: "Haddad"), createdBy: "x", createdAt: Date())
            ])
        }
        let cases = Self.cases()
        let routes = IntakeServerApp.router(server.services).routes
        #expect(Set(cases.map { "\($0.method.rawValue) \($0.route)" }) == Set(routes), "the matrix covers every registered route")
        // Signing out revokes the caller's token: give that case tokens of its own.
        for caller in Self.callers.compactMap({ $0 }) {
            let user = try #require(try await server.services.store.credentials(username: caller)?.user)
            server.tokens["signout-\(caller)"] = try await server.services.accounts.issueToken(for: user, name: "signout", expiresAt: nil)
        }
        let q = server.questionnaire.reference
        let mismatches = try await server.application().test(.router) { [server] client in
            var mismatches: [String] = []
            var counter = 0
            for test in cases {
                for caller in Self.callers {
                    for team in ["own", "other"] {
                        guard team == "own" || test.uri.contains("{own}") || test.uri.contains("{ownTeam}") || test.uri.contains("{ownPatient}")
                            || test.uri.contains("{doomed}")
                        else { continue }
                        counter += 1
                        let target = (team == "own" ? own : other).id
                        var doomed = ""
                        if test.uri.contains("{doomed}") {
                            let record = server.record(seed: UInt64(5_000 + counter), collector: team == "own" ? "fieldworker-a" : "fieldworker-b")
                            let owner = team == "own" ? RecordOwner(teamId: 1, username: "fieldworker-a") : RecordOwner(teamId: 2, username: "fieldworker-b")
                            _ = try await server.services.records.ingest([record], owner: owner)
                            doomed = record.id.uuidString.lowercased()
                        }
                        let uri = test.uri.replacingOccurrences(of: "{own}", with: target.uuidString.lowercased())
                            .replacingOccurrences(of: "{doomed}", with: doomed)
                            .replacingOccurrences(of: "{qid}", with: q.id).replacingOccurrences(of: "{qversion}", with: q.version)
                            .replacingOccurrences(of: "{ownTeam}", with: team == "own" ? "team-a" : "team-b")
                            .replacingOccurrences(of: "{teamFieldworker}", with: team == "own" ? "fieldworker-a" : "fieldworker-b")
                            .replacingOccurrences(of: "{fresh}", with: UUID().uuidString.lowercased())
                            .replacingOccurrences(of: "{ownPatient}", with: (team == "own" ? patients.own : patients.other).uuidString.lowercased())
                        var expected = test.expected[caller]!
                        if team == "other", let other = test.otherTeam {
                            expected = other[caller]!
                        } else if team == "other", expected.code < 300 {
                            expected = .notFound
                        }
                        let token = test.route == "/v1/sessions/current" ? caller.map { "signout-\($0)" } : caller
                        let response = try await client.send(
                            test.method, uri, as: token, in: server, body: try await test.body(server, counter, target))
                        if response.status != expected {
                            mismatches.append(
                                "\(test.method) \(uri) as \(caller ?? "anonymous"): \(response.status.code), expected \(expected.code)")
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
