import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// HTTP/1.1 to the server over SwiftNIO (in TLS for https), with kept-alive connections reused.
///
/// URLSession on Linux spends more CPU on its event handling than the server spends storing a
/// batch; this sends a request with one write and reads the answer as it arrives.
final class HTTPTransport: Sendable {
    let host: String
    let port: Int
    /// How long a connection may take to open.
    let timeout: TimeAmount
    /// How long a whole exchange may take once connected (a large batch on a slow link).
    let deadline: TimeAmount
    private let idle = Mutex<[any Channel]>([])
    private static let maxIdle = 8
    /// For https: how the server is trusted.
    let tls: TLSSettings?

    init(host: String, port: Int, timeout: TimeInterval, tls: TLSSettings? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.timeout = .milliseconds(Int64(timeout * 1000))
        self.deadline = .milliseconds(Int64(timeout * 4000))
    }

    deinit {
        for channel in idle.withLock({ $0 }) { channel.close(promise: nil) }
    }

    struct Answer: Sendable {
        var status: Int
        var body: Data
    }

    /// Sends one request and collects the whole answer. A kept-alive connection the server has
    /// closed meanwhile is retried once on a new one (records are idempotent by id).
    func send(method: HTTPMethod, path: String, headers: [(String, String)], body: Data?) async throws -> Answer {
        if let channel = idle.withLock({ $0.popLast() }), channel.isActive {
            if let answer = try? await exchange(on: channel, method: method, path: path, headers: headers, body: body) { return answer }
        }
        let channel = try await connect()
        return try await exchange(on: channel, method: method, path: path, headers: headers, body: body)
    }

    private func connect() async throws -> any Channel {
        let tls = self.tls
        // Completed by the handshake, or failed here when no connection was made: never left open.
        let handshake = tls.map { _ in MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Void.self) }
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(timeout)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls, let handshake {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls.context, serverHostname: tls.serverHostname))
                            try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(handshake))
                        }
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(ResponseCollector())
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            handshake?.fail(error)
            throw error
        }
        if let tls, let handshake {
            // A server that takes the connection and never answers the handshake is given up on.
            let timer = channel.eventLoop.scheduleTask(in: timeout) {
                handshake.fail(TransportError.timedOut)
                channel.close(promise: nil)
            }
            defer { timer.cancel() }
            try await Self.secure(channel, tls, handshake: handshake.futureResult)
        }
        return channel
    }

    private func exchange(on channel: any Channel, method: HTTPMethod, path: String, headers: [(String, String)], body: Data?) async throws
        -> Answer
    {
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        head.headers.add(name: "Content-Length", value: String(body?.count ?? 0))
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        let answer = OnceAnswer(channel.eventLoop.makePromise(of: CollectedResponse.self))
        let timer = channel.eventLoop.scheduleTask(in: deadline) {
            answer.fail(TransportError.timedOut)
            channel.close(promise: nil)
        }
        let buffer = body.map { ByteBuffer(bytes: $0) }
        // A connection that closed just before the write never reaches the collector: fail at once
        // rather than wait for the deadline.
        channel.writeAndFlush(PendingRequest(head: head, body: buffer, answer: answer)).whenFailure { answer.fail($0) }
        let response: CollectedResponse
        do {
            response = try await answer.promise.futureResult.get()
            timer.cancel()
        } catch {
            timer.cancel()
            channel.close(promise: nil)
            throw error
        }
        if response.keepAlive, channel.isActive {
            let kept = idle.withLock { idle in
                guard idle.count < Self.maxIdle else { return false }
                idle.append(channel)
                return true
            }
            if !kept { channel.close(promise: nil) }
        } else {
            channel.close(promise: nil)
        }
        return Answer(status: response.status, body: response.body)
    }

    enum TransportError: Error {
        case timedOut
        case closed
    }
}

struct PendingRequest: Sendable {
    var head: HTTPRequestHead
    var body: ByteBuffer?
    var answer: OnceAnswer
}

/// A response promise that the first of the answer, a failed write, the connection closing or the
/// deadline completes; the others find it done.
final class OnceAnswer: Sendable {
    let promise: EventLoopPromise<CollectedResponse>
    private let done = Atomic(false)

    init(_ promise: EventLoopPromise<CollectedResponse>) {
        self.promise = promise
    }

    func succeed(_ response: CollectedResponse) {
        if done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged { promise.succeed(response) }
    }

    func fail(_ error: any Error) {
        if done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged { promise.fail(error) }
    }
}

struct CollectedResponse: Sendable {
    var status: Int
    var keepAlive: Bool
    var body: Data
}

/// Writes one request and collects its answer; one request at a time per connection.
final class ResponseCollector: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = PendingRequest
    typealias OutboundOut = HTTPClientRequestPart

    private var promise: OnceAnswer?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        self.promise = request.answer
        head = nil
        body.clear()
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        if let payload = request.body { context.write(wrapOutboundOut(.body(.byteBuffer(payload))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received): head = received
        case .body(var chunk): body.writeBuffer(&chunk)
        case .end:
            guard let head, let promise else { return }
            self.promise = nil
            promise.succeed(
                CollectedResponse(status: Int(head.status.code), keepAlive: head.isKeepAlive, body: Data(body.readableBytesView)))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(HTTPTransport.TransportError.closed)
        promise = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise?.fail(error)
        promise = nil
        context.close(promise: nil)
    }
}
