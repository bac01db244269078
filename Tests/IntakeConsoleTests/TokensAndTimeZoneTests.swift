import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeConsole
@testable import IntakeServer
@testable import IntakeService

/// An admin lists and revokes a user's tokens (API and console); a team's coordinator sets the
/// time zone its pages show times in.
struct TokensAndTimeZoneTests {
    typealias Browser = ConsoleBrowser

    @Test func anAdminListsAUsersTokensAndRevokesOneAtOnce() async throws {
        let server = try await TestServer.make()
        let script = try await server.services.accounts.issueToken(username: "fieldworker-a", name: "nightly export", expiresAt: nil)
        try await ConsoleTests.application(server).test(.router) { client in
            let listed = try await client.send(.get, "/v1/users/fieldworker-a/tokens", as: "admin", in: server)
            #expect(listed.status == .ok, "\(listed.text)")
            let tokens = try #require(listed.json["tokens"] as? [[String: Any]])
            #expect(tokens.count == 2 && tokens.allSatisfy { ($0["id"] as? String)?.count == 12 }, "the test's token and the script's")
            #expect(!listed.text.contains(script) && !listed.text.contains(String(script.suffix(20))), "never the token itself")
            let nightly = try #require(tokens.first { $0["name"] as? String == "nightly export" }?["id"] as? String)
            #expect(try await client.send(.get, "/v1/users/fieldworker-a/tokens", as: "coordinator-a", in: server).status == .forbidden)
            #expect(
                try await client.send(.delete, "/v1/users/fieldworker-b/tokens/\(nightly)", as: "admin", in: server).status == .notFound,
                "only the user's own")
            #expect(
                try await client.send(.delete, "/v1/users/fieldworker-a/tokens/xyz", as: "admin", in: server).status
                    == .unprocessableContent)
            let revoked = try await client.send(.delete, "/v1/users/fieldworker-a/tokens/\(nightly)", as: "admin", in: server)
            #expect(revoked.status == .noContent)
            let refused = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(script)"])
            #expect(refused.status == .unauthorized, "revoked at once, whatever the server's cache held")
            let trail = try await server.services.audit.events(AuditQuery(action: "token.revoke"))
            #expect(trail.map(\.subject) == ["fieldworker-a"] && trail.first?.details["token"] == nightly)

            // The console: the user's tokens, and a revoke button for each.
            let admin = Browser(client)
            try await admin.signIn("admin")
            let page = try await admin.get("/console/admin/users/fieldworker-a/tokens")
            let html = ConsoleTests.html(page)
            let remaining = try #require(html.firstMatch(of: /tokens\/([0-9a-f]{12})\/revoke/).map { String($0.1) })
            let gone = try await admin.post(
                "/console/admin/users/fieldworker-a/tokens/\(remaining)/revoke", [("csrf", Browser.csrf(page) ?? "")])
            #expect(gone.status == .seeOther)
            #expect(try await server.services.accounts.tokens(of: "fieldworker-a").isEmpty)
        }
    }

    @Test func aTeamsPagesShowTimesInItsTimeZone() async throws {
        let server = try await TestServer.make()
        try await ConsoleTests.application(server).test(.router) { client in
            struct Zone: Encodable { var timeZone: String? }
            let unknown = try await client.send(
                .patch, "/v1/teams/team-a", as: "coordinator-a", in: server, json: Zone(timeZone: "Mars/Olympus"))
            #expect(
                try await client.send(.patch, "/v1/teams/team-a", as: "coordinator-a", in: server, body: Data("{}".utf8)).status
                    == .unprocessableContent)
            #expect(unknown.status == .unprocessableContent && unknown.text.contains("IANA"))
            #expect(
                try await client.send(.patch, "/v1/teams/team-a", as: "coordinator-b", in: server, json: Zone(timeZone: "Asia/Amman"))
                    .status == .forbidden)
            let set = try await client.send(
                .patch, "/v1/teams/team-a", as: "coordinator-a", in: server, json: Zone(timeZone: "Asia/Kolkata"))
            #expect(set.status == .ok && set.json["timeZone"] as? String == "Asia/Kolkata", "\(set.status) \(set.text)")
            let lead = Browser(client)
            try await lead.signIn("coordinator-a")
            let history = ConsoleTests.html(try await lead.get("/console/team/team-a"))
            let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata")?.abbreviation(for: Date()))
            #expect(history.contains(" \(kolkata)<") && !history.contains(" UTC<"), "times in the team's zone, named")
            let other = Browser(client)
            try await other.signIn("coordinator-b")
            let otherPage = ConsoleTests.html(try await other.get("/console/team/team-b"))
            #expect(
                otherPage.contains(" UTC<"),
                "another team's stay in UTC: \(otherPage.components(separatedBy: "<tbody>").dropFirst().first?.prefix(400) ?? "")")
            let reset = try await client.send(.patch, "/v1/teams/team-a", as: "admin", in: server, body: Data(#"{"timeZone": null}"#.utf8))
            #expect(reset.json["timeZone"] as? String == "UTC")
        }
    }
}
