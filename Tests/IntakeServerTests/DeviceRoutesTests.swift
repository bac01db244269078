import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeCore
import IntakeServer
import IntakeServerTestSupport
import IntakeService
import NIOCore
import Testing

/// Enrolling a machine through the API, with two servers on one database: a coordinator's code
/// enrols one machine; its device token works from that machine alone, reports what the
/// coordinator's list shows, and is refused on either server from the request after a
/// revocation made on the other.
struct DeviceRoutesTests {
    @Test func aCodeEnrolsOneMachineWhoseTokenWorksFromItAloneUntilRevokedOnEitherServer() async throws {
        let first = try await TestServer.make()
        var other = TestServer(services: try await IntakeServices.open(first.services.configuration), questionnaire: first.questionnaire)
        other.tokens = first.tokens
        let second = other
        struct NewCode: Encodable {
            var username: String
            var expiresInHours: Double?
        }
        try await first.application().test(.router) { a in
            try await second.application().test(.router) { b in
                let path = "/v1/teams/team-a/enrolments"
                #expect(
                    try await a.send(.post, path, as: "fieldworker-a", in: first, json: NewCode(username: "fieldworker-a")).status
                        == .forbidden)
                #expect(
                    try await a.send(.post, path, as: "coordinator-b", in: first, json: NewCode(username: "fieldworker-a")).status
                        == .forbidden)
                let stranger = try await a.send(.post, path, as: "coordinator-a", in: first, json: NewCode(username: "fieldworker-b"))
                #expect(stranger.status == .unprocessableContent && stranger.errorCode == "not_a_member", "\(stranger.text)")
                #expect(
                    try await a.send(
                        .post, path, as: "coordinator-a", in: first, json: NewCode(username: "fieldworker-a", expiresInHours: 0.1)
                    ).status == .badRequest)
                let issued = try await a.send(
                    .post, path, as: "coordinator-a", in: first, json: NewCode(username: "fieldworker-a", expiresInHours: 1))
                #expect(issued.status == .created, "\(issued.text)")
                let code = try #require(issued.json["code"] as? String)
                #expect(code.count == 19 && code.split(separator: "-").count == 4 && (issued.json["pins"] as? [String]) == [])

                // A wrong secret is counted; the right one enrols the machine, on the other server.
                func redeem(_ code: String, device: String) async throws -> TestResponse {
                    try await b.send(.post, "/v1/devices", as: nil, in: second, json: ["code": code, "deviceId": device, "name": "tablet"])
                }
                let wrong = try await redeem(String(code.prefix(5)) + "2222-2222-2222", device: "tablet-7")
                #expect(
                    wrong.status == .unprocessableContent && wrong.errorCode == "wrong_code"
                        && wrong.text.contains("locks after 5 wrong tries"), "\(wrong.text)")
                let enrolled = try await redeem(code.lowercased(), device: "tablet-7")
                #expect(enrolled.status == .created, "\(enrolled.text)")
                let token = try #require(enrolled.json["token"] as? String)
                let device = try #require(enrolled.json["device"] as? [String: Any])
                let deviceNumber = try #require(device["id"] as? Int)
                #expect(token.hasPrefix("itd_") && (enrolled.json["user"] as? [String: Any])?["username"] as? String == "fieldworker-a")
                #expect(try await redeem(code, device: "tablet-8").errorCode == "code_used")

                // The token works from its own machine only.
                func call(
                    _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, device: String?, body: Data? = nil,
                    extra: HTTPFields = [:]
                )
                    async throws -> TestResponse
                {
                    var headers: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(token)"]
                    if let device { headers[HTTPField.Name("Intake-Device-Id")!] = device }
                    headers.append(contentsOf: extra)
                    return try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
                }
                let me = try await call(a, .get, "/v1/me", device: "tablet-7")
                #expect(me.status == .ok && me.json["username"] as? String == "fieldworker-a", "\(me.text)")
                #expect(try await call(a, .get, "/v1/me", device: nil).errorCode == "device_mismatch")
                #expect(try await call(b, .get, "/v1/me", device: "tablet-8").errorCode == "device_mismatch")

                // What it sends and says is on the coordinator's list.
                let report: HTTPFields = [HTTPField.Name("Intake-Queue-Size")!: "3", HTTPField.Name("Intake-Version")!: "9.9.9"]
                let sent = try await call(
                    a, .post, "/v1/records", device: "tablet-7", body: first.record(seed: 41).jsonData(), extra: report)
                #expect(sent.status == .created, "\(sent.text)")
                let listed = try await b.send(.get, "/v1/teams/team-a/devices", as: "coordinator-a", in: second)
                let row = try #require((listed.json["devices"] as? [[String: Any]])?.first)
                #expect(
                    row["deviceId"] as? String == "tablet-7" && row["queueSize"] as? Int == 3 && row["intakeVersion"] as? String == "9.9.9",
                    "\(listed.text)")
                #expect(row["lastUploadAt"] != nil && row["lastSeenAt"] != nil && row["revokedAt"] == nil)
                #expect(try await b.send(.get, "/v1/teams/team-a/devices", as: "coordinator-b", in: second).status == .forbidden)
                let codes = try await a.send(.get, path, as: "coordinator-a", in: first)
                #expect(((codes.json["enrolments"] as? [[String: Any]])?.first)?["state"] as? String == "used", "\(codes.text)")
                #expect(!codes.text.contains(code) && !codes.text.contains(String(code.dropFirst(5))), "the code is never listed")

                // Revoked on one server: refused on the other at its next request.
                let revoked = try await a.send(.delete, "/v1/teams/team-a/devices/\(deviceNumber)", as: "coordinator-a", in: first)
                #expect(revoked.status == .ok && revoked.json["revokedBy"] as? String == "coordinator-a", "\(revoked.text)")
                let refused = try await call(b, .post, "/v1/records", device: "tablet-7", body: first.record(seed: 42).jsonData())
                #expect(refused.status == .unauthorized && refused.errorCode == "device_revoked", "\(refused.text)")
                #expect(refused.text.contains("revoked by coordinator-a") && refused.text.contains("intake queue export"))
                #expect(
                    try await a.send(.delete, "/v1/teams/team-a/devices/\(deviceNumber)", as: "coordinator-b", in: first).status
                        == .forbidden)
            }
        }
        let audited = try await first.services.store.auditEvents(AuditQuery()).map(\.action)
        for action in ["enrolment.create", "device.enrol", "device.revoke"] { #expect(audited.contains(action), "\(action)") }
    }
}
