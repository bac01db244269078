import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServer
import IntakeServerTestSupport
import IntakeService
import Testing

/// A questionnaire version's life on the server: a draft tried by coordinators and hidden from
/// field workers, published, closed to new records (late uploads still taken), retired (records
/// refused, naming the version to move to); who may change it, and the audit trail.
struct QuestionnaireLifecycleTests {
    @Test func aVersionGoesFromDraftToRetiredAndRecordsAreTakenOrRefusedAsItsStateSays() async throws {
        let server = try await TestServer.make()
        let v1 = server.questionnaire.reference
        let published = try #require(try await server.services.store.questionnaire(id: v1.id, version: v1.version))
        // Version 2: the same questionnaire with another title.
        var changed = published.files
        changed["manifest.txt"] = try #require(changed["manifest.txt"]).replacingOccurrences(
            of: "title: Refugee health screening", with: "title: Refugee health screening (2)")
        let files = changed
        struct Publish: Encodable {
            var files: [String: String]
            var lists: [String: String]
            var draft: Bool
        }
        struct State: Encodable { var state: String }
        try await server.application().test(.router) { client in
            // A draft: stored, seen by coordinators only.
            #expect(
                try await client.send(
                    .post, "/v1/questionnaires", as: "fieldworker-a", in: server,
                    json: Publish(files: files, lists: published.lists, draft: true)
                )
                .status == .forbidden)
            let drafted = try await client.send(
                .post, "/v1/questionnaires", as: "coordinator-a", in: server,
                json: Publish(files: files, lists: published.lists, draft: true))
            #expect(drafted.status == .created && drafted.json["state"] as? String == "draft", "\(drafted.text)")
            let v2 = try #require(drafted.json["version"] as? String)
            func versions(_ user: String) async throws -> [String: String] {
                let list = try await client.send(.get, "/v1/questionnaires", as: user, in: server)
                return Dictionary(
                    uniqueKeysWithValues: ((list.json["questionnaires"] as? [[String: Any]]) ?? []).map {
                        ($0["version"] as? String ?? "", $0["state"] as? String ?? "")
                    })
            }
            #expect(try await versions("coordinator-b") == [v1.version: "published", v2: "draft"])
            #expect(try await versions("fieldworker-a") == [v1.version: "published"], "a draft is not offered to the field")
            #expect(
                try await client.send(.get, "/v1/questionnaires/\(v1.id)/versions/\(v2)", as: "fieldworker-a", in: server).status
                    == .notFound)
            #expect(
                try await client.send(.get, "/v1/questionnaires/\(v1.id)/versions/\(v2)", as: "coordinator-a", in: server).status == .ok)

            // A record on the draft is refused until it is published.
            var onDraft = server.record(seed: 1)
            onDraft.questionnaire = QuestionnaireReference(id: v1.id, version: v2)
            let refused = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: onDraft)
            #expect(refused.status == .unprocessableContent && refused.errorCode == "questionnaire_draft", "\(refused.text)")

            // Coordinators try the draft: test records are checked as records are, and kept apart.
            let trial = "/v1/questionnaires/\(v1.id)/versions/\(v2)/test-records"
            #expect(try await client.send(.post, trial, as: "fieldworker-a", in: server, json: onDraft).status == .forbidden)
            let tried = try await client.send(.post, trial, as: "coordinator-a", in: server, json: onDraft)
            #expect(tried.status == .created && tried.json["outcome"] as? String == "test", "\(tried.text)")
            #expect(
                try await client.send(.post, trial, as: "coordinator-a", in: server, json: onDraft).json["outcome"] as? String
                    == "test_replaced")
            var incomplete = onDraft
            incomplete.id = UUID()
            incomplete.answers = [:]
            let invalid = try await client.send(.post, trial, as: "coordinator-a", in: server, json: incomplete)
            #expect(invalid.status == .unprocessableContent && invalid.errorCode == "invalid_record", "\(invalid.text)")
            let onPublished = try await client.send(
                .post, "/v1/questionnaires/\(v1.id)/versions/\(v1.version)/test-records", as: "coordinator-a", in: server,
                json: server.record(seed: 2))
            #expect(onPublished.errorCode == "not_a_draft", "\(onPublished.text)")
            let listed = try await client.send(.get, trial, as: "coordinator-a", in: server)
            #expect(
                (listed.json["records"] as? [[String: Any]])?.map { $0["submittedBy"] as? String } == ["coordinator-a"], "\(listed.text)")
            let others = try await client.send(.get, trial, as: "coordinator-b", in: server)
            #expect((others.json["records"] as? [Any])?.isEmpty == true, "another team's are not listed: \(others.text)")
            #expect(
                try await client.send(.get, "/v1/records/\(onDraft.id.uuidString.lowercased())", as: "coordinator-a", in: server).status
                    == .notFound, "not a record")

            // Only coordinators and admins change a state; only the allowed changes.
            let path = "/v1/questionnaires/\(v1.id)/versions/\(v2)/state"
            #expect(
                try await client.send(.put, path, as: "fieldworker-a", in: server, json: State(state: "published")).status == .forbidden)
            let publishing = try await client.send(.put, path, as: "coordinator-a", in: server, json: State(state: "published"))
            #expect(
                publishing.status == .ok && publishing.json["state"] as? String == "published"
                    && publishing.json["stateChangedBy"] as? String == "coordinator-a")
            #expect(
                (try await client.send(.get, trial, as: "coordinator-a", in: server).json["records"] as? [Any])?.isEmpty == true,
                "published: its test records are gone")
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: onDraft).status == .created)
            let back = try await client.send(.put, path, as: "admin", in: server, json: State(state: "draft"))
            #expect(back.status == .unprocessableContent && back.errorCode == "invalid_transition", "\(back.text)")
            #expect(try await client.send(.put, path, as: "admin", in: server, json: State(state: "bogus")).status == .badRequest)
            #expect(try await versions("fieldworker-a") == [v1.version: "published", v2: "published"], "two versions published at once")

            // Version 1 closes: a record filled on it before is still taken; one started after is not.
            let v1Path = "/v1/questionnaires/\(v1.id)/versions/\(v1.version)/state"
            var filledBefore = server.record(seed: 2)
            filledBefore.createdAt = Date().addingTimeInterval(-3600)
            #expect(
                try await client.send(.put, v1Path, as: "coordinator-b", in: server, json: State(state: "closed")).json["state"] as? String
                    == "closed")
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: filledBefore).status == .created)
            var startedAfter = server.record(seed: 3)
            startedAfter.createdAt = Date().addingTimeInterval(60)
            let closed = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: startedAfter)
            #expect(closed.status == .unprocessableContent && closed.errorCode == "questionnaire_closed", "\(closed.text)")
            #expect(closed.text.contains("new records use version \(v2)"), "names the version to use: \(closed.text)")

            // Retired: refused, naming the version to move to; it can be closed again.
            #expect(try await client.send(.put, v1Path, as: "coordinator-a", in: server, json: State(state: "retired")).status == .ok)
            var late = server.record(seed: 4)
            late.createdAt = Date().addingTimeInterval(-7200)
            let retired = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: late)
            #expect(
                retired.status == .unprocessableContent && retired.errorCode == "questionnaire_retired" && retired.text.contains(v2),
                "\(retired.text)")
            // A record the server already holds, sent again (its answer was lost), is a duplicate, not refused.
            let resent = try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: filledBefore)
            #expect(resent.status == .ok && resent.json["outcome"] as? String == "duplicate", "\(resent.text)")
            #expect(try await client.send(.put, v1Path, as: "coordinator-a", in: server, json: State(state: "closed")).status == .ok)
            #expect(
                try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: late).status == .created,
                "a late upload again")
            // The same state again changes nothing.
            let again = try await client.send(.put, v1Path, as: "coordinator-a", in: server, json: State(state: "closed"))
            #expect(again.status == .ok && again.json["state"] as? String == "closed")

            let audit = try await server.services.store.auditEvents(AuditQuery(action: "questionnaire.state"))
            #expect(
                audit.map { "\($0.actor):\($0.details["to"] ?? "")" } == [
                    "coordinator-a:published", "coordinator-b:closed", "coordinator-a:retired", "coordinator-a:closed",
                ])
        }
    }
}
