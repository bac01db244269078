import Foundation
import IntakeCore
import IntakeStore
import Testing

/// `intake lookup` against a running `intake serve`: find, open, edit, save; search again and again.
@Suite(.serialized)
struct LookupCommandTests {
    let intake = IntakeProcess()

    @Test func findsEditsAndSavesAServerRecordThenKeepsSearching() throws {
        _ = try intake.run(["admin", "bootstrap", "--username", "admin", "--password-stdin"], input: ["admin-password-1"])
        _ = try intake.run(["admin", "team", "create", "clinic"])
        _ = try intake.run(
            ["admin", "user", "create", "amina", "--role", "fieldworker", "--team", "clinic", "--password-stdin"],
            input: ["field-password-1"])
        let (server, port) = try intake.startServer(arguments: ["--publish", "refugee-health"])
        defer { server.terminate() }
        let login = try intake.run(
            ["login", "--server", "http://127.0.0.1:\(port)", "--username", "amina", "--password-stdin"], input: ["field-password-1"])
        #expect(login.status == 0, "\(login.stderr)")
        let filled = try intake.run(["fill"], input: Answers.all + [":finish"])
        #expect(filled.stdout.contains("Sent to the server."), "\(filled.stdout)")

        let search = ["", "Amina", "", ""]
        let edit = ["1", ":go patient", "", "", "", "", "CASE-77", ":finish"]
        let result = try intake.run(
            ["lookup", "--family-name", "HADDAD"],
            input: edit + search + ["1", ":quit"] + search + [""] + ["", "Nobody", "", ""] + ["", "", "", ""])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Editing the server's record at revision 1."))
        #expect(result.stdout.contains("Saved on the server as revision 2."))
        #expect(result.stdout.components(separatedBy: "Haddad, Amina").count - 1 == 3, "three searches found her")
        #expect(result.stdout.contains("No patient matches."))
        #expect(result.stdout.contains("1   draft   "), "an edit left with :quit is found as this machine's draft")
        #expect(try LocalStore(directory: intake.dataDirectory).drafts().first?.baseRevision == 2)
    }
}
