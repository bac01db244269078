import Foundation
import Testing

/// Issue 49's real-process case: a coordinator publishes the screening and the follow-up; field
/// worker A's screening opens a case assigned to A; A's machine pulls it, goes offline, fills the
/// follow-up for it and flushes: the case is updated and closed. B's machine (same team, not
/// assigned) never receives it. A second machine of A's, offline with the same case, fills
/// another follow-up: both records are kept, the conflict is flagged.
struct CasesEndToEndTests {
    /// The bundled follow-up's questions as `intake fill --case` asks them (the case's reason and
    /// last score are calculated, and shown).
    static func followUp(phq: (String, String), outcome: String, next: String? = nil) -> [String] {
        ["", "home", phq.0, phq.1, "n", "all", "not_needed", outcome] + (next.map { [$0] } ?? []) + ["", ":finish"]
    }

    @Test func aCaseTravelsOnlyToItsFollowerIsFilledOfflineAndConflictsAreFlagged() throws {
        var server = IntakeProcess()
        try server.prepareClinic()
        _ = try server.run(
            ["admin", "user", "create", "bea", "--role", "fieldworker", "--team", "clinic", "--password-stdin"], input: ["fieldworker-2"])
        for questionnaire in ["refugee-health", "follow-up"] {
            let published = try server.run(["admin", "publish", questionnaire])
            #expect(published.status == 0, "\(published.stdout)\(published.stderr)")
        }
        func token(_ user: String) throws -> String {
            try server.run(["admin", "token", "create", user]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let (amina, bea, cora) = (try token("test.worker"), try token("bea"), try token("cora"))
        var (process, port) = try server.startServer()
        defer { process.terminate() }
        func online(_ token: String) -> [String] { ["--server", "http://127.0.0.1:\(port)", "--token", token, "--timeout", "2"] }

        // A's screening (a long-term illness, a PHQ-2 of 3) is sent online.
        var machineA = IntakeProcess()
        machineA.environment["INTAKE_COLLECTOR"] = "test.worker"
        let screening = try machineA.run(["fill"] + online(amina), input: Answers.all + [":finish"])
        #expect(screening.status == 0 && !screening.stdout.contains("Saved offline"), "\(screening.stdout)\(screening.stderr)")

        // The case follows within a moment; A's machine pulls it.
        var pulled = try machineA.run(["cases", "pull"] + online(amina))
        let deadline = Date().addingTimeInterval(20)
        while !pulled.stdout.contains("Cases: 1 open"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.3)
            pulled = try machineA.run(["cases", "pull"] + online(amina))
        }
        #expect(pulled.stdout.contains("Cases: 1 open on this machine"), "\(pulled.stdout)\(pulled.stderr)")
        let listed = try machineA.run(["cases", "list"])
        #expect(
            listed.stdout.contains("follow-up") && listed.stdout.contains("A. H.") && !listed.stdout.contains("Haddad"), "\(listed.stdout)")
        let row = try #require(listed.stdout.split(separator: "\n").dropFirst().first.map(String.init))
        let short = String(row.prefix(8))
        // A second machine of A's takes the case too.
        var machineA2 = IntakeProcess()
        machineA2.environment["INTAKE_COLLECTOR"] = "test.worker"
        #expect(try machineA2.run(["cases", "pull"] + online(amina)).stdout.contains("Cases: 1 open"))

        // B's machine, same team, not assigned: nothing.
        var machineB = IntakeProcess()
        machineB.environment["INTAKE_COLLECTOR"] = "bea"
        let other = try machineB.run(["cases", "pull"] + online(bea))
        #expect(other.stdout.contains("Cases: 0 open"), "\(other.stdout)\(other.stderr)")

        // Offline: both of A's machines fill a follow-up of the case from what they hold.
        process.terminate()
        process.waitUntilExit()
        let shown = try machineA.run(["cases", "show", short])
        #expect(shown.stdout.contains("Amina Haddad") && shown.stdout.contains("long_term_illness: yes"), "\(shown.stdout)\(shown.stderr)")
        let first = try machineA.run(["fill", "--case", short] + online(amina), input: Self.followUp(phq: ("1", "0"), outcome: "resolved"))
        #expect(first.status == 0 && first.stdout.contains("Saved offline"), "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("Follow-up of case \(short)"), "\(first.stdout)")
        // The visit closed the case: this machine's copy says so at once, offline.
        let afterVisit = try machineA.run(["cases", "list"])
        #expect(afterVisit.stdout.contains("No open cases"), "\(afterVisit.stdout)")
        Thread.sleep(forTimeInterval: 1.1)  // made later, by its time
        let second = try machineA2.run(
            ["fill", "--case", "Haddad"] + online(amina), input: Self.followUp(phq: ("3", "3"), outcome: "continue", next: "2099-01-01"))
        #expect(second.status == 0 && second.stdout.contains("Saved offline"), "\(second.stdout)\(second.stderr)")
        // A follow-up cannot be filled without its case.
        let bare = try machineA.run(["fill", "--questionnaire", "follow-up"] + online(amina), input: ["", ":finish"])
        #expect(bare.status != 0 && bare.stderr.contains("intake fill --case"), "\(bare.stdout)\(bare.stderr)")

        // Back online: A's machine flushes; the case is updated and closed, and leaves A's machine.
        (process, port) = try server.startServer(port: port)
        #expect(try machineA.run(["flush"] + online(amina)).stdout.contains("Uploaded: 1."))
        // The server closed it: the coordinator, who receives every open case of the team, has none.
        let machineC = IntakeProcess()
        var closedNow = try machineC.run(["cases", "pull"] + online(cora))
        let closing = Date().addingTimeInterval(20)
        while !closedNow.stdout.contains("Cases: 0 open"), Date() < closing {
            Thread.sleep(forTimeInterval: 0.3)
            closedNow = try machineC.run(["cases", "pull"] + online(cora))
        }
        #expect(closedNow.stdout.contains("Cases: 0 open"), "\(closedNow.stdout)\(closedNow.stderr)")
        #expect(try machineA.run(["cases", "pull"] + online(amina)).stdout.contains("Cases: 0 open"))

        // The second machine's follow-up, made from the same revision, arrives: kept, and flagged.
        #expect(try machineA2.run(["flush"] + online(amina)).stdout.contains("Uploaded: 1."))
        var review = try machineC.run(["cases", "pull"] + online(cora))
        let flagged = Date().addingTimeInterval(20)
        while !review.stdout.contains("Cases: 1 open"), Date() < flagged {
            Thread.sleep(forTimeInterval: 0.3)
            review = try machineC.run(["cases", "pull"] + online(cora))
        }
        let seen = try machineC.run(["cases", "show", short])
        #expect(
            seen.stdout.contains("visits:    2") && seen.stdout.contains("conflicts:") && seen.stdout.contains("phq2"),
            "\(seen.stdout)\(seen.stderr)")
        #expect(try machineC.run(["cases", "list"]).stdout.contains("2 ⚠"))
        // B's machine still holds nothing.
        #expect(try machineB.run(["cases", "pull"] + online(bea)).stdout.contains("Cases: 0 open"))
    }
}
