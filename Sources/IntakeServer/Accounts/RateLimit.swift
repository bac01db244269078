import Crypto
import Foundation
import Hummingbird
import IntakeCore
import IntakeService
import Synchronization

/// How many requests one token may make: a bucket of `burst` requests that refills at
/// `perSecond`. Far above what a person or a flushing laptop sends; a runaway script or a stolen
/// token is slowed to it.
public struct RateLimit: Sendable, Hashable {
    public var perSecond: Double
    public var burst: Int

    public init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }

    public static let standard = RateLimit(perSecond: 200, burst: 2_000)

    /// `INTAKE_SERVER_RATE_LIMIT`: `off`, a rate per second (`200`), or a rate and a burst (`200/2000`).
    init(setting text: String) throws(ConfigurationError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let rate = Int(parts[0]), (1...1_000_000).contains(rate) else {
            throw ConfigurationError(
                "INTAKE_SERVER_RATE_LIMIT is off, requests per second per token (such as 200), or that and a burst (200/2000)")
        }
        var burst = rate * 10
        if parts.count == 2 {
            guard let given = Int(parts[1]), (1...10_000_000).contains(given) else {
                throw ConfigurationError("the burst of INTAKE_SERVER_RATE_LIMIT is a whole number of requests, such as 2000 in 200/2000")
            }
            burst = given
        }
        self.init(perSecond: Double(rate), burst: burst)
    }
}

/// Per-token buckets, kept in this server's memory (several servers each allow the rate).
final class RateLimiter: Sendable {
    let limit: RateLimit
    let clock: @Sendable () -> Date
    private struct Bucket {
        var tokens: Double
        var at: Date
    }
    private let buckets = Mutex<[String: Bucket]>([:])

    init(limit: RateLimit, clock: @escaping @Sendable () -> Date) {
        self.limit = limit
        self.clock = clock
    }

    /// nil when the request may go on; otherwise the whole seconds until it may.
    func wait(for key: String) -> Int? {
        let now = clock()
        return buckets.withLock { buckets in
            if buckets.count > 50_000 {
                // Forget buckets that have refilled: they hold nothing a fresh one would not.
                buckets = buckets.filter { now.timeIntervalSince($0.value.at) * limit.perSecond < Double(limit.burst) }
            }
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit.burst), at: now)
            bucket.tokens = min(Double(limit.burst), bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * limit.perSecond)
            bucket.at = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else { return Int(((1 - bucket.tokens) / limit.perSecond).rounded(.up)) }
            bucket.tokens -= 1
            return nil
        }
    }
}

/// Answers 429 with `Retry-After` to a token that sends more than its rate. Requests without a
/// token are left to the routes (sign-in has its own throttle).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = IntakeRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.identity != nil, let token = request.headers.bearer?.token else { return try await next(request, context) }
        // Keyed by a hash of the token, never the token itself.
        let key = SHA256.hash(data: Data(token.utf8)).hex
        if let seconds = limiter.wait(for: key) {
            throw APIError(
                .tooManyRequests, code: "rate_limited",
                message:
                    "this token sent more than \(Int(limiter.limit.perSecond)) requests a second; wait \(max(seconds, 1)) second(s) and send fewer at once",
                headers: [.retryAfter: String(max(seconds, 1))])
        }
        return try await next(request, context)
    }
}
