import Foundation
import GRDB
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `intake admin audit` on a real server's database: what the server and the admin commands
/// did is listed, verified, exported and fingerprinted; an event edited in the database file, or
/// events cut from its end, are found and the command fails.
@Suite(.serialized)
struct AuditCommandTests {
    let intake = IntakeProcess()

    @Test func theTrailIsListedVerifiedAndTamperingInTheFileIsFound() async throws {
        let cora = try intake.prepareServerWithCoordinator()
        let (server, port) = try intake.startServer()
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records?familyName=Haddad")!)
        request.setValue("Bearer \(cora)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        // A record sent from a device; its history names it, and the record as it was before it existed is refused.
        var generator = SampleGenerator(
            questionnaire: try QuestionnaireLoader.load(
                directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")),
            seed: 5, collector: "cora")
        let record = generator.next()
        var post = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records")!)
        post.httpMethod = "POST"
        post.httpBody = record.jsonData()
        post.setValue("Bearer \(cora)", forHTTPHeaderField: "Authorization")
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.setValue("tablet-3", forHTTPHeaderField: "Intake-Device-Id")
        let (_, posted) = try await URLSession.shared.data(for: post)
        #expect((posted as? HTTPURLResponse)?.statusCode == 201)
        let history = try intake.run(["history", record.id.uuidString, "--server", "http://127.0.0.1:\(port)", "--token", cora])
        #expect(
            history.stdout.hasPrefix("revision 1\t") && history.stdout.contains("\tcora\ttablet-3"), "\(history.stdout)\(history.stderr)")
        let early = try intake.run([
            "history", record.id.uuidString, "--as-of", "2001-01-01T00:00:00Z", "--server", "http://127.0.0.1:\(port)", "--token", cora,
        ])
        #expect(early.status != 0 && early.stderr.contains("first received"), "\(early.stderr)")
        let now = try intake.run([
            "history", record.id.uuidString, "--as-of", "2100-01-01T00:00:00Z", "--server", "http://127.0.0.1:\(port)", "--token", cora,
        ])
        #expect(now.stdout.contains("revision 1"), "\(now.stdout)\(now.stderr)")
        // Answers as the form shows them, labelled by the question's id, in the same order every run.
        #expect(now.stdout.contains("1.1 birth_country: "), "\(now.stdout)")
        #expect(
            !now.stdout.contains("IntakeCore.Answer") && !now.stdout.contains(".text(") && !now.stdout.contains(".choice("), "\(now.stdout)"
        )
        let again = try intake.run([
            "history", record.id.uuidString, "--as-of", "2100-01-01T00:00:00Z", "--server", "http://127.0.0.1:\(port)", "--token", cora,
        ])
        #expect(again.stdout == now.stdout, "the same each run")
        // The short id listings show works too; one no record has is said so.
        let short = String(record.id.uuidString.lowercased().prefix(8))
        let byShort = try intake.run(["history", short, "--server", "http://127.0.0.1:\(port)", "--token", cora])
        #expect(byShort.stdout.hasPrefix("revision 1\t"), "\(byShort.stdout)\(byShort.stderr)")
        let unknown = try intake.run(["history", "ffff0000", "--server", "http://127.0.0.1:\(port)", "--token", cora])
        #expect(
            unknown.status == 1 && unknown.stderr.contains("No record of your team has an id starting with 'ffff0000'"), "\(unknown.stderr)"
        )
        #expect(
            FileManager.default.fileExists(atPath: intake.dataDirectory.appendingPathComponent("device-id").path),
            "the command keeps its device id")
        server.terminate()
        server.waitUntilExit()

        let listed = try intake.run(["admin", "audit", "list"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n")
        #expect(
            lines.contains { $0.contains("\tteam.create\tclinic") } && lines.contains { $0.contains("\tuser.create\tcora\t") },
            "\(listed.stdout)")
        #expect(lines.contains { $0.contains("\tcora\tlookup\t-\tfields=familyName") }, "\(listed.stdout)")
        #expect(lines.contains { $0.contains("\tcora\trecord.create\t\(record.id.uuidString.lowercased())") }, "\(listed.stdout)")
        #expect(!listed.stdout.contains("Haddad"), "the value searched for is never kept")
        let lookups = try intake.run(["admin", "audit", "list", "--actor", "cora", "--action", "lookup"])
        #expect(lookups.stdout.split(separator: "\n").count == 1)

        let head = try intake.run(["admin", "audit", "head"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(head.hasPrefix("\(lines.count):") && head.count == "\(lines.count):".count + 64, "\(head)")
        let sound = try intake.run(["admin", "audit", "verify", "--expect-head", head])
        #expect(sound.status == 0 && sound.stdout.contains("sound: \(lines.count) event(s)"), "\(sound.stdout)\(sound.stderr)")
        let exported = intake.dataDirectory.appendingPathComponent("audit.jsonl")
        #expect(
            try intake.run(["admin", "audit", "export", "--out", exported.path]).stdout.contains("Wrote \(lines.count) audit event(s)"))
        #expect(try String(contentsOf: exported, encoding: .utf8).split(separator: "\n").count == lines.count)

        // Someone with the file removes the guard and edits an event, then cuts the last one.
        let file = intake.dataDirectory.appendingPathComponent("server.sqlite").path
        let queue = try DatabaseQueue(path: file)
        let original = try await queue.read { db in try String.fetchOne(db, sql: "SELECT actor FROM auditEvent WHERE seq = 2") }
        try await queue.write { db in
            try db.execute(sql: "DROP TRIGGER auditEvent_no_update; DROP TRIGGER auditEvent_no_delete")
            try db.execute(sql: "UPDATE auditEvent SET actor = 'someone-else' WHERE seq = 2")
        }
        let edited = try intake.run(["admin", "audit", "verify"])
        #expect(
            edited.status != 0 && edited.stderr.contains("event 2 was changed") && edited.stderr.contains("1 event(s) before it"),
            "\(edited.stderr)")
        try await queue.write { db in
            try db.execute(sql: "UPDATE auditEvent SET actor = ? WHERE seq = 2", arguments: [original])
        }
        #expect(try intake.run(["admin", "audit", "verify"]).status == 0, "put back as it was, it checks out again")
        try await queue.write { db in try db.execute(sql: "DELETE FROM auditEvent WHERE seq = (SELECT MAX(seq) FROM auditEvent)") }
        let cut = try intake.run(["admin", "audit", "verify", "--expect-head", head])
        #expect(cut.status != 0 && cut.stderr.contains("no longer in the trail"), "\(cut.stderr)")
        let badHead = try intake.run(["admin", "audit", "verify", "--expect-head", "12:nothex"])
        #expect(badHead.status != 0 && badHead.stderr.contains("SEQ:HASH"))
    }
}
