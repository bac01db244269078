import Foundation
import Testing

/// A coordinator runs their team from the command line against a real server: invites with a
/// passcode, the invitee accepts (after wrong tries are refused), the coordinator confirms, and
/// each of them reads what happened in their inbox.
@Suite(.serialized)
struct TeamCommandTests {
    let intake = IntakeProcess()

    /// A team named as the field names it (Arabic letters, a space, '%', '/', '+', a quote) is
    /// created, run and set a time zone by the commands themselves against a real server; an
    /// admin lists and revokes a token from the command line.
    @Test func aTeamNamedInArabicWithASpaceAndAPercentIsReachedByTheCommands() throws {
        let name = "عيادة متنقلة 50% / B+ 'north'"
        _ = try intake.run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"])
        let created = try intake.run(["admin", "team", "create", name])
        #expect(created.status == 0, "\(created.stderr)")
        _ = try intake.run(
            ["admin", "user", "create", "lead", "--role", "coordinator", "--team", name, "--password-stdin"], input: ["lead-password-1"])
        _ = try intake.run(["admin", "user", "create", "amina", "--role", "fieldworker", "--password-stdin"], input: ["amina-password"])
        let lead = try intake.run(["admin", "token", "create", "lead", "--name", "laptop"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let refused = try intake.run(["admin", "team", "create", ".."])
        #expect(refused.status != 0 && refused.stderr.contains("choose another team name"), "\(refused.stderr)")
        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        let url = "http://127.0.0.1:\(port)"
        func run(_ arguments: [String], as token: String, input: [String] = []) throws -> IntakeProcess.Result {
            try intake.run(arguments + ["--server", url, "--token", token], input: input)
        }
        let invited = try run(["team", "invite", name, "amina"], as: lead)
        #expect(invited.status == 0, "\(invited.stderr)")
        let members = try run(["team", "members", name], as: lead)
        #expect(members.status == 0 && members.stdout.contains("lead"), "\(members.stdout)\(members.stderr)")
        #expect(try run(["team", "history", name], as: lead).status == 0)
        let zone = try run(["team", "timezone", name, "Asia/Amman"], as: lead)
        #expect(zone.status == 0 && zone.stdout.contains("Asia/Amman"), "\(zone.stdout)\(zone.stderr)")
        let wrongZone = try run(["team", "timezone", name, "Mars/Olympus"], as: lead)
        #expect(wrongZone.status != 0 && wrongZone.stderr.contains("IANA"), "\(wrongZone.stderr)")

        let listed = try intake.run(["admin", "token", "list", "lead"])
        let line = try #require(listed.stdout.split(separator: "\n").first { $0.contains("laptop") }, "\(listed.stdout)")
        #expect(!listed.stdout.contains(lead), "never the token itself")
        let id = String(line.prefix(12))
        let revoked = try intake.run(["admin", "token", "revoke", "lead", id])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        // The running server forgets the tokens it checked within two seconds (its cache's life):
        // from then on the revoked token is refused (looked for until then, never more than a minute).
        var after = try run(["team", "members", name], as: lead)
        let deadline = Date().addingTimeInterval(60)
        while after.status == 0, Date() < deadline { after = try run(["team", "members", name], as: lead) }
        #expect(after.status != 0, "the revoked token no longer works: \(after.stdout)")
    }

    @Test func aCoordinatorInvitesAndConfirmsAndTheInviteeReadsItInTheInbox() throws {
        _ = try intake.run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"])
        _ = try intake.run(["admin", "team", "create", "clinic"])
        _ = try intake.run(
            ["admin", "user", "create", "lead", "--role", "coordinator", "--team", "clinic", "--password-stdin"], input: ["lead-password-1"]
        )
        let waiting = try intake.run(
            ["admin", "user", "create", "amina", "--role", "fieldworker", "--password-stdin"], input: ["amina-password"])
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
        let wrong = try run(
            ["invitation", "accept", id, "--passcode-stdin"], as: amina, input: [passcode == "000000" ? "111111" : "000000"])
        #expect(
            wrong.status != 0 && wrong.stderr.contains("the passcode is wrong; 4 more tries before the invitation locks"), "\(wrong.stderr)"
        )
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

        let announced = try run(["announce", "Clinic closed on Friday"], as: lead)
        #expect(announced.stdout == "Announced to 'clinic': 1 person notified.\n", "\(announced.stderr)")
        let heard = try run(["inbox", "--unread"], as: amina)
        #expect(heard.stdout.contains("lead to 'clinic': Clinic closed on Friday"), "\(heard.stdout)")

        // Offline, the inbox fetched last is still there (sealed in the local store).
        server.terminate()
        server.waitUntilExit()
        let offline = try run(["inbox"], as: amina)
        #expect(offline.status == 0 && offline.stdout.hasPrefix("Offline (cannot reach"), "\(offline.stdout)\(offline.stderr)")
        #expect(
            offline.stdout.contains("lead to 'clinic': Clinic closed on Friday")
                && offline.stdout.contains("You are now a member of 'clinic'."))
    }

    @Test func inboxWatchShowsANewNotificationWithinASecondAndPicksUpAfterTheServerComesBack() throws {
        _ = try intake.run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"])
        _ = try intake.run(["admin", "team", "create", "clinic"])
        _ = try intake.run(["admin", "team", "create", "ward"])
        _ = try intake.run(
            ["admin", "user", "create", "lead", "--role", "coordinator", "--team", "clinic", "--password-stdin"], input: ["lead-password-1"]
        )
        _ = try intake.run(
            ["admin", "user", "create", "ward-lead", "--role", "coordinator", "--team", "ward", "--password-stdin"],
            input: ["lead-password-2"])
        _ = try intake.run(["admin", "user", "create", "amina", "--role", "fieldworker", "--password-stdin"], input: ["amina-password"])
        let lead = try intake.run(["admin", "token", "create", "lead"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let wardLead = try intake.run(["admin", "token", "create", "ward-lead"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let amina = try intake.run(["admin", "token", "create", "amina"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let admin = try intake.run(["admin", "token", "create", "admin"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var (server, port) = try intake.startServer()
        let url = "http://127.0.0.1:\(port)"

        let watch = intake.process(["inbox", "--watch", "--server", url, "--token", amina, "--timeout", "8"])
        let output = Pipe()
        let seen = LogBuffer()
        watch.standardOutput = output
        watch.standardError = output
        output.fileHandleForReading.readabilityHandler = { seen.append($0.availableData) }
        try watch.run()
        defer {
            watch.terminate()
            server.terminate()
        }
        func waitFor(_ text: String, count: Int = 1, seconds: Double) -> Double? {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                if seen.text.components(separatedBy: text).count - 1 >= count { return Date().timeIntervalSince(start) }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return nil
        }
        #expect(waitFor("Nothing new.", seconds: 20) != nil, "the watch started: \(seen.text)")

        #expect(try intake.run(["team", "invite", "clinic", "amina", "--server", url, "--token", lead]).status == 0)
        let latency = waitFor("lead invited you to 'clinic'", seconds: 5)
        #expect(latency.map { $0 < 1 } == true, "shown within a second of the invitation (took \(latency.map { "\($0) s" } ?? "too long"))")

        // The server goes away; another invitation is made while the watch cannot reach it.
        server.terminate()
        server.waitUntilExit()
        #expect(
            waitFor("trying again", seconds: 15) != nil,
            "\(seen.text) running: \(watch.isRunning) \(watch.isRunning ? "" : "\(watch.terminationReason.rawValue) \(watch.terminationStatus)")"
        )
        (server, port) = try intake.startServer(port: port)
        #expect(try intake.run(["team", "invite", "ward", "amina", "--server", url, "--token", wardLead]).status == 0)
        #expect(waitFor("ward-lead invited you to 'ward'", seconds: 10) != nil, "picked up after the server came back: \(seen.text)")
        // Notifications come in order: once one made after these is shown, any second showing of
        // them would have been shown before it.
        #expect(try intake.run(["announce", "Clinic closed on Friday", "--server", url, "--token", admin]).status == 0)
        #expect(waitFor("to everyone: Clinic closed on Friday", seconds: 20) != nil, "\(seen.text)")
        #expect(seen.text.components(separatedBy: "lead invited you to 'clinic'").count == 2, "nothing shown twice: \(seen.text)")
    }
}
