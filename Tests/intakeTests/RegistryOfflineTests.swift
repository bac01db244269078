import Foundation
import Testing

/// The registry travels with the field machine: `intake sync` keeps the team's patients sealed on
/// it, `intake patient find --offline` finds them (and those registered offline), a registration
/// made offline waits like a record and `intake flush` registers it; one whose external id another
/// patient has is reported and kept aside, never lost; groups and consent go with a registration.
struct RegistryOfflineTests {
    @Test func patientsAreFoundAndRegisteredOfflineAndConflictsKeptAside() throws {
        var intake = IntakeProcess()
        let cora = try intake.prepareServerWithCoordinator()
        let admin = try intake.run(["admin", "token", "create", "admin"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var (server, port) = try intake.startServer()
        func online(_ token: String = cora) -> [String] { ["--server", "http://127.0.0.1:\(port)", "--token", token, "--timeout", "2"] }
        #expect(try intake.run(["patient", "groups", "--create", "arm_a"] + online(admin)).status == 0)

        let amina = try intake.run(
            [
                "patient", "register", "Amina", "Haddad", "--external-id", "EXT-1", "--group", "arm_a", "--consent",
                "sponsors_and_partners",
                "--consent-method", "written",
            ] + online())
        #expect(amina.status == 0 && amina.stdout.contains("Registered patient"), "\(amina.stdout)\(amina.stderr)")
        let aminaId = try #require(amina.stdout.split(separator: " ").last.map { String($0.dropLast(2)) })
        let shown = try intake.run(["patient", "show", aminaId] + online())
        #expect(
            shown.stdout.contains("Data groups: arm_a") && shown.stdout.contains("sponsors_and_partners"), "\(shown.stdout)\(shown.stderr)")
        #expect(try intake.run(["patient", "report", aminaId, "weight", "2026-01-05", "kg=61.5"] + online()).status == 0)
        let synced = try intake.run(["sync"] + online())
        #expect(
            synced.status == 0 && synced.stdout.contains("Registry: 1 patient of the team and their dated reports kept"),
            "\(synced.stdout)\(synced.stderr)")

        // Offline.
        server.terminate()
        server.waitUntilExit()
        let omar = try intake.run(["patient", "register", "Omar", "Khalil", "--external-id", "EXT-2"] + online())
        #expect(
            omar.status == 0 && omar.stdout.contains("is kept on this machine and 'intake flush' registers them"),
            "\(omar.stdout)\(omar.stderr)")
        let clash = try intake.run(["patient", "register", "Sara", "Nasser", "--external-id", "EXT-1"] + online())
        #expect(clash.status == 0 && clash.stdout.contains("kept on this machine"), "\(clash.stdout)\(clash.stderr)")
        let weights = try intake.run(["patient", "reports", String(aminaId.prefix(8)), "weight", "--offline"])
        #expect(weights.stdout.contains("2026-01-05") && weights.stdout.contains("61.5"), "\(weights.stdout)\(weights.stderr)")
        let found = try intake.run(["patient", "find", "--offline", "--name", "had"])
        #expect(
            found.stdout.contains("Haddad") && found.stdout.contains("sponsors_and_partners") && !found.stdout.contains("Khalil"),
            "\(found.stdout)\(found.stderr)")
        let fallback = try intake.run(["patient", "find", "--name", "oma"] + online())
        #expect(
            fallback.stdout.contains("searching this machine's copy") && fallback.stdout.contains("Khalil"),
            "\(fallback.stdout)\(fallback.stderr)")

        // Back online: the flush registers Omar, and keeps Sara aside, saying why.
        (server, port) = try intake.startServer()
        defer { server.terminate() }
        let flushed = try intake.run(["flush"] + online())
        #expect(
            flushed.stdout.contains("Registered patient") && flushed.stdout.contains("has its external id; it stays queued here"),
            "\(flushed.stdout)\(flushed.stderr)")
        #expect(!flushed.stdout.contains("EXT-1"), "no identifier printed")
        #expect(try intake.run(["patient", "find", "--name", "omar"] + online()).stdout.contains("Khalil"))
        let queue = try intake.run(["queue", "list"])
        let aside = try #require(
            queue.stdout.split(separator: "\n").first { $0.hasPrefix("set aside") }.map(String.init), "\(queue.stdout)")
        let actionId = String(aside.split(separator: " ", omittingEmptySubsequences: true)[2])
        let discarded = try intake.run(["queue", "discard", actionId, "--yes"])
        #expect(discarded.status == 0 && discarded.stdout.contains("Discarded \(actionId)"), "\(discarded.stdout)\(discarded.stderr)")
        #expect(!(try intake.run(["queue", "list"]).stdout.contains("set aside")))
    }

    /// Offline, the registry's other work waits as registrations do: `patient show` reads the
    /// copy, a change, a consent and a report are kept and sent by the next flush, in order; a
    /// change to a patient someone changed on the server since is kept aside, never applied over it.
    @Test func changesConsentAndReportsMadeOfflineAreSentByTheNextFlush() throws {
        var intake = IntakeProcess()
        let cora = try intake.prepareServerWithCoordinator()
        var (server, port) = try intake.startServer()
        func online() -> [String] { ["--server", "http://127.0.0.1:\(port)", "--token", cora, "--timeout", "2"] }
        let registered = try intake.run(["patient", "register", "Amina", "Haddad", "--external-id", "EXT-7"] + online())
        let amina = try #require(registered.stdout.split(separator: " ").last.map { String($0.dropLast(2)) }, "\(registered.stdout)")
        let nadia = try #require(
            try intake.run(["patient", "register", "Nadia", "Saleh"] + online()).stdout.split(separator: " ").last.map {
                String($0.dropLast(2))
            })
        #expect(try intake.run(["sync"] + online()).status == 0)

        server.terminate()
        server.waitUntilExit()
        let short = String(amina.prefix(8))
        let shown = try intake.run(["patient", "show", short] + online())
        #expect(
            shown.status == 0 && shown.stdout.contains("this machine's copy") && shown.stdout.contains("Name: Amina Haddad"),
            "\(shown.stdout)\(shown.stderr)")
        let changed = try intake.run(["patient", "update", short, "--family-name", "Haddad-Saleh"] + online())
        #expect(
            changed.status == 0 && changed.stdout.contains("is kept on this machine and 'intake flush' sends it (based on revision 1"),
            "\(changed.stdout)\(changed.stderr)")
        // A second change to the same patient follows the first when they are sent.
        #expect(try intake.run(["patient", "update", short, "--sex", "female"] + online()).status == 0)
        let consented = try intake.run(["patient", "consent", short, "all_qualified_researchers", "--method", "verbal"] + online())
        #expect(consented.status == 0 && consented.stdout.contains("'intake flush' records it"), "\(consented.stdout)\(consented.stderr)")
        let reported = try intake.run(["patient", "report", short, "vitals", "2026-11-20", "weight=61.5"] + online())
        #expect(reported.status == 0 && reported.stdout.contains("'intake flush' stores it"), "\(reported.stdout)\(reported.stderr)")
        let stale = try intake.run(["patient", "update", String(nadia.prefix(8)), "--given-name", "Nadya"] + online())
        #expect(stale.status == 0, "\(stale.stderr)")
        let bad = try intake.run(["patient", "consent", short, "everyone", "--method", "verbal"] + online())
        #expect(
            bad.status != 0 && bad.stderr.contains("no_sharing, sponsors_and_partners or all_qualified_researchers"),
            "checked before it is kept: \(bad.stderr)")

        // Meanwhile someone changes Nadia on the server; then the flush.
        (server, port) = try intake.startServer()
        defer { server.terminate() }
        #expect(try intake.run(["patient", "update", nadia, "--family-name", "Saleh-Omar"] + online()).status == 0)
        let flushed = try intake.run(["flush"] + online())
        #expect(
            flushed.stdout.contains("Sent the change to patient \(short), made offline: revision 2."), "\(flushed.stdout)\(flushed.stderr)")
        #expect(
            flushed.stdout.contains("Sent the change to patient \(short), made offline: revision 3."),
            "the second follows the first: \(flushed.stdout)")
        #expect(
            flushed.stdout.contains("Sent the consent of patient \(short), recorded offline: sharing all_qualified_researchers."),
            "\(flushed.stdout)")
        #expect(
            flushed.stdout.contains("Sent the report for patient \(short), made offline: vitals 2026-11-20, version 1."),
            "\(flushed.stdout)")
        #expect(flushed.stdout.contains("Not sent: the change to patient \(nadia.prefix(8)), made offline"), "\(flushed.stdout)")
        let now = try intake.run(["patient", "show", amina] + online())
        #expect(
            now.stdout.contains("Name: Amina Haddad-Saleh") && now.stdout.contains("Sex: female")
                && now.stdout.contains("all_qualified_researchers"), "\(now.stdout)")
        #expect(
            try intake.run(["patient", "show", nadia] + online()).stdout.contains("Name: Nadia Saleh-Omar"),
            "the server's change is not overwritten")
        let queue = try intake.run(["queue", "list"])
        #expect(
            queue.stdout.contains("set aside") && queue.stdout.contains("Not sent: the change to patient \(nadia.prefix(8))"),
            "\(queue.stdout)")
    }
}
