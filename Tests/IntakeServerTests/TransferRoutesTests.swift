import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Moving records between teams over HTTP.
struct TransferRoutesTests {
    @Test func aCoordinatorMovesARecordToAnotherTeamWhichThenHoldsIt() async throws {
        let server = try await TestServer.make()
        let record = server.record(seed: 950)
        var linked = server.record(seed: 951)
        let patient = UUID()
        _ = try await server.services.store.registerPatients([
            NewPatient(
                id: patient, teamId: 1, identification: PatientIdentification(givenName: "A", familyName: "B"), createdBy: "x",
                createdAt: Date())
        ])
        linked.patientId = patient
        try await server.application().test(.router) { [linked] client in
            for item in [record, linked] {
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: item).status == .created)
            }
            let cursor = try #require(try await client.send(.get, "/v1/changes", as: "fieldworker-a", in: server).json["cursor"] as? String)
            let path = "/v1/records/\(record.id.uuidString.lowercased())"
            #expect(
                try await client.send(.post, path + "/transfer", as: "fieldworker-a", in: server, json: ["toTeam": "team-b"]).status
                    == .forbidden)
            #expect(
                try await client.send(.post, path + "/transfer", as: "coordinator-a", in: server, json: ["toTeam": "nowhere"]).errorCode
                    == "unknown_team")
            #expect(
                try await client.send(.post, path + "/transfer", as: "coordinator-a", in: server, json: ["toTeam": "team-a"]).errorCode
                    == "same_team")
            #expect(
                try await client.send(.post, path + "/transfer", as: "coordinator-b", in: server, json: ["toTeam": "team-a"]).status
                    == .notFound)
            let withPatient = try await client.send(
                .post, "/v1/records/\(linked.id.uuidString.lowercased())/transfer", as: "coordinator-a", in: server,
                json: ["toTeam": "team-b"])
            #expect(withPatient.errorCode == "record_has_patient" && withPatient.text.contains(patient.uuidString.lowercased()))

            let moved = try await client.send(.post, path + "/transfer", as: "coordinator-a", in: server, json: ["toTeam": "team-b"])
            #expect(moved.status == .ok && moved.json["transferred"] as? [String] == [record.id.uuidString.lowercased()], "\(moved.text)")
            #expect(try await client.send(.get, path, as: "fieldworker-a", in: server).status == .notFound)
            #expect(try await client.send(.get, path, as: "fieldworker-b", in: server).status == .ok)
            let feed = try await client.send(.get, "/v1/changes?since=\(cursor)", as: "fieldworker-a", in: server)
            let change = (feed.json["changes"] as? [[String: Any]])?.first
            #expect(change?["type"] as? String == "removed" && change?["reason"] as? String == "transferred", "\(feed.text)")
            let counts = try await client.send(.get, "/v1/notifications/counts", as: "coordinator-b", in: server)
            #expect((counts.json["unread"] as? [String: Int])?["records_transferred"] == 1, "\(counts.text)")

            // The patient, with their record.
            let patientMove = try await client.send(
                .post, "/v1/patients/\(patient.uuidString.lowercased())/transfer", as: "coordinator-a", in: server,
                json: ["toTeam": "team-b"])
            #expect(patientMove.json["transferred"] as? [String] == [linked.id.uuidString.lowercased()])
            #expect(
                try await client.send(.get, "/v1/patients/\(patient.uuidString.lowercased())", as: "fieldworker-b", in: server).status
                    == .ok)
            #expect(
                try await client.send(.get, "/v1/patients/\(patient.uuidString.lowercased())", as: "fieldworker-a", in: server).status
                    == .notFound)
        }
    }
}
