import Foundation
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `intake delete` against a real server, then `intake admin purge-tombstones` on its database.
@Suite(.serialized)
struct DeleteCommandTests {
    let intake = IntakeProcess()

    @Test func aCoordinatorDeletesARecordWhichThenAnswersThatItWasDeletedAndAPurgeSaysHowMany() async throws {
        let cora = try intake.prepareServerWithCoordinator()
        _ = try intake.run(["admin", "team", "create", "ward"])
        _ = try intake.run(
            ["admin", "user", "create", "fatima", "--role", "fieldworker", "--team", "clinic", "--password-stdin"], input: ["fieldworker-1"]
        )
        let fatima = try intake.run(["admin", "token", "create", "fatima"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, port) = try intake.startServer()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        var generator = SampleGenerator(
            questionnaire: try QuestionnaireLoader.load(
                directory: IntakeProcess.repositoryRoot.appendingPathComponent("Questionnaires/refugee-health")),
            seed: 7, collector: "fatima")
        let record = generator.next()
        var post = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records")!)
        post.httpMethod = "POST"
        post.httpBody = record.jsonData()
        post.setValue("Bearer \(fatima)", forHTTPHeaderField: "Authorization")
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, posted) = try await URLSession.shared.data(for: post)
        #expect((posted as? HTTPURLResponse)?.statusCode == 201)
        let remote = ["--server", "http://127.0.0.1:\(port)"]
        let id = record.id.uuidString

        let refused = try intake.run(["delete", id, "--reason", "entered twice", "--token", fatima] + remote)
        #expect(refused.status != 0 && refused.stderr.contains("needs the role coordinator"), "\(refused.stderr)")
        let noReason = try intake.run(["delete", id, "--token", cora] + remote)
        #expect(noReason.status != 0 && noReason.stderr.contains("--reason"), "\(noReason.stderr)")
        let deleted = try intake.run(["delete", id, "--reason", "entered twice", "--token", cora] + remote)
        #expect(deleted.status == 0 && deleted.stdout.contains("Deleted record \(id.lowercased())"), "\(deleted.stdout)\(deleted.stderr)")

        let history = try intake.run(["history", id, "--token", fatima] + remote)
        #expect(history.status != 0 && history.stderr.contains("was deleted at") && history.stderr.contains("by cora"), "\(history.stderr)")
        let again = try intake.run(["delete", id, "--reason", "again", "--token", cora] + remote)
        #expect(again.status != 0 && again.stderr.contains("HTTP 410"), "\(again.stderr)")
        let notAnId = try intake.run(["delete", "abc", "--reason", "x", "--token", cora] + remote)
        #expect(notAnId.status != 0 && notAnId.stderr.contains("not a record id"), "\(notAnId.stderr)")

        // Another record moves to the ward.
        let second = generator.next()
        post.httpBody = second.jsonData()
        _ = try await URLSession.shared.data(for: post)
        let moved = try intake.run(["transfer", second.id.uuidString, "--to-team", "ward", "--token", cora] + remote)
        #expect(moved.status == 0 && moved.stdout.contains("Moved 1 record(s) to team 'ward'"), "\(moved.stdout)\(moved.stderr)")
        #expect(
            try intake.run(["history", second.id.uuidString, "--token", fatima] + remote).stderr.contains("not found"),
            "no longer the clinic's")

        let purge = try intake.run(["admin", "purge-tombstones", "--older-than-days", "30"])
        #expect(purge.status == 0 && purge.stdout.contains("Purged 0 tombstone(s)"), "\(purge.stdout)\(purge.stderr)")
        let badDays = try intake.run(["admin", "purge-tombstones", "--older-than-days", "0"])
        #expect(badDays.status != 0 && badDays.stderr.contains("from 1 to 36500"), "\(badDays.stderr)")
        let listed = try intake.run(["admin", "audit", "list", "--action", "record"])
        #expect(
            listed.stdout.contains("\tcora\trecord.delete\t\(id.lowercased())") && listed.stdout.contains("record.purge"),
            "\(listed.stdout)")
        #expect(!listed.stdout.contains("entered twice"), "the reason is not on the trail")

        // Collector-only, set on the database by an admin.
        let on = try intake.run(["admin", "collector-only", "refugee-health", "on"])
        #expect(
            on.status == 0 && on.stdout.contains("now visible only to the field workers who collected them"), "\(on.stdout)\(on.stderr)")
        #expect(try intake.run(["admin", "collector-only", "refugee-health", "on"]).stdout.contains("already"))
        let unknown = try intake.run(["admin", "collector-only", "nope", "on"])
        #expect(unknown.status != 0 && unknown.stderr.contains("No questionnaire 'nope' is published"), "\(unknown.stderr)")
        #expect(try intake.run(["admin", "audit", "list", "--action", "questionnaire.access"]).stdout.contains("collectorOnly=true"))
    }
}
