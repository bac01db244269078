import Foundation
import HTTPTypes
import HummingbirdTesting
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

/// A token that sends more than its rate gets 429 with Retry-After; other tokens go on; the
/// bucket refills with time. Requests without a token are the routes' business.
struct RateLimitTests {
    @Test func aTokenOverItsRateWaitsAndOthersGoOn() async throws {
        let clock = SignInThrottlingTests.ManualClock()
        let server = try await TestServer.make { configuration in
            configuration.rateLimit = RateLimit(perSecond: 0.5, burst: 3)
            configuration.clock = { clock.read() }
        }
        try await server.application().test(.router) { client in
            for _ in 0..<3 { #expect(try await client.send(.get, "/v1/me", as: "fieldworker-a", in: server).status == .ok) }
            let refused = try await client.send(.get, "/v1/me", as: "fieldworker-a", in: server)
            #expect(refused.status == .tooManyRequests && refused.errorCode == "rate_limited", "\(refused.text)")
            #expect(refused.headers[.retryAfter] == "2", "one request comes back every 2 seconds")
            #expect(try await client.send(.get, "/v1/me", as: "coordinator-a", in: server).status == .ok, "another token is not slowed")
            #expect(try await client.send(.get, "/health", as: nil, in: server).status == .ok)
            clock.advance(2)
            #expect(try await client.send(.get, "/v1/me", as: "fieldworker-a", in: server).status == .ok)
            #expect(try await client.send(.get, "/v1/me", as: "fieldworker-a", in: server).status == .tooManyRequests)
        }
    }

    @Test func theSettingIsOffARateOrARateAndABurst() throws {
        #expect(try ServerConfiguration(environment: ["INTAKE_SERVER_RATE_LIMIT": "off"]).rateLimit == nil)
        #expect(try ServerConfiguration(environment: [:]).rateLimit == .standard)
        #expect(try ServerConfiguration(environment: ["INTAKE_SERVER_RATE_LIMIT": "50"]).rateLimit == RateLimit(perSecond: 50, burst: 500))
        #expect(
            try ServerConfiguration(environment: ["INTAKE_SERVER_RATE_LIMIT": "50/80"]).rateLimit == RateLimit(perSecond: 50, burst: 80))
        for bad in ["", "fast", "0", "50/", "50/x", "-1"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try ServerConfiguration(environment: ["INTAKE_SERVER_RATE_LIMIT": bad]) }
        }
    }
}
