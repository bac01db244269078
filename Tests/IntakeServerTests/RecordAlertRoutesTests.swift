import Foundation
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// A questionnaire's alert (`alert if`) reaches the coordinators of the record's team as a
/// `record_alert` notification, once per record and alert, with ids only; on the store the tests
/// run on (scripts/test runs them on SQLite and on PostgreSQL).
struct RecordAlertRoutesTests {
    private func alerts(_ client: some TestClientProtocol, _ user: String, _ server: TestServer) async throws -> [[String: Any]] {
        let page = try await client.send(.get, "/v1/notifications?type=record_alert", as: user, in: server)
        #expect(page.status == .ok, "\(page.text)")
        return page.json["notifications"] as? [[String: Any]] ?? []
    }

    private func answering(_ server: TestServer, seed: UInt64, selfHarm: Bool) -> PatientResponse {
        let position = server.questionnaire.question(id: "self_harm")!.position
        return server.record(seed: seed).with { $0[position] = .yesNo(selfHarm) }
    }

    @Test func aStoredRecordMeetingAnAlertTellsItsTeamsCoordinatorsOnce() async throws {
        let server = try await TestServer.make()
        let alarming = answering(server, seed: 11, selfHarm: true)
        let calm = answering(server, seed: 12, selfHarm: false)
        let id = alarming.id.uuidString.lowercased()
        try await server.application().test(.router) { client in
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: calm).status == .created)
            #expect(try await alerts(client, "coordinator-a", server).isEmpty, "no alert for a record that does not meet it")

            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: alarming).status == .created)
            let raised = try await alerts(client, "coordinator-a", server)
            #expect(raised.count == 1)
            let subject = raised.first?["subject"] as? [String: String]
            // The alert's number, not its question: "self_harm" beside a record id would say the answer.
            #expect(subject?["recordId"] == id && subject?["alert"] == "1" && subject?["questionnaireId"] == "refugee-health")
            #expect(subject?["questionnaireVersion"] == server.questionnaire.version)
            // Ids only: no name and no answer in what the coordinator (or a webhook) receives.
            let text = String(describing: raised)
            #expect(!text.contains(alarming.patient.givenName) && !text.contains(alarming.patient.familyName) && !text.contains("true"))
            #expect(!text.contains("self_harm") && !text.contains("harm"))
            #expect(try await alerts(client, "coordinator-b", server).isEmpty, "another team's coordinators hear nothing")
            #expect(try await alerts(client, "fieldworker-a", server).isEmpty, "field workers are not told")

            // Sent again, then edited: still one notification for this record and alert.
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: alarming).status == .ok)
            let edited = alarming.with { $0.patient.externalId = "CASE-ALERT" }
            let saved = try await client.send(
                .put, "/v1/records/\(id)", as: "coordinator-a", in: server, json: Update(baseRevision: 1, record: edited))
            #expect(saved.status == .ok, "\(saved.text)")
            #expect(try await alerts(client, "coordinator-a", server).count == 1)

            // A batch (what a flush sends) raises them too; a draft does not.
            var draft = answering(server, seed: 13, selfHarm: true)
            draft.status = .draft
            let batch = Batch(records: [answering(server, seed: 14, selfHarm: true), draft])
            let stored = try await client.send(.post, "/v1/records/batch", as: "fieldworker-a", in: server, json: batch)
            #expect(stored.status == .ok, "\(stored.text)")
            let after = try await alerts(client, "coordinator-a", server)
            #expect(after.count == 2)
            #expect(
                Set(after.compactMap { ($0["subject"] as? [String: String])?["recordId"] }) == [
                    id, batch.records[0].id.uuidString.lowercased(),
                ])
        }
    }
}
