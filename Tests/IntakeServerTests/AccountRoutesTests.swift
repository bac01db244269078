import Foundation
import HummingbirdTesting
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

struct AccountRoutesTests {
    struct SignIn: Encodable {
        var username: String
        var password: String
    }

    @Test func signInIssuesATokenAndSignOutRevokesIt() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let session = try await client.send(
                .post, "/v1/sessions", as: nil, in: server, json: SignIn(username: "fieldworker-a", password: "password-fieldworker-a"))
            #expect(session.status == .created)
            let token = try #require(session.json["token"] as? String)
            #expect(token.hasPrefix("itk_"))
            let me = try await client.send(.get, "/v1/me", as: token, in: server)
            #expect(me.json["username"] as? String == "fieldworker-a")
            #expect(me.json["team"] as? String == "team-a")
            #expect(me.json["passwordHash"] == nil)
            #expect(try await client.send(.delete, "/v1/sessions/current", as: token, in: server).status == .noContent)
            #expect(try await client.send(.get, "/v1/me", as: token, in: server).status == .unauthorized)
        }
    }

    @Test func wrongPasswordAndUnknownUserLookTheSame() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            let wrong = try await client.send(
                .post, "/v1/sessions", as: nil, in: server, json: SignIn(username: "admin", password: "nope-nope-nope"))
            let unknown = try await client.send(
                .post, "/v1/sessions", as: nil, in: server, json: SignIn(username: "ghost", password: "nope-nope-nope"))
            #expect(wrong.status == .unauthorized && unknown.status == .unauthorized)
            #expect(wrong.text == unknown.text)
            let badToken = try await client.send(.get, "/v1/me", as: "itk_forged", in: server)
            #expect(badToken.status == .unauthorized && badToken.errorCode == "unauthenticated")
        }
    }

    struct NewUser: Encodable {
        var username: String
        var password: String
        var role: String
        var team: String?
    }

    @Test func adminsManageTeamsUsersAndTokens() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            #expect(try await client.send(.post, "/v1/teams", as: "admin", in: server, json: ["name": "team-c"]).status == .created)
            #expect(try await client.send(.post, "/v1/teams", as: "admin", in: server, json: ["name": "team-c"]).status == .conflict)
            // 100 characters at most as sent, the spaces around the name included (as openapi.yaml says).
            let long = try await client.send(
                .post, "/v1/teams", as: "admin", in: server, json: ["name": "\t" + String(repeating: "*", count: 100)])
            #expect(long.status.code >= 400 && long.status.code < 500, "\(long.text)")
            let created = try await client.send(
                .post, "/v1/users", as: "admin", in: server,
                json: NewUser(username: "farid", password: "a-long-password", role: "fieldworker", team: "team-c"))
            #expect(created.status == .created)
            let noTeam = try await client.send(
                .post, "/v1/users", as: "admin", in: server,
                json: NewUser(username: "grace", password: "a-long-password", role: "fieldworker"))
            #expect(noTeam.status == .created, "a field worker may wait for an invitation without a team")
            #expect(noTeam.json["team"] == nil)
            let weak = try await client.send(
                .post, "/v1/users", as: "admin", in: server, json: NewUser(username: "grace-2", password: "short", role: "researcher"))
            #expect(weak.text.contains("a password has at least 10 characters"))
            let badRole = try await client.send(
                .post, "/v1/users", as: "admin", in: server, json: NewUser(username: "grace", password: "a-long-password", role: "boss"))
            #expect(badRole.status == .badRequest)
            let token = try await client.send(.post, "/v1/users/farid/tokens", as: "admin", in: server, json: ["name": "tablet-3"])
            #expect(token.status == .created)
            let farid = try #require(token.json["token"] as? String)
            #expect(try await client.send(.get, "/v1/me", as: farid, in: server).status == .ok)
            // A team that does not exist is a mistake in the change (422), not a missing user (404).
            let unknownTeam = try await client.send(.patch, "/v1/users/farid", as: "admin", in: server, json: ["team": "الكل في المجمو عة"])
            #expect(unknownTeam.status == .unprocessableContent)
            #expect("\(unknownTeam.json)".contains("no team is named"))
            let disabled = try await client.send(.patch, "/v1/users/farid", as: "admin", in: server, json: ["disabled": true])
            #expect(disabled.json["disabled"] as? Bool == true)
            #expect(try await client.send(.get, "/v1/me", as: farid, in: server).status == .unauthorized)
            let list = try await client.send(.get, "/v1/users", as: "admin", in: server)
            #expect((list.json["users"] as? [[String: Any]])?.count == 8, "the six of TestServer, farid and grace (waiting for a team)")
        }
    }
}
