import Foundation
import Testing

/// The team and referral rules at the command line, as a newcomer, a coordinator and a referrer
/// would use them: a member forms a team where the server allows it, an invitation carries a
/// message, one record's referrals are listed, and one nobody accepted goes elsewhere.
@Suite(.serialized)
struct TeamRulesCommandTests {
    @Test func aNewcomerFormsATeamAndAReferrerSendsAnUnacceptedReferralThere() throws {
        var intake = IntakeProcess()
        intake.environment["INTAKE_SERVER_TEAM_CREATION"] = "members"
        let cora = try intake.prepareServerWithCoordinator()
        _ = try intake.run(["admin", "team", "create", "ward"])
        for (name, role, team) in [("nadia", "fieldworker", nil), ("omar", "fieldworker", nil), ("wanda", "coordinator", "ward")] {
            _ = try intake.run(
                ["admin", "user", "create", name, "--role", role, "--password-stdin"] + (team.map { ["--team", $0] } ?? []),
                input: ["password-\(name)-1"])
        }
        var tokens: [String: String] = ["cora": cora]
        for name in ["nadia", "omar", "wanda"] {
            tokens[name] = try intake.run(["admin", "token", "create", name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        let url = "http://127.0.0.1:\(port)"
        func run(_ arguments: [String], as user: String, input: [String] = []) throws -> IntakeProcess.Result {
            try intake.run(arguments + ["--server", url, "--token", tokens[user]!], input: input)
        }

        // Nadia forms a team, leads it, and invites Omar with a note.
        let formed = try run(["team", "create", "mobile-unit"], as: "nadia")
        #expect(formed.status == 0 && formed.stdout.contains("Created team 'mobile-unit'"), "\(formed.stdout)\(formed.stderr)")
        #expect(try run(["team", "members", "mobile-unit"], as: "nadia").stdout.contains("coordinator"))
        let again = try run(["team", "create", "second-unit"], as: "nadia")
        #expect(again.status != 0 && again.stderr.contains("already"), "\(again.stderr)")
        #expect(try run(["team", "invite", "mobile-unit", "omar", "--message", "Join us on Tuesdays"], as: "nadia").status == 0)
        #expect(try run(["invitation", "list"], as: "omar").stdout.contains("Join us on Tuesdays"))

        // Cora refers a record to the ward; nobody there has accepted it yet.
        let filled = try run(["fill"], as: "cora", input: Answers.all + [":finish"])
        #expect(filled.stdout.contains("Sent to the server."), "\(filled.stdout)\(filled.stderr)")
        let record = try #require(try intake.serverRevisionsById().keys.first)
        let referred = try run(["refer", record, "--to", "ward", "--team", "--reason", "Cardiology"], as: "cora")
        #expect(referred.stdout.contains("Referred to 'ward'"), "\(referred.stdout)\(referred.stderr)")
        let listed = try run(["referrals", "list", "--record", record], as: "cora")
        let row = try #require(listed.stdout.split(separator: "\n").dropFirst().first, "\(listed.stdout)\(listed.stderr)")
        let id = String(row.prefix(8))
        #expect(try run(["referrals", "list", "--record", record, "--sent"], as: "cora").status != 0, "both directions already")

        // Sent to the mobile unit instead: the ward is told, Nadia's team has it.
        let moved = try run(["referrals", "retarget", id, "--to", "mobile-unit", "--team"], as: "cora")
        #expect(moved.status == 0 && moved.stdout.contains("now goes to 'mobile-unit'"), "\(moved.stdout)\(moved.stderr)")
        #expect(try run(["referrals", "list"], as: "nadia").stdout.contains(id))
        #expect(try run(["inbox"], as: "wanda").stdout.contains("elsewhere"))
        // Once accepted it stays where it is.
        #expect(try run(["referrals", "answer", "accept", id], as: "nadia").status == 0)
        let shown = try run(["referrals", "show", id], as: "cora")
        #expect(shown.stdout.contains("Accepted") && shown.stdout.contains("by nadia"), "\(shown.stdout)")
        let late = try run(["referrals", "retarget", id, "--to", "ward", "--team"], as: "cora")
        #expect(late.status != 0 && late.stderr.contains("accepted"), "\(late.stderr)")
    }
}
