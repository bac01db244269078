import Foundation
import IntakeCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `intake review` against a real server: a coordinator says a record has issues, the field
/// worker sees it in their inbox and the thread, answers, edits are refused once it is approved
/// and locked, and an export holds only the approved records.
@Suite(.serialized)
struct ReviewCommandTests {
    let intake = IntakeProcess()

    @Test func aCoordinatorReviewsAndTheCollectorHearsOfItAnswersAndIsLockedOut() async throws {
        let cora = try intake.prepareServerWithCoordinator()
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
            seed: 11, collector: "fatima")
        let records = [generator.next(), generator.next()]
        for record in records {
            var post = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/records")!)
            post.httpMethod = "POST"
            post.httpBody = record.jsonData()
            post.setValue("Bearer \(fatima)", forHTTPHeaderField: "Authorization")
            post.setValue("application/json", forHTTPHeaderField: "Content-Type")
            let (_, posted) = try await URLSession.shared.data(for: post)
            #expect((posted as? HTTPURLResponse)?.statusCode == 201)
        }
        let remote = ["--server", "http://127.0.0.1:\(port)"]
        let id = records[0].id.uuidString.lowercased()
        let short = String(id.prefix(8))

        let waiting = try intake.run(["review", "list", "--state", "received", "--token", cora] + remote)
        #expect(
            waiting.status == 0 && waiting.stdout.contains(short) && waiting.stdout.contains("received"),
            "\(waiting.stdout)\(waiting.stderr)")
        let badState = try intake.run(["review", "list", "--state", "fine", "--token", cora] + remote)
        #expect(badState.status != 0 && badState.stderr.contains("not a review state"), "\(badState.stderr)")
        let notTheirs = try intake.run(["review", "set", short, "approved", "--token", fatima] + remote)
        #expect(notTheirs.status != 0 && notTheirs.stderr.contains("coordinator"), "\(notTheirs.stderr)")
        let badLock = try intake.run(["review", "set", short, "rejected", "--lock", "--token", cora] + remote)
        #expect(badLock.status != 0 && badLock.stderr.contains("Only an approved record is locked"), "\(badLock.stderr)")

        // Typed as the list prints it ("has issues") or with a hyphen, the state is the same.
        let flagged = try intake.run(["review", "set", short, "has-issues", "--comment", "Weight 680 kg?", "--token", cora] + remote)
        #expect(flagged.status == 0 && flagged.stdout.contains("is now has issues"), "\(flagged.stdout)\(flagged.stderr)")
        let inbox = try intake.run(["inbox", "--token", fatima] + remote)
        #expect(
            inbox.stdout.contains("cora says your record \(short)") && inbox.stdout.contains("has issues"), "\(inbox.stdout)\(inbox.stderr)"
        )
        #expect(!inbox.stdout.contains("680"), "the comment stays in the thread")
        let answered = try intake.run(["review", "comment", short, "68 kg: a typo", "--token", fatima] + remote)
        #expect(answered.status == 0, "\(answered.stderr)")
        let shown = try intake.run(["review", "show", short, "--token", fatima] + remote)
        #expect(
            shown.stdout.contains("Review: has issues") && shown.stdout.contains("Weight 680 kg?")
                && shown.stdout.contains("fatima: 68 kg: a typo"), "\(shown.stdout)")

        let locked = try intake.run(["review", "set", short, "approved", "--lock", "--token", cora] + remote)
        #expect(locked.status == 0 && locked.stdout.contains("approved (locked)"), "\(locked.stdout)\(locked.stderr)")
        let listed = try intake.run(["review", "list", "--token", fatima] + remote)
        #expect(listed.stdout.contains("approved (locked)"), "a field worker lists the records they collected: \(listed.stdout)")

        // An export of the approved records only, carrying the state.
        let folder = intake.dataDirectory.appendingPathComponent("approved")
        let export = try intake.run(
            ["export", "--out", folder.path, "--review-state", "approved", "--format", "csv", "--token", cora] + remote)
        #expect(export.status == 0, "\(export.stdout)\(export.stderr)")
        let csv = try String(contentsOf: folder.appendingPathComponent("records.csv"), encoding: .utf8)
        let header = csv.prefix { $0 != "\r\n" }
        #expect(header.hasSuffix(",review_state") || header.contains(",review_state,"), "\(header)")
        #expect(csv.contains(id) && !csv.contains(records[1].id.uuidString.lowercased()) && csv.contains(",approved"), "\(csv.prefix(300))")
        let bad = try intake.run(["export", "--out", folder.path, "--review-state", "good", "--token", cora] + remote)
        #expect(bad.status != 0 && bad.stderr.contains("Unknown review state"), "\(bad.stderr)")

        let reopened = try intake.run(["review", "reopen", short, "--token", cora] + remote)
        #expect(reopened.status == 0 && reopened.stdout.contains("reopened"), "\(reopened.stdout)\(reopened.stderr)")
        let again = try intake.run(["review", "reopen", short, "--token", cora] + remote)
        #expect(again.status != 0 && again.stderr.contains("not locked"), "\(again.stderr)")
        #expect(try intake.run(["admin", "audit", "list", "--action", "record.review"]).stdout.contains("\tcora\trecord.review\t\(id)"))
    }
}
