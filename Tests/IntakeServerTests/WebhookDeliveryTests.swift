import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntakeServerTestSupport
import Logging
import Synchronization
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Webhooks deliver each notification to a real receiver on 127.0.0.1, signed, in order, retried
/// with growing waits until it answers, suspended after too many failures and resumed by hand;
/// the registration refuses what it must.
struct WebhookDeliveryTests {
    struct Register: Encodable {
        var url: String
        var types: [String]?
        var user: String?
        var allUsers: Bool?
    }

    struct Announce: Encodable {
        var text: String
        var team: String?
    }

    /// A receiver that keeps every delivery and answers each with the next status of `script`
    /// (then 204 for good).
    final class Receiver: Sendable {
        struct Delivery: Sendable {
            var headers: HTTPFields
            var body: Data
            var at: ContinuousClock.Instant
        }

        private let state: Mutex<(deliveries: [Delivery], script: [Int])>

        init(script: [Int] = []) { state = Mutex(([], script)) }

        var deliveries: [Delivery] { state.withLock { $0.deliveries } }

        func setScript(_ script: [Int]) { state.withLock { $0.script = script } }

        /// Serves on 127.0.0.1 while `body` runs with the hook's URL.
        func serving<T: Sendable>(_ body: @escaping @Sendable (String) async throws -> T) async throws -> T {
            let router = Router()
            router.post("/hook") { request, _ -> Response in
                let bytes = try await request.body.collect(upTo: 1 << 20)
                let status = self.state.withLock { state -> Int in
                    state.deliveries.append(Delivery(headers: request.headers, body: Data(buffer: bytes), at: .now))
                    return state.script.isEmpty ? 204 : state.script.removeFirst()
                }
                return Response(status: .init(code: status))
            }
            let bound = BoundPort()
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { bound.set($0.localAddress?.port ?? 0) }, logger: Logger(label: "receiver"))
            return try await IntakeServerApp.running(app, logger: Logger(label: "receiver"), onFailure: { bound.fail($0) }) {
                try await body("http://127.0.0.1:\(try await bound.wait())/hook")
            }
        }

        /// Waits up to `seconds` for `count` deliveries.
        func waitFor(_ count: Int, seconds: Double = 15) async throws -> [Delivery] {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while deliveries.count < count && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            return deliveries
        }
    }

    static func server(maxFailures: Int = 12) async throws -> TestServer {
        try await TestServer.make {
            $0.webhooks.addresses.allowPrivate = true
            $0.webhooks.retryBase = .seconds(1)
            $0.webhooks.maxFailures = maxFailures
        }
    }

    /// Runs the server's webhook delivery while `body` runs.
    static func delivering<T: Sendable>(_ server: TestServer, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let dispatcher = server.services.webhookDispatcher(logger: Logger(label: "intake.test"))
        let running = Task { await dispatcher.run() }
        defer { running.cancel() }
        return try await body()
    }

    @Test func eachNotificationIsPostedSignedInOrderWithoutItsTextOrPatientData() async throws {
        let server = try await Self.server()
        let receiver = Receiver()
        try await receiver.serving { url in
            try await Self.delivering(server) {
                try await server.application().test(.router) { client in
                    let created = try await client.send(.post, "/v1/webhooks", as: "fieldworker-a", in: server, json: Register(url: url))
                    #expect(created.status == .created, "\(created.text)")
                    let secret = try #require(created.json["secret"] as? String)
                    let id = try #require(created.json["id"] as? String)
                    #expect(secret.hasPrefix("whsec_") && created.json["user"] as? String == "fieldworker-a")

                    for text in ["Clinic closed Friday", "Bring the new forms"] {
                        let sent = try await client.send(
                            .post, "/v1/announcements", as: "coordinator-a", in: server, json: Announce(text: text))
                        #expect(sent.status == .created, "\(sent.text)")
                    }
                    let deliveries = try await receiver.waitFor(2)
                    try #require(deliveries.count == 2)
                    var ids: [Int64] = []
                    for delivery in deliveries {
                        let signature = try #require(delivery.headers[HTTPField.Name(WebhookSignature.header)!])
                        #expect(WebhookSignature.verify(signature, body: delivery.body, secret: secret, now: Date()))
                        #expect(!WebhookSignature.verify(signature, body: delivery.body + Data(" ".utf8), secret: secret, now: Date()))
                        #expect(!WebhookSignature.verify(signature, body: delivery.body, secret: "whsec_other", now: Date()))
                        #expect(
                            !WebhookSignature.verify(signature, body: delivery.body, secret: secret, now: Date() + 3600),
                            "a replay an hour later")
                        #expect(delivery.headers[HTTPField.Name("Intake-Webhook-Id")!] == id)
                        let json = try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])
                        let notification = try #require(json["notification"] as? [String: Any])
                        #expect(
                            notification["type"] as? String == "announcement" && notification["recipient"] as? String == "fieldworker-a")
                        #expect(delivery.headers[HTTPField.Name("Intake-Delivery")!] == "\(notification["id"] as? Int64 ?? -1)")
                        ids.append(notification["id"] as? Int64 ?? -1)
                        let text = String(decoding: delivery.body, as: UTF8.self)
                        #expect(!text.contains("Clinic") && !text.contains("forms"), "an announcement's text stays on the server")
                    }
                    #expect(ids == ids.sorted() && Set(ids).count == 2, "in order, once each")

                    // The round is recorded just after the receiver answered.
                    var shown = try await client.send(.get, "/v1/webhooks/\(id)", as: "fieldworker-a", in: server)
                    for _ in 0..<100 where shown.json["delivered"] as? Int != 2 {
                        try await Task.sleep(for: .milliseconds(20))
                        shown = try await client.send(.get, "/v1/webhooks/\(id)", as: "fieldworker-a", in: server)
                    }
                    #expect(shown.json["delivered"] as? Int == 2 && shown.json["state"] as? String == "active")
                    #expect(shown.json["secret"] == nil, "the secret is shown once")
                    let listed = try await client.send(.get, "/v1/webhooks", as: "fieldworker-a", in: server)
                    #expect((listed.json["webhooks"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
                }
            }
        }
    }

    @Test func aFailingReceiverIsRetriedWithGrowingWaitsAndGetsEverythingOnceItAnswers() async throws {
        let server = try await Self.server()
        let receiver = Receiver(script: [503, 500])
        try await receiver.serving { url in
            try await Self.delivering(server) {
                try await server.application().test(.router) { client in
                    let created = try await client.send(
                        .post, "/v1/webhooks", as: "admin", in: server, json: Register(url: url, allUsers: true))
                    #expect(created.status == .created && created.json["allUsers"] as? Bool == true, "\(created.text)")
                    let id = try #require(created.json["id"] as? String)
                    _ = try await client.send(.post, "/v1/announcements", as: "coordinator-b", in: server, json: Announce(text: "Hello"))
                    // team-b has one other member: one notification, tried three times.
                    let deliveries = try await receiver.waitFor(3, seconds: 20)
                    try #require(deliveries.count == 3, "\(deliveries.count) deliveries")
                    #expect(Set(deliveries.map { $0.body }).count == 1, "the same notification each time")
                    let waits = zip(deliveries.dropFirst(), deliveries).map { $0.at - $1.at }
                    #expect(waits[0] >= .milliseconds(950) && waits[1] >= .milliseconds(1900), "1 s, then 2 s: \(waits)")
                    var shown = try await client.send(.get, "/v1/webhooks/\(id)", as: "admin", in: server)
                    for _ in 0..<100 where shown.json["delivered"] as? Int != 1 {
                        try await Task.sleep(for: .milliseconds(20))
                        shown = try await client.send(.get, "/v1/webhooks/\(id)", as: "admin", in: server)
                    }
                    #expect(
                        shown.json["state"] as? String == "active" && shown.json["delivered"] as? Int == 1
                            && shown.json["failures"] as? Int == 0)
                    #expect(receiver.deliveries.count == 3, "nothing more once delivered")
                }
            }
        }
    }

    @Test func tooManyFailuresSuspendAWebhookUntilItIsResumed() async throws {
        let server = try await Self.server(maxFailures: 2)
        let receiver = Receiver(script: [500, 500])
        try await receiver.serving { url in
            try await Self.delivering(server) {
                try await server.application().test(.router) { client in
                    let created = try await client.send(.post, "/v1/webhooks", as: "fieldworker-b", in: server, json: Register(url: url))
                    let id = try #require(created.json["id"] as? String)
                    _ = try await client.send(.post, "/v1/announcements", as: "coordinator-b", in: server, json: Announce(text: "One"))
                    _ = try await receiver.waitFor(2)
                    var suspended = try await client.send(.get, "/v1/webhooks/\(id)", as: "fieldworker-b", in: server)
                    for _ in 0..<100 where suspended.json["state"] as? String != "suspended" {
                        try await Task.sleep(for: .milliseconds(20))
                        suspended = try await client.send(.get, "/v1/webhooks/\(id)", as: "fieldworker-b", in: server)
                    }
                    #expect(suspended.json["state"] as? String == "suspended" && suspended.json["lastError"] as? String == "HTTP 500")
                    _ = try await client.send(.post, "/v1/announcements", as: "coordinator-b", in: server, json: Announce(text: "Two"))
                    // A delivery pass made here, to its end: had it tried the suspended webhook, the
                    // receiver would have its third delivery when the pass returns.
                    _ = try await server.services.webhookDispatcher(logger: Logger(label: "intake.test")).deliverDue()
                    #expect(receiver.deliveries.count == 2, "a suspended webhook is not tried")

                    let resumed = try await client.send(.post, "/v1/webhooks/\(id)/resume", as: "fieldworker-b", in: server)
                    #expect(resumed.status == .ok && resumed.json["state"] as? String == "active")
                    let all = try await receiver.waitFor(4)
                    #expect(all.count == 4, "the one that failed, then the one that came meanwhile")
                    let types = try all.suffix(2).map { delivery in
                        try #require(try JSONSerialization.jsonObject(with: delivery.body) as? [String: Any])["notification"]
                            as? [String: Any]
                    }.map { $0?["id"] as? Int64 ?? 0 }
                    #expect(types == types.sorted() && Set(types).count == 2)
                }
            }
        }
    }

    @Test func registrationsAreRefusedWithAClearErrorAndWebhooksStayTheirOwners() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.router) { client in
            func code(_ user: String, _ body: Register) async throws -> (HTTPResponse.Status, String?) {
                let answer = try await client.send(.post, "/v1/webhooks", as: user, in: server, json: body)
                return (answer.status, answer.errorCode)
            }
            #expect(
                try await code("fieldworker-a", Register(url: "http://127.0.0.1:9/hook")) == (
                    .unprocessableContent, "webhook_address_refused"
                ))
            #expect(
                try await code("fieldworker-a", Register(url: "http://[::1]:9/hook")) == (.unprocessableContent, "webhook_address_refused"))
            #expect(
                try await code("fieldworker-a", Register(url: "http://10.1.2.3/hook")) == (.unprocessableContent, "webhook_address_refused")
            )
            #expect(
                try await code("fieldworker-a", Register(url: "http://hooks.example.org/x")) == (
                    .unprocessableContent, "webhook_needs_https"
                ))
            #expect(
                try await code("fieldworker-a", Register(url: "ftp://hooks.example.org/x")) == (.unprocessableContent, "invalid_request"))
            #expect(
                try await code("fieldworker-a", Register(url: "https://u:p@hooks.example.org/x")) == (
                    .unprocessableContent, "invalid_request"
                ))
            #expect(try await code("fieldworker-a", Register(url: "not a url")) == (.unprocessableContent, "invalid_request"))
            #expect(
                try await code("fieldworker-a", Register(url: "https://hooks.example.org/x", types: ["gossip"])) == (
                    .unprocessableContent, "invalid_request"
                ))
            #expect(
                try await code("fieldworker-a", Register(url: "https://hooks.example.org/x", user: "admin")) == (.forbidden, "forbidden"))
            #expect(
                try await code("fieldworker-a", Register(url: "https://hooks.example.org/x", allUsers: true)) == (.forbidden, "forbidden"))
            #expect(try await code("admin", Register(url: "https://hooks.example.org/x", user: "nobody")) == (.notFound, "not_found"))
            #expect(
                try await code("admin", Register(url: "https://hooks.example.org/x", user: "researcher", allUsers: true)) == (
                    .unprocessableContent, "invalid_request"
                ))
            let malformed = try await client.send(.post, "/v1/webhooks", as: "fieldworker-a", in: server, body: Data(#"{"url": 5}"#.utf8))
            #expect(malformed.status == .badRequest)
            #expect(try await client.send(.get, "/v1/webhooks", as: nil, in: server).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/webhooks/not-a-uuid", as: "admin", in: server).status == .badRequest)

            // Registered (never delivered: no notification is made here, and the host is not contacted).
            let mine = try await client.send(
                .post, "/v1/webhooks", as: "fieldworker-a", in: server,
                json: Register(url: "https://hooks.example.org/x", types: ["announcement"]))
            #expect(mine.status == .created && mine.json["types"] as? [String] == ["announcement"], "\(mine.text)")
            let id = try #require(mine.json["id"] as? String)
            for other in ["fieldworker-b", "coordinator-a"] {
                #expect(try await client.send(.get, "/v1/webhooks/\(id)", as: other, in: server).status == .notFound)
                #expect(try await client.send(.delete, "/v1/webhooks/\(id)", as: other, in: server).status == .notFound)
                #expect(try await client.send(.post, "/v1/webhooks/\(id)/resume", as: other, in: server).status == .notFound)
                #expect((try await client.send(.get, "/v1/webhooks", as: other, in: server).json["webhooks"] as? [Any])?.isEmpty == true)
            }
            #expect(try await client.send(.get, "/v1/webhooks/\(id)", as: "admin", in: server).status == .ok)
            for _ in 1..<Webhook.maxPerOwner {
                _ = try await client.send(
                    .post, "/v1/webhooks", as: "fieldworker-a", in: server, json: Register(url: "https://hooks.example.org/x"))
            }
            #expect(try await code("fieldworker-a", Register(url: "https://hooks.example.org/y")) == (.conflict, "too_many_webhooks"))
            #expect(try await client.send(.delete, "/v1/webhooks/\(id)", as: "fieldworker-a", in: server).status == .noContent)
            #expect(try await client.send(.get, "/v1/webhooks/\(id)", as: "fieldworker-a", in: server).status == .notFound)
        }
    }
}
