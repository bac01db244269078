import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// `GET /v1/changes` (pages, long poll) and `GET /v1/changes/stream` over HTTP.
struct ChangeFeedTests {
    static func changes(_ answer: TestResponse) -> [[String: Any]] { answer.json["changes"] as? [[String: Any]] ?? [] }

    @Test func theFeedPagesTheTeamsChangesAndHoldsALongPollUntilOneComes() async throws {
        let server = try await TestServer.make()
        let records = (0..<3).map { server.record(seed: 600 + UInt64($0)) }
        try await server.application().test(.router) { client in
            for record in records {
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            }
            #expect(
                try await client.send(.post, "/v1/records", as: "fieldworker-b", in: server, json: server.record(seed: 690)).status
                    == .created)
            let first = try await client.send(.get, "/v1/changes?limit=2", as: "fieldworker-a", in: server)
            #expect(first.status == .ok && first.json["more"] as? Bool == true && first.json["team"] as? String == "team-a")
            #expect(Self.changes(first).compactMap { $0["id"] as? String } == records.prefix(2).map { $0.id.uuidString.lowercased() })
            #expect(
                Self.changes(first).first?["type"] as? String == "record" && (Self.changes(first).first?["record"] as? [String: Any]) != nil
            )
            let cursor = try #require(first.json["cursor"] as? String)
            let rest = try await client.send(.get, "/v1/changes?since=\(cursor)", as: "fieldworker-a", in: server)
            #expect(
                Self.changes(rest).compactMap { $0["id"] as? String } == [records[2].id.uuidString.lowercased()]
                    && rest.json["more"] as? Bool == false)
            let end = try #require(rest.json["cursor"] as? String)
            let nothing = try await client.send(.get, "/v1/changes?since=\(end)", as: "fieldworker-a", in: server)
            #expect(Self.changes(nothing).isEmpty && nothing.json["cursor"] as? String == end, "the cursor stays where it was")

            // A deletion comes as one, without the reason.
            #expect(
                try await client.send(
                    .delete, "/v1/records/\(records[0].id.uuidString.lowercased())", as: "coordinator-a", in: server,
                    json: ["reason": "twice"]
                ).status == .ok)
            let deleted = try await client.send(.get, "/v1/changes?since=\(end)", as: "fieldworker-a", in: server)
            #expect(
                Self.changes(deleted).first?["type"] as? String == "deleted"
                    && Self.changes(deleted).first?["deletedBy"] as? String == "coordinator-a")
            #expect(!deleted.text.contains("twice"))
            let after = try #require(deleted.json["cursor"] as? String)

            // A long poll is answered as soon as a change is saved.
            let started = ContinuousClock.now
            async let held = client.send(.get, "/v1/changes?since=\(after)&wait=60", as: "fieldworker-a", in: server)
            try #require(await eventually { server.services.records.changes.waiting > 0 }, "the poll waits for changes")
            #expect(
                try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: server.record(seed: 699)).status
                    == .created)
            let woken = try await held
            #expect(
                Self.changes(woken).count == 1 && ContinuousClock.now - started < .seconds(45),
                "woken by the change, not the 60-second wait: \(woken.text)")

            #expect(try await client.send(.get, "/v1/changes?since=abc", as: "fieldworker-a", in: server).status == .badRequest)
            #expect(try await client.send(.get, "/v1/changes?limit=501", as: "fieldworker-a", in: server).status == .badRequest)
            #expect(try await client.send(.get, "/v1/changes", as: "researcher", in: server).status == .forbidden)
            let otherTeam = try await client.send(.get, "/v1/changes", as: "fieldworker-b", in: server)
            #expect(Self.changes(otherTeam).count == 1 && otherTeam.json["team"] as? String == "team-b", "each team its own")
        }
    }

    @Test func theStreamSendsEachChangeAsAnEventFromLastEventID() async throws {
        let server = try await TestServer.make { $0.streamLifetime = .milliseconds(300) }
        let records = (0..<2).map { server.record(seed: 700 + UInt64($0)) }
        try await server.application().test(.router) { client in
            for record in records {
                #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: record).status == .created)
            }
            let stream = try await client.send(.get, "/v1/changes/stream", as: "fieldworker-a", in: server)
            #expect(stream.headers[.contentType] == "text/event-stream; charset=utf-8")
            #expect(
                stream.text.contains("id: 1\nevent: record\ndata: {") && stream.text.contains("id: 2\nevent: record\n"), "\(stream.text)")
            var headers: HTTPFields = [.authorization: "Bearer \(server.tokens["fieldworker-a"]!)"]
            headers[HTTPField.Name("Last-Event-ID")!] = "1"
            let resumed = try await client.execute(uri: "/v1/changes/stream", method: .get, headers: headers)
            #expect(!resumed.text.contains("id: 1\n") && resumed.text.contains("id: 2\n"))
        }
    }
}
