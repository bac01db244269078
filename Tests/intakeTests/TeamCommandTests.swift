import Foundation
import Testing

/// A coordinator runs their team from the command line against a real server: invites with a
/// passcode, the invitee accepts (after wrong tries are refused), the coordinator confirms, and
/// each of them reads what happened in their inbox.
@Suite(.serialized)
struct TeamCommandTests {
    let intake = IntakeProcess()

    @Test func aCoordinatorInvitesAndConfirmsAndTheInviteeReadsItInTheInbox() throws {
        _ = try intake.run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"])
        _ = try intake.run(["admin", "team", "create", "clinic"])
        _ = try intake.run(["admin", "user", "create", "lead", "--role", "coordinator", "--team", "clinic", "--password-stdin"], input: ["lead-password-1"])
        let waiting = try intake.run(["admin", "user", "create", "amina", "--role", "fieldworker", "--password-stdin"], input: ["amina-password"])
        #expect(waiting.stdout.contains("without a team"), "\(waiting.stderr)")
        let lead = try intake.run(["admin", "token", "create", "lead"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let amina = try intake.run(["admin", "token", "create", "amina"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        let url = "http://127.0.0.1:\(port)"
        func run(_ arguments: [String], as token: String, input: [String] = []) throws -> IntakeProcess.Result {
            try intake.run(arguments + ["--server", url, "--token", token], input: input)
        }

        let invited = try run(["team", "invite", "clinic", "amina"], as: lead)
        #expect(invited.status == 0, "\(invited.stderr)")
        let passcode = try #require(invited.stdout.components(separatedBy: "Passcode: ").last?.prefix(6)).description
        #expect(passcode.count == 6 && passcode.allSatisfy(\.isNumber), "\(invited.stdout)")
        let id = try #require(invited.stdout.components(separatedBy: "(invitation ").last?.prefix(8)).description

        let inbox = try run(["inbox", "--unread"], as: amina)
        #expect(inbox.stdout.contains("lead invited you to 'clinic'"), "\(inbox.stdout)\(inbox.stderr)")
        let wrong = try run(["invitation", "accept", id, "--passcode-stdin"], as: amina, input: [passcode == "000000" ? "111111" : "000000"])
        #expect(wrong.status != 0 && wrong.stderr.contains("the passcode is wrong; 4 more tries before the invitation locks"), "\(wrong.stderr)")
        let accepted = try run(["invitation", "accept", id, "--passcode-stdin"], as: amina, input: [passcode])
        #expect(accepted.status == 0 && accepted.stdout.contains("Accepted the invitation to 'clinic'"), "\(accepted.stderr)")

        let leadInbox = try run(["inbox", "--mark-read"], as: lead)
        #expect(leadInbox.stdout.contains("amina accepted the invitation to 'clinic'") && leadInbox.stdout.contains("Marked 1 as read."))
        let confirmed = try run(["invitation", "confirm", id], as: lead)
        #expect(confirmed.stdout == "amina is now a fieldworker of 'clinic'.\n", "\(confirmed.stderr)")
        let members = try run(["team", "members", "clinic"], as: lead)
        #expect(members.stdout.contains("amina") && members.stdout.contains("lead"), "\(members.stdout)")
        let forbidden = try run(["team", "members", "clinic"], as: amina)
        #expect(forbidden.status != 0 && forbidden.stderr.contains("a fieldworker may not do this"), "\(forbidden.stderr)")
        let news = try run(["inbox", "--unread"], as: amina)
        #expect(news.stdout.contains("You are now a member of 'clinic'."), "\(news.stdout)")
        let history = try run(["team", "history", "clinic"], as: lead)
        #expect(history.stdout.contains("joined as fieldworker") && history.stdout.contains("lead"), "\(history.stdout)")
    }
}
