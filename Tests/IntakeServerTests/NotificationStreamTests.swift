import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// The inbox as Server-Sent Events and as a long poll: events arrive as they are stored, and a
/// client that comes back with the last id it saw gets each later event once, and none twice.
struct NotificationStreamTests {
    struct Invite: Encodable {
        var username: String
    }

    /// The ids and types of the events in a stream's text.
    static func events(_ text: String) -> [(id: Int64, type: String)] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var id: Int64?
            var type: String?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = Int64(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
            }
            return id.flatMap { id in type.map { (id, $0) } }
        }
    }

    @Test func aStreamDeliversEventsAsTheyHappenAndResumesFromTheLastIdOnce() async throws {
        // Streams end after 20 seconds here (5 minutes in service), so that the test can read them
        // whole; long enough for both invitations on a busy machine (10 was not, once, with the
        // whole suite running on two cores).
        var made = try await TestServer.make { $0.streamLifetime = .seconds(20) }
        try await made.addUser("newcomer", role: .fieldworker, team: nil)
        let server = made
        let token = try #require(server.tokens["newcomer"])
        try await server.application().test(.router) { client in
            // A stream opened before anything happened sees both invitations as they are made.
            async let streamed = client.execute(uri: "/v1/notifications/stream", method: .get, headers: [.authorization: "Bearer \(token)"])
            try #require(await eventually { server.services.teams.hub.waiting > 0 }, "the stream waits for events")
            let first = try await client.send(
                .post, "/v1/teams/team-a/invitations", as: "coordinator-a", in: server, json: Invite(username: "newcomer"))
            _ = try await client.send(
                .post, "/v1/teams/team-b/invitations", as: "coordinator-b", in: server, json: Invite(username: "newcomer"))
            let live = try await streamed
            #expect(live.status == .ok && live.headers[.contentType]?.hasPrefix("text/event-stream") == true)
            let seen = Self.events(String(buffer: live.body))
            try #require(seen.map(\.type) == ["invitation_received", "invitation_received"], "\(String(buffer: live.body))")
            #expect(String(buffer: live.body).hasPrefix("retry: 2000\n\n"))

            // While no stream is open, the first invitation is revoked; the client comes back
            // having seen only the first event: it gets the second and the revocation, once each.
            let id = try #require((first.json["invitation"] as? [String: Any])?["id"] as? String)
            _ = try await client.send(.post, "/v1/invitations/\(id)/revoke", as: "coordinator-a", in: server)
            let resumed = try await client.execute(
                uri: "/v1/notifications/stream", method: .get,
                headers: [.authorization: "Bearer \(token)", NotificationController.lastEventID: String(seen[0].id)])
            let again = Self.events(String(buffer: resumed.body))
            #expect(
                again.map(\.id) == [seen[1].id, again.last?.id ?? 0] && again.map(\.type) == ["invitation_received", "invitation_revoked"])
            #expect(Set(again.map(\.id)).count == again.count && !again.contains { $0.id == seen[0].id }, "nothing twice")

            let bad = try await client.execute(
                uri: "/v1/notifications/stream", method: .get,
                headers: [.authorization: "Bearer \(token)", NotificationController.lastEventID: "x1"])
            #expect(bad.status == .badRequest)
        }
    }

    @Test func aLongPollReturnsAsSoonAsSomethingArrives() async throws {
        var made = try await TestServer.make()
        try await made.addUser("newcomer", role: .fieldworker, team: nil)
        let server = made
        try await server.application().test(.router) { client in
            let start = ContinuousClock.now
            // A long wait, so that a busy machine's slowness is never mistaken for the timeout.
            async let polled = client.send(.get, "/v1/notifications?wait=60", as: "newcomer", in: server)
            try #require(await eventually { server.services.teams.hub.waiting > 0 }, "the poll waits for events")
            _ = try await client.send(
                .post, "/v1/teams/team-a/invitations", as: "coordinator-a", in: server, json: Invite(username: "newcomer"))
            let answer = try await polled
            let took = ContinuousClock.now - start
            #expect((answer.json["notifications"] as? [[String: Any]])?.first?["type"] as? String == "invitation_received")
            #expect(took < .seconds(45), "woken by the event, not by the 60-second timeout (\(took))")

            let empty = try await client.send(.get, "/v1/notifications?wait=1&after=999999", as: "newcomer", in: server)
            #expect(empty.status == .ok && (empty.json["notifications"] as? [Any])?.isEmpty == true)
        }
    }
}
