import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Grants over HTTP, with a clock the test moves: read or edit access to one record for a user
/// or a team outside it, ending at its expiry to the second, or when revoked.
struct GrantRoutesTests {
    @Test func aGrantOpensOneRecordToAnotherTeamUntilItExpiresOnTime() async throws {
        let clock = SignInThrottlingTests.ManualClock()
        let server = try await TestServer.make { $0.clock = { clock.read() } }
        let record = server.record(seed: 800)
        let other = server.record(seed: 801)
        let expires = Timestamp.string(from: clock.read().addingTimeInterval(3600))
        try await server.application().test(.router) { client in
            for item in [record, other] {
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: item).status == .created)
            }
            let path = "/v1/records/\(record.id.uuidString.lowercased())"
            #expect(try await client.send(.get, path, as: "fieldworker-b", in: server).status == .notFound, "not before the grant")

            // Only the record's team's coordinators grant, to one user or one team, for a while.
            let body: [String: String] = ["toUser": "fieldworker-b", "access": "read", "expiresAt": expires]
            #expect(try await client.send(.post, path + "/grants", as: "fieldworker-a", in: server, json: body).status == .forbidden)
            #expect(try await client.send(.post, path + "/grants", as: "coordinator-b", in: server, json: body).status == .notFound)
            #expect(
                try await client.send(
                    .post, path + "/grants", as: "coordinator-a", in: server,
                    json: ["toUser": "fieldworker-b", "toTeam": "team-b", "access": "read", "expiresAt": expires]
                ).errorCode == "invalid_grant")
            #expect(
                try await client.send(
                    .post, path + "/grants", as: "coordinator-a", in: server,
                    json: ["toUser": "fieldworker-b", "access": "read", "expiresAt": "2001-01-01T00:00:00Z"]
                ).errorCode == "invalid_expiry")
            #expect(
                try await client.send(
                    .post, path + "/grants", as: "coordinator-a", in: server,
                    json: ["toUser": "nobody", "access": "read", "expiresAt": expires]
                ).errorCode == "unknown_user")
            #expect(
                try await client.send(
                    .post, path + "/grants", as: "coordinator-a", in: server,
                    json: ["toUser": "fieldworker-a", "access": "read", "expiresAt": expires]
                ).errorCode == "already_in_team")
            let created = try await client.send(.post, path + "/grants", as: "coordinator-a", in: server, json: body)
            #expect(created.status == .created && created.json["active"] as? Bool == true, "\(created.text)")
            let grantId = try #require(created.json["id"] as? String)

            // The grantee reads that record, not edit it, and nothing else of the team.
            #expect(try await client.send(.get, path, as: "fieldworker-b", in: server).status == .ok)
            #expect(try await client.send(.get, path + "/revisions", as: "fieldworker-b", in: server).status == .ok)
            let edit = try await client.send(
                .put, path, as: "fieldworker-b", in: server,
                json: Update(baseRevision: 1, record: record.with { $0.patient.externalId = "B" }))
            #expect(edit.status == .forbidden && edit.errorCode == "read_only_grant")
            #expect(
                try await client.send(.get, "/v1/records/\(other.id.uuidString.lowercased())", as: "fieldworker-b", in: server).status
                    == .notFound)
            #expect(
                try await client.send(.get, path, as: "coordinator-b", in: server).status == .notFound, "a user's grant is theirs alone")
            let mine = try await client.send(.get, "/v1/grants", as: "fieldworker-b", in: server)
            #expect(
                (mine.json["grants"] as? [[String: Any]])?.compactMap { $0["recordId"] as? String } == [record.id.uuidString.lowercased()])

            // An edit grant to a whole team.
            let team = try await client.send(
                .post, path + "/grants", as: "coordinator-a", in: server,
                json: ["toTeam": "team-b", "access": "edit", "expiresAt": expires])
            #expect(team.status == .created)
            let saved = try await client.send(
                .put, path, as: "coordinator-b", in: server,
                json: Update(baseRevision: 1, record: record.with { $0.patient.externalId = "B" }))
            #expect(saved.status == .ok, "\(saved.text)")

            // One second before the expiry it works; at the expiry it does not.
            clock.advance(3599)
            #expect(try await client.send(.get, path, as: "fieldworker-b", in: server).status == .ok)
            clock.advance(1)
            #expect(try await client.send(.get, path, as: "fieldworker-b", in: server).status == .notFound, "expired on time")
            #expect(try await client.send(.get, path, as: "coordinator-b", in: server).status == .notFound)
            let listed = try await client.send(.get, path + "/grants", as: "coordinator-a", in: server)
            #expect((listed.json["grants"] as? [[String: Any]])?.allSatisfy { $0["active"] as? Bool == false } == true, "\(listed.text)")

            // Revoking: the record's coordinators, once.
            let revoke = "\(path)/grants/\(grantId)"
            #expect(try await client.send(.delete, revoke, as: "coordinator-b", in: server).status == .notFound)
            let revoked = try await client.send(.delete, revoke, as: "coordinator-a", in: server)
            #expect(revoked.status == .ok && revoked.json["revokedBy"] as? String == "coordinator-a")
            #expect(
                try await client.send(.delete, "\(path)/grants/\(UUID().uuidString)", as: "coordinator-a", in: server).status == .notFound)
            let audit = try await client.send(.get, "/v1/audit?action=grant", as: "admin", in: server)
            #expect(
                (audit.json["events"] as? [[String: Any]])?.compactMap { $0["action"] as? String } == [
                    "grant.create", "grant.create", "grant.revoke",
                ])
        }
    }
}
