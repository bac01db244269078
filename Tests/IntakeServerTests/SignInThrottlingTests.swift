import Foundation
import HummingbirdTesting
import IntakeServerTestSupport
import Synchronization
import Testing

@testable import IntakeServer
@testable import IntakeService

/// Password guessing is slowed, then stopped: delays that double after a few failures (429 with
/// `Retry-After`), a lock that only an admin lifts, and the same answers for names that do not exist.
struct SignInThrottlingTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        private let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func read() -> Date { now.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    }

    static func server(_ clock: ManualClock) async throws -> TestServer {
        try await TestServer.make { configuration in
            configuration.signIn.freeFailures = 2
            configuration.signIn.lockAfter = 4
            configuration.signIn.baseDelay = 10
            configuration.clock = { clock.read() }
        }
    }

    struct SignIn: Encodable {
        var username: String
        var password: String
    }

    /// The statuses of a guessing run on `name`: two free failures, a refused early try, two
    /// failures after waiting, then the lock (even for the right password).
    static func guess(_ name: String, right: String, clock: ManualClock, client: some TestClientProtocol, server: TestServer) async throws
        -> [String]
    {
        func attempt(_ password: String) async throws -> String {
            let response = try await client.send(
                .post, "/v1/sessions", as: nil, in: server, json: SignIn(username: name, password: password))
            let retry = response.headers[.retryAfter].map { " retry \($0)" } ?? ""
            return "\(response.status.code) \(response.errorCode ?? "")" + retry
        }
        var seen = [try await attempt("wrong-1"), try await attempt("wrong-2")]
        seen.append(try await attempt(right))  // too soon: not even checked
        clock.advance(10)
        seen.append(try await attempt("wrong-3"))
        clock.advance(20)
        seen.append(try await attempt("wrong-4"))
        clock.advance(3600)
        seen.append(try await attempt(right))
        return seen
    }

    @Test func repeatedFailuresAreDelayedThenLockedUntilAnAdminUnlocks() async throws {
        let clock = ManualClock()
        let server = try await Self.server(clock)
        try await server.application().test(.router) { client in
            let seen = try await Self.guess("fieldworker-a", right: "password-fieldworker-a", clock: clock, client: client, server: server)
            #expect(
                seen == [
                    "401 bad_credentials", "401 bad_credentials", "429 too_many_attempts retry 10", "401 bad_credentials",
                    "403 account_locked", "403 account_locked",
                ])
            let listed = try await client.send(.get, "/v1/users", as: "admin", in: server)
            #expect(listed.text.contains(#""locked":true"#))
            #expect(try await client.send(.post, "/v1/users/fieldworker-a/unlock", as: "fieldworker-a", in: server).status == .forbidden)
            let unlocked = try await client.send(.post, "/v1/users/fieldworker-a/unlock", as: "admin", in: server)
            #expect(unlocked.status == .ok && unlocked.json["locked"] as? Bool == false)
            let again = try await client.send(
                .post, "/v1/sessions", as: nil, in: server, json: SignIn(username: "fieldworker-a", password: "password-fieldworker-a"))
            #expect(again.status == .created)
        }
    }

    @Test func unknownNamesAnswerExactlyAsKnownOnesDo() async throws {
        let clock = ManualClock()
        let server = try await Self.server(clock)
        try await server.application().test(.router) { client in
            let known = try await Self.guess("coordinator-a", right: "password-coordinator-a", clock: clock, client: client, server: server)
            let unknown = try await Self.guess("nobody-here", right: "whatever-it-is", clock: clock, client: client, server: server)
            #expect(known == unknown)
        }
    }

    @Test func aSuccessfulSignInForgetsEarlierFailures() async throws {
        let clock = ManualClock()
        let server = try await Self.server(clock)
        try await server.application().test(.router) { client in
            for password in ["wrong-1", "wrong-2"] {
                _ = try await client.send(
                    .post, "/v1/sessions", as: nil, in: server, json: SignIn(username: "researcher", password: password))
            }
            clock.advance(10)
            let ok = try await client.send(
                .post, "/v1/sessions", as: nil, in: server, json: SignIn(username: "researcher", password: "password-researcher"))
            #expect(ok.status == .created)
            // Two more failures are free again.
            for password in ["wrong-3", "wrong-4"] {
                let response = try await client.send(
                    .post, "/v1/sessions", as: nil, in: server, json: SignIn(username: "researcher", password: password))
                #expect(response.status == .unauthorized)
            }
        }
    }
}
