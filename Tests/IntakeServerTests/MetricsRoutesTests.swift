import Foundation
import HummingbirdTesting
import IntakeCore
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// `GET /metrics`: Prometheus' text form, for admins, counting what the server did by route
/// pattern, never by path, id or name; on the store the tests run on (both, in scripts/test).
struct MetricsRoutesTests {
    struct Announce: Encodable { var text: String }
    struct Register: Encodable { var url: String }

    /// The value of one sample line (`name{labels} value`), or nil when it is not there.
    static func sample(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test func adminsScrapeRequestsOutcomesGroupCommitsAndTheWebhookBacklogByRoutePattern() async throws {
        let server = try await TestServer.make { $0.webhooks.addresses.allowPrivate = true }
        let first = server.record(seed: 31), second = server.record(seed: 32), third = server.record(seed: 33)
        try await server.application().test(.router) { client in
            // Nobody else reads it.
            #expect(try await client.send(.get, "/metrics", as: nil, in: server).status == .unauthorized)
            for user in ["fieldworker-a", "coordinator-a", "researcher"] {
                #expect(try await client.send(.get, "/metrics", as: user, in: server).status == .forbidden, "\(user)")
            }
            // A webhook nobody delivers to while this test runs: what reaches its owner waits.
            let hook = try await client.send(
                .post, "/v1/webhooks", as: "coordinator-a", in: server, json: Register(url: "http://127.0.0.1:9/hook"))
            #expect(hook.status == .created, "\(hook.text)")
            #expect(
                try await client.send(.post, "/v1/announcements", as: "coordinator-a", in: server, json: Announce(text: "Clinic closed"))
                    .status == .created)

            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: first).status == .created)
            #expect(try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: first).status == .ok)
            var broken = second
            broken.questionnaire.version = "0000000000000000"
            #expect(
                try await client.send(.post, "/v1/records", as: "fieldworker-a", in: server, json: broken).status == .unprocessableContent)
            let batch = try await client.send(
                .post, "/v1/records/batch", as: "fieldworker-a", in: server, json: Batch(records: [second, third]))
            #expect(batch.status == .ok, "\(batch.text)")
            let id = first.id.uuidString.lowercased()
            #expect(try await client.send(.get, "/v1/records/\(id)", as: "coordinator-a", in: server).status == .ok)
            #expect(try await client.send(.get, "/v1/no-such-route/\(id)", as: "coordinator-a", in: server).status == .notFound)

            let scrape = try await client.send(.get, "/metrics", as: "admin", in: server)
            #expect(scrape.status == .ok)
            #expect(scrape.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = scrape.text
            let post = #"intake_http_requests_total{method="POST",route="/v1/records",status="#
            #expect(Self.sample(text, post + #""201"}"#) == 1, "\(text)")
            #expect(Self.sample(text, post + #""200"}"#) == 1)
            #expect(Self.sample(text, post + #""422"}"#) == 1)
            #expect(Self.sample(text, #"intake_http_requests_total{method="GET",route="/v1/records/{id}",status="200"}"#) == 1)
            #expect(Self.sample(text, #"intake_http_requests_total{method="GET",route="unmatched",status="404"}"#) == 1)
            #expect(Self.sample(text, #"intake_http_requests_total{method="GET",route="/metrics",status="403"}"#) == 3)
            #expect(
                Self.sample(text, #"intake_http_request_duration_seconds_count{method="POST",route="/v1/records/batch",status="200"}"#) == 1
            )
            #expect(Self.sample(text, #"intake_records_received_total{outcome="created"}"#) == 3)
            #expect(Self.sample(text, #"intake_records_received_total{outcome="duplicate"}"#) == 1)
            #expect(Self.sample(text, #"intake_records_received_total{outcome="invalid"}"#) == 1)
            // Three commits of stored records (the refused one never reached the store), four records in them.
            #expect(Self.sample(text, "intake_group_commit_requests_count") == 3)
            #expect(Self.sample(text, "intake_group_commit_records_sum") == 4)
            #expect(Self.sample(text, "intake_group_commit_duration_seconds_count") == 3)
            #expect(Self.sample(text, "intake_group_commit_waiting") == 0)
            #expect(Self.sample(text, "intake_webhooks") == 1)
            #expect(Self.sample(text, "intake_webhook_backlog_events") == 1)
            // Route patterns only: no id, name or answer.
            for secret in [id, first.patient.familyName, first.patient.givenName, second.id.uuidString.lowercased()] {
                #expect(!text.contains(secret))
            }

            // An export counts its records, bytes and time once it has streamed.
            let export = try await client.send(.get, "/v1/exports?format=jsonl", as: "coordinator-a", in: server)
            #expect(export.status == .ok)
            let after = try await client.send(.get, "/metrics", as: "admin", in: server).text
            #expect(Self.sample(after, #"intake_export_records_total{format="jsonl"}"#) == 3, "\(after)")
            #expect(Self.sample(after, #"intake_export_bytes_total{format="jsonl"}"#) == Double(export.body.readableBytes))
            #expect(Self.sample(after, #"intake_http_requests_total{method="GET",route="/metrics",status="200"}"#) == 1)
        }
    }
}
