import Foundation
import Testing

/// `intake patient` against a real server process: a roster imported (only when every row is
/// good, or its good rows when asked), imported again without registering anyone twice, then a
/// patient found, shown, changed, given consent and archived.
@Suite(.serialized)
struct PatientCommandTests {
    let intake = IntakeProcess()

    @Test func aRosterIsImportedOnceAndItsPatientsAreFoundChangedAndGivenConsent() throws {
        let cora = try intake.prepareServerWithCoordinator()
        let (server, port) = try intake.startServer()
        defer { server.terminate() }
        func run(_ arguments: [String]) throws -> IntakeProcess.Result {
            try intake.run(arguments + ["--server", "http://127.0.0.1:\(port)", "--token", cora])
        }
        try FileManager.default.createDirectory(at: intake.dataDirectory, withIntermediateDirectories: true)
        let roster = intake.dataDirectory.appendingPathComponent("roster.csv")
        try """
        given_name,family_name,date_of_birth,sex,external_id
        Amina,Haddad,1990-04-12,female,UNHCR-1
        Bilal,Khan,1985-01-02,male,UNHCR-2
        Chen,"Li, Jr.",,,
        Dana,Li,1990-02-30,female,UNHCR-4
        """.write(to: roster, atomically: true, encoding: .utf8)

        let refused = try run(["patient", "import", roster.path])
        #expect(refused.status != 0 && refused.stderr.contains("row 5, column date_of_birth: not a date"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was imported") && !refused.stderr.contains("1990-02-30"), "\(refused.stderr)")
        let dry = try run(["patient", "import", roster.path, "--dry-run"])
        #expect(dry.stdout.contains("Dry run: 3 row(s) ready to import, 1 with problems; nothing was sent."), "\(dry.stdout)")
        #expect(try run(["patient", "find", "--name", "haddad"]).stdout.hasPrefix("No patient matches."))

        let imported = try run(["patient", "import", roster.path, "--skip-invalid"])
        #expect(imported.stdout.contains("Registered 3, already registered 0, refused 0."), "\(imported.stdout)\(imported.stderr)")
        #expect(imported.status != 0, "a row was left out: the exit status says so")
        let again = try run(["patient", "import", roster.path, "--skip-invalid"])
        #expect(again.stdout.contains("Registered 0, already registered 3, refused 0."), "\(again.stdout)")

        let found = try run(["patient", "find", "--name", "HADDAD"])
        #expect(found.stdout.contains("Haddad") && found.stdout.contains("UNHCR-1") && !found.stdout.contains("Khan"), "\(found.stdout)")
        let line = try #require(found.stdout.split(separator: "\n").dropFirst().first)
        let shortId = String(line.prefix(8))
        let id = try #require(imported.stdout.split(separator: "\n").first { $0.hasPrefix("row 2:") }?.split(separator: " ").last)
            .description
        #expect(id == shortId)
        // The whole id, from the registry.
        let byExternal = try run(["patient", "find", "--external-id", "UNHCR-2"])
        #expect(byExternal.stdout.contains("Khan"))

        let twin = try run(["patient", "register", "Other", "Person", "--external-id", "UNHCR-1"])
        #expect(twin.status != 0 && twin.stderr.contains("already has this external id"), "\(twin.stderr)")
        let registered = try run(["patient", "register", "Eve", "Ray", "--date-of-birth", "2001-03-04"])
        let eve = try #require(
            registered.stdout.components(separatedBy: "Registered patient ").last?.trimmingCharacters(in: CharacterSet(charactersIn: ".\n"))
        )
        #expect(registered.status == 0 && UUID(uuidString: eve) != nil, "\(registered.stdout)\(registered.stderr)")
        // A record for her starts with her patient section filled in from the registry.
        let fill = try intake.run(["fill", "--patient", eve, "--server", "http://127.0.0.1:\(port)", "--token", cora], input: [":quit"])
        #expect(fill.stdout.contains("Patient Eve Ray, from the registry (\(eve.prefix(8)))"), "\(fill.stdout)\(fill.stderr)")
        let drafts = try intake.run(["drafts", "list"])
        #expect(drafts.stdout.contains("E. R."), "\(drafts.stdout)")
        #expect(try run(["patient", "update", eve, "--family-name", "Ray-Li", "--clear", "date_of_birth"]).stdout.contains("revision 2"))
        #expect(
            try run(["patient", "consent", eve, "sponsors_and_partners", "--method", "written"]).stdout.contains("sponsors_and_partners"))
        // An admin defines a data group; the coordinator puts Eve in it (an undefined one is refused, naming those there are).
        let admin = try intake.run(["admin", "token", "create", "admin"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let defined = try intake.run([
            "patient", "groups", "--create", "arm_a", "--description", "Arm A", "--server", "http://127.0.0.1:\(port)", "--token", admin,
        ])
        #expect(defined.stdout == "Defined data group arm_a.\n", "\(defined.stdout)\(defined.stderr)")
        #expect(try run(["patient", "update", eve, "--add-group", "arm_a"]).stdout.contains("groups: arm_a"))
        let undefined = try run(["patient", "update", eve, "--add-group", "arm_z"])
        #expect(undefined.status != 0 && undefined.stderr.contains("defined: arm_a"), "\(undefined.stderr)")
        #expect(try run(["patient", "groups"]).stdout.contains("arm_a\t1 patient(s)\tArm A"))
        let shown = try run(["patient", "show", eve])
        #expect(shown.stdout.contains("Name: Eve Ray-Li") && shown.stdout.contains("Born: unknown"), "\(shown.stdout)")
        #expect(shown.stdout.contains("sponsors_and_partners (written), recorded by cora"), "\(shown.stdout)")
        #expect(shown.stdout.contains("Data groups: arm_a"), "\(shown.stdout)")
        // Dated reports: stored, replaced (the first kept), listed by the documented bounds.
        let report = try run(["patient", "report", eve, "vitals", "2026-11-01", "weight=61.5", "note=after meal", "fasting=true"])
        #expect(
            report.stdout.contains("Stored vitals 2026-11-01 for patient \(eve.prefix(8)) (version 1)."), "\(report.stdout)\(report.stderr)"
        )
        #expect(
            try run(["patient", "report", eve, "vitals", "2026-11-01", "--json", #"{"weight": 62}"#]).stdout.contains(
                "(version 2; the earlier ones are kept)"))
        _ = try run(["patient", "report", eve, "vitals", "2026-11-08", "weight=63"])
        let wrongKind = try run(["patient", "report", eve, "vitals", "2026-11-09T08:00:00Z", "weight=1"])
        #expect(wrongKind.status != 0 && wrongKind.stderr.contains("calendar dates"), "\(wrongKind.stderr)")
        let badPair = try run(["patient", "report", eve, "vitals", "2026-11-10", "weight"])
        #expect(badPair.status != 0 && badPair.stderr.contains("is not key=value"), "\(badPair.stderr)")
        let listed = try run(["patient", "reports", eve, "vitals", "--start-date", "2026-11-01", "--end-date", "2026-11-01"])
        #expect(listed.stdout == "2026-11-01\tversion 2\tcora\t{\"weight\":62}\n", "\(listed.stdout)\(listed.stderr)")
        #expect(try run(["patient", "reports", eve, "vitals", "--latest"]).stdout.hasPrefix("2026-11-08\t"))
        let stale = try run(["patient", "update", eve, "--base-revision", "1", "--given-name", "Eva"])
        #expect(stale.status != 0 && stale.stderr.contains("changed since revision 1"), "\(stale.stderr)")
        #expect(try run(["patient", "archive", eve]).status == 0)
        #expect(try run(["patient", "find", "--name", "eve"]).stdout.hasPrefix("No patient matches."))
        #expect(try run(["patient", "find", "--name", "eve", "--include-archived"]).stdout.contains("(archived)"))
    }
}
