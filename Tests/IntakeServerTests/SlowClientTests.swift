import Foundation
import HummingbirdTesting
import IntakeServerTestSupport
import Testing

@testable import IntakeServer
@testable import IntakeService

#if canImport(Glibc)
    import Glibc
#endif

/// A client that sends part of a request and then trickles or stops is answered and cut off,
/// over a real socket on 127.0.0.1.
struct SlowClientTests {
    /// A socket connected to 127.0.0.1:`port`; the caller closes it.
    static func connected(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    /// Sends `text` on a new connection to 127.0.0.1:`port`, then reads until the server closes
    /// or `wait` seconds pass; what the server sent.
    static func exchange(port: Int, _ text: String, wait: Int) throws -> String {
        let fd = try connected(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: wait, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = text.withCString { send(fd, $0, strlen($0), 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func aBodyThatDoesNotArriveInTimeGets408AndTheConnectionCloses() async throws {
        let server = try await TestServer.make { $0.bodyTimeout = .seconds(1) }
        let token = try #require(server.tokens["fieldworker-a"])
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let request =
                "POST /v1/records HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
                + "Content-Length: 5000\r\n\r\n{\"id\":"
            // The blocking socket calls run on a thread of their own, never on Swift's few
            // cooperative threads, which the server in this process needs to answer.
            let (answer, firstByte, closed) = try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(with: Result { try Self.timedExchange(port: port, request, wait: 30) })
                }
            }
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer.prefix(200))")
            #expect(answer.contains("\"body_timeout\""))
            // The answer is the body timeout's (its code says so) and comes while the client still
            // waits, not at its 30-second give-up. No tighter bound: a two-core machine running
            // every suite at once delayed the server's one-second timer by nine seconds.
            #expect(firstByte < .seconds(25), "answered after \(firstByte)")
            #expect(closed, "the server closed the connection instead of waiting for the rest")
        }
    }

    /// Sends `text` on a new connection and reads until the server closes it or `wait` seconds of
    /// silence pass: what the server sent, when its first byte came, and whether it closed.
    static func timedExchange(port: Int, _ text: String, wait: Int) throws -> (String, Duration, Bool) {
        let fd = try connected(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: wait, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let start = ContinuousClock.now
        _ = text.withCString { send(fd, $0, strlen($0), 0) }
        var received: [UInt8] = []
        var firstByte: Duration = .seconds(wait)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            // A timeout is the server keeping the connection; a reset is the server closing it
            // with the body's bytes unread (the kernel answers those with RST).
            if count < 0 { return (String(decoding: received, as: UTF8.self), firstByte, errno == ECONNRESET) }
            if count == 0 { return (String(decoding: received, as: UTF8.self), firstByte, true) }
            if received.isEmpty { firstByte = ContinuousClock.now - start }
            received += buffer[0..<count]
        }
    }

    /// Opens a connection, sends `first`, then one `piece` every `every` until the server closes
    /// the connection or `limit` passes; what the server sent, and how long it took.
    static func trickle(port: Int, first: String, piece: String, every: Duration, limit: Duration) throws -> (String, Duration) {
        let fd = try connected(port: port)
        defer { close(fd) }
        let milliseconds = Int(every.components.seconds * 1000 + every.components.attoseconds / 1_000_000_000_000_000)
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: Int((milliseconds % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let start = ContinuousClock.now
        _ = first.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now - start < limit {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { break }
            if count > 0 {
                received += buffer[0..<count]
                continue
            }
            _ = piece.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        }
        return (String(decoding: received, as: UTF8.self), ContinuousClock.now - start)
    }

    /// Runs blocking socket calls on a thread of their own, never on Swift's cooperative threads.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    @Test func headersTrickledSlowerThanTheHeaderTimeoutGet408AndTheConnectionCloses() async throws {
        let server = try await TestServer.make { $0.headerTimeout = .seconds(1) }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let (answer, took) = try await Self.onThread {
                try Self.trickle(
                    port: port, first: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n", piece: "X-Slow: a\r\n", every: .milliseconds(200),
                    limit: .seconds(40))
            }
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer.prefix(300))")
            #expect(answer.contains("\"header_timeout\"") && answer.contains("application/json"))
            // Cut though bytes kept coming, well before the client's 40 seconds of trickling (a
            // loaded machine delays the one-second timer by seconds; the cut is what matters).
            #expect(took < .seconds(30), "cut though bytes kept coming (took \(took))")
        }
    }

    @Test func theHeaderTimeoutStartsAtARequestsFirstByteNotAtTheLastResponse() async throws {
        let server = try await TestServer.make { $0.headerTimeout = .seconds(1) }
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            // A keep-alive connection that waits 1.5 seconds between two quick requests is not cut.
            let (answer, _) = try await Self.onThread {
                try Self.trickle(
                    port: port, first: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                    piece: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", every: .milliseconds(1500),
                    limit: .seconds(6))
            }
            #expect(answer.components(separatedBy: "HTTP/1.1 200").count == 3, "\(answer.prefix(600))")
            #expect(!answer.contains("408"))
        }
    }

    @Test func requestsTheHTTPParserCannotReadGetAJSONError() async throws {
        let server = try await TestServer.make()
        try await server.application().test(.live) { client in
            let port = try #require(client.port)
            let cases: [(request: String, status: String, code: String)] = [
                ("GET /health HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n", "400", "malformed_request"),
                ("\u{1}\u{2}\u{3} nonsense\r\n\r\n", "400", "malformed_request"),
                (
                    "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + String(repeating: "a", count: 90 * 1024) + "\r\n\r\n", "431",
                    "headers_too_large"
                ),
            ]
            for (request, status, code) in cases {
                let answer = try await Self.onThread { try Self.exchange(port: port, request, wait: 5) }
                #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(code): \(answer.prefix(200))")
                #expect(answer.contains("\"code\":\"\(code)\"") && answer.contains("application/json"), "\(answer.prefix(400))")
            }
        }
    }
}
