import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import IntakeStoreTesting
import Testing

@testable import IntakeServer
@testable import IntakeService

/// A record reviewed over HTTP: its team's coordinator says it has issues, its collector is told
/// (ids only), answers and edits it; an approval locks it against edits until it is reopened;
/// lists and exports go by review state.
struct ReviewRoutesTests {
    struct Decision: Encodable {
        var state: String
        var lock: Bool?
        var comment: String?
    }

    struct Text: Encodable { var text: String }

    @Test func aCoordinatorReviewsTheCollectorIsToldAndALockedRecordRefusesEdits() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 61)
        _ = try await server.services.records.ingest([record], owner: RecordOwner(teamId: 1, username: "fieldworker-a"))
        let id = record.id.uuidString.lowercased()
        try await server.application().test(.router) { client in
            let start = try await client.send(.get, "/v1/records/\(id)/review", as: "fieldworker-a", in: server)
            #expect(
                start.status == .ok && start.json["state"] as? String == "received" && start.json["locked"] as? Bool == false,
                "\(start.text)")

            let byCollector = try await client.send(
                .post, "/v1/records/\(id)/review", as: "fieldworker-a", in: server, json: Decision(state: "approved"))
            #expect(byCollector.status == .forbidden, "a field worker does not review")
            let byOtherTeam = try await client.send(
                .post, "/v1/records/\(id)/review", as: "coordinator-b", in: server, json: Decision(state: "approved"))
            #expect(byOtherTeam.status == .notFound, "another team's coordinator does not see it")
            let serverState = try await client.send(
                .post, "/v1/records/\(id)/review", as: "coordinator-a", in: server, json: Decision(state: "edited"))
            #expect(serverState.status == .unprocessableContent && serverState.errorCode == "invalid_review_state")
            let lockIssues = try await client.send(
                .post, "/v1/records/\(id)/review", as: "coordinator-a", in: server, json: Decision(state: "has_issues", lock: true))
            #expect(lockIssues.status == .unprocessableContent && lockIssues.errorCode == "invalid_lock")
            let unknown = try await client.send(
                .post, "/v1/records/\(id)/review", as: "coordinator-a", in: server, json: Decision(state: "maybe"))
            #expect(unknown.status.code / 100 == 4, "\(unknown.status)")

            let flagged = try await client.send(
                .post, "/v1/records/\(id)/review", as: "coordinator-a", in: server,
                json: Decision(state: "has_issues", comment: "Weight of 680 kg?"))
            #expect(
                flagged.status == .ok && flagged.json["state"] as? String == "has_issues"
                    && flagged.json["reviewedBy"] as? String == "coordinator-a")
            let counts = try await client.send(.get, "/v1/notifications/counts", as: "fieldworker-a", in: server)
            #expect((counts.json["unread"] as? [String: Int])?["review_has_issues"] == 1, "\(counts.text)")
            let told = try await client.send(.get, "/v1/notifications", as: "fieldworker-a", in: server)
            #expect(told.text.contains(id) && !told.text.contains("680"), "the notification names the record, never the comment")

            let thread = try await client.send(.get, "/v1/records/\(id)/review", as: "fieldworker-a", in: server)
            #expect((thread.json["entries"] as? [[String: Any]])?.first?["text"] as? String == "Weight of 680 kg?")
            let answer = try await client.send(
                .post, "/v1/records/\(id)/review/comments", as: "fieldworker-a", in: server, json: Text(text: "68 kg, fixed"))
            #expect(answer.status == .created)
            let empty = try await client.send(
                .post, "/v1/records/\(id)/review/comments", as: "fieldworker-a", in: server, json: Text(text: "  "))
            #expect(empty.status == .unprocessableContent)
            let lead = try await client.send(.get, "/v1/notifications/counts", as: "coordinator-a", in: server)
            #expect((lead.json["unread"] as? [String: Int])?["review_comment"] == 1, "\(lead.text)")

            let edited = try await client.send(
                .put, "/v1/records/\(id)", as: "fieldworker-a", in: server,
                json: Update(baseRevision: 1, record: record.with { $0.patient.externalId = "E-1" }))
            #expect(edited.status == .ok)
            let afterEdit = try await client.send(.get, "/v1/records/\(id)/review", as: "coordinator-a", in: server)
            #expect(afterEdit.json["state"] as? String == "edited")

            let locked = try await client.send(
                .post, "/v1/records/\(id)/review", as: "coordinator-a", in: server, json: Decision(state: "approved", lock: true))
            #expect(locked.json["locked"] as? Bool == true)
            let refused = try await client.send(
                .put, "/v1/records/\(id)", as: "fieldworker-a", in: server,
                json: Update(baseRevision: 2, record: record.with { $0.patient.externalId = "E-2" }))
            #expect(refused.status == .conflict && refused.errorCode == "record_locked", "\(refused.text)")

            // Lists: the team's coordinator and admins by state, the collector their own, nobody else's.
            func listed(_ user: String, _ query: String) async throws -> [String]? {
                let answer = try await client.send(.get, "/v1/reviews\(query)", as: user, in: server)
                return (answer.json["reviews"] as? [[String: Any]])?.compactMap { $0["recordId"] as? String }
            }
            #expect(try await listed("coordinator-a", "?state=approved") == [id])
            #expect(try await listed("coordinator-a", "?state=has_issues,rejected") == [])
            #expect(try await listed("admin", "?state=approved") == [id])
            #expect(try await listed("fieldworker-a", "") == [id])
            #expect(try await listed("coordinator-b", "") == [])
            #expect(try await client.send(.get, "/v1/reviews", as: "researcher", in: server).status == .forbidden)
            #expect(try await client.send(.get, "/v1/reviews?state=fine", as: "admin", in: server).status == .badRequest)
            #expect(try await listed("coordinator-a", "?from=2000-01-01&to=2100-12-31") == [id])
            #expect(try await listed("coordinator-a", "?from=2100-01-01") == [], "changed before that day")
            #expect(try await listed("coordinator-a", "?to=2000-01-01") == [])
            #expect(try await listed("coordinator-a", "?version=\(record.questionnaire.version)") == [id])
            #expect(try await listed("coordinator-a", "?version=nope") == [])
            #expect(try await client.send(.get, "/v1/reviews?from=yesterday", as: "admin", in: server).status == .badRequest)
            let many = Array(repeating: "approved", count: 40).joined(separator: ",")
            #expect(try await listed("coordinator-a", "?state=\(many)") == [id], "any list the contract allows, however long")

            // Exports filter by state and carry it.
            let approved = try await client.send(.get, "/v1/exports?format=jsonl&reviewStates=approved", as: "coordinator-a", in: server)
            let lines = approved.text.split(separator: "\n")
            #expect(
                lines.count == 1 && lines.first?.contains("\"reviewState\":\"approved\"") == true,
                "\(approved.status) \(approved.text.prefix(200))")
            let csv = try await client.send(.get, "/v1/exports?format=csv&reviewStates=approved", as: "coordinator-a", in: server)
            #expect(
                csv.text.split(separator: "\r\n").first?.contains(",review_state") == true && csv.text.split(separator: "\r\n").count == 2)
            let none = try await client.send(.get, "/v1/exports?format=jsonl&reviewStates=rejected", as: "coordinator-a", in: server)
            #expect(none.status == .ok && none.text.isEmpty)
            #expect(try await client.send(.get, "/v1/exports?reviewStates=good", as: "coordinator-a", in: server).status == .badRequest)

            let reopened = try await client.send(.post, "/v1/records/\(id)/review/reopen", as: "admin", in: server)
            #expect(reopened.status == .ok && reopened.json["locked"] as? Bool == false, "\(reopened.text)")
            let again = try await client.send(.post, "/v1/records/\(id)/review/reopen", as: "admin", in: server)
            #expect(again.status == .conflict && again.errorCode == "review_not_locked")
            let saved = try await client.send(
                .put, "/v1/records/\(id)", as: "fieldworker-a", in: server,
                json: Update(baseRevision: 2, record: record.with { $0.patient.externalId = "E-3" }))
            #expect(saved.status == .ok)
        }
    }
}
