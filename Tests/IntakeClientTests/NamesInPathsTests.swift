import Foundation
import IntakeCore
import IntakeServer
import IntakeService
import Testing

@testable import IntakeClient

/// Names as the field writes them reach every route that names them, through the client the CLI
/// uses (libcurl, a real socket): the server decodes each path parameter once, after routing.
@Suite(.serialized)
struct NamesInPathsTests {
    /// Arabic letters, a space, `%`, `/`, `+`, quotes, a `?` and a `#`.
    static let names = ["عيادة متنقلة", "mobile unit", "50% north", "A/B", "B+ team", "Dr. O'Brien \"east\"", "why? #2", "%2F", "é"]

    @Test(arguments: names) func aTeamNamedAsTheFieldNamesItIsReachedByEveryRouteThatNamesIt(_ name: String) async throws {
        let server = try await ClientTestServer.make()
        let admin = try await server.services.accounts.createUser(username: "root", password: "admin-password-1", role: .admin, team: nil)
        let adminToken = try await server.services.accounts.issueToken(for: admin, name: "test", expiresAt: nil)
        try await server.serving { port in
            let root = IntakeClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: adminToken, timeout: 120)
            try await root.createTeam(name)
            _ = try await server.services.accounts.createUser(username: "lead", password: "lead-password-1", role: .coordinator, team: name)
            _ = try await server.services.accounts.createUser(username: "amal", password: "amal-password-1", role: .fieldworker, team: name)
            _ = try await server.services.accounts.createUser(
                username: "newcomer", password: "newcomer-pass-1", role: .fieldworker, team: nil)

            #expect(try await root.members(of: name).map(\.username).sorted() == ["amal", "lead"])
            #expect(try await root.changeRole(in: name, of: "amal", to: "coordinator").role == "coordinator")
            #expect(try await root.history(of: name).contains { $0.username == "amal" && $0.event == "role_changed" })
            let invited = try await root.invite("newcomer", to: name, role: nil, days: nil)
            #expect(!invited.passcode.isEmpty)
            let enrolment = try await root.createEnrolment(team: name, username: "amal", expiresInHours: nil)
            #expect(try await root.enrolments(of: name).map(\.id).contains(enrolment.enrolment.id))
            #expect(try await root.devices(of: name).isEmpty)
            _ = try await root.referralsCSV(of: name)
            try await root.remove("amal", from: name)
            #expect(try await root.members(of: name).map(\.username) == ["lead"])

            // Raw, as another client may send it: the name percent-encoded by hand, and a name
            // that is not valid percent-encoding taken as written.
            let encoded = PathSegment.encoded(name)
            let (status, _) = try await root.send("GET", "/v1/teams/\(encoded)/members", body: nil)
            #expect(status == 200, "GET /v1/teams/\(encoded)/members")
        }
    }

    @Test func namesNoAddressCanHoldAreRefusedWhenCreated() async throws {
        let server = try await ClientTestServer.make()
        let admin = try await server.services.accounts.createUser(username: "root", password: "admin-password-1", role: .admin, team: nil)
        let adminToken = try await server.services.accounts.issueToken(for: admin, name: "test", expiresAt: nil)
        try await server.serving { port in
            let root = IntakeClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, token: adminToken, timeout: 120)
            for name in [".", "..", "line\nbreak", "tab\there"] {
                do {
                    try await root.createTeam(name)
                    Issue.record("\(name.debugDescription) was accepted")
                } catch {
                    #expect(
                        "\(error)".contains("choose another team name") || "\(error)".contains("control"),
                        "\(name.debugDescription): \(error)")
                }
            }
            // A username is ASCII letters, digits, '.', '_' and '-': an Arabic one is refused with that rule.
            do {
                _ = try await server.services.accounts.createUser(
                    username: "أمل", password: "amal-password-1", role: .fieldworker, team: "clinic")
                Issue.record("an Arabic username was accepted")
            } catch {
                #expect("\(error)".contains("letters, digits"), "\(error)")
            }
        }
    }
}
