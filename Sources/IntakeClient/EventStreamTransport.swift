import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Opens a Server-Sent Events stream over SwiftNIO (plain HTTP): a connection of its own that
/// stays open while the server writes events, ended by the server (the stream finishes), by
/// silence longer than `idleTimeout` (the server sends a keep-alive every 15 seconds; a stream
/// that says nothing for longer is taken as dead), or by a lost connection (both throw).
struct EventStreamTransport: Sendable {
    let host: String
    let port: Int
    let connectTimeout: TimeAmount
    let idleTimeout: TimeAmount

    func events(path: String, headers: [(String, String)]) -> AsyncThrowingStream<ServerEvent, any Error> {
        AsyncThrowingStream { continuation in
            let opening = Task {
                do {
                    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                        .connectTimeout(connectTimeout)
                        .channelInitializer { channel in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                                try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                                try channel.pipeline.syncOperations.addHandler(EventStreamHandler(continuation))
                            }
                        }
                        .connect(host: host, port: port).get()
                    continuation.onTermination = { _ in channel.close(promise: nil) }
                    if Task.isCancelled {
                        channel.close(promise: nil)
                        return
                    }
                    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
                    head.headers.add(name: "Host", value: "\(host):\(port)")
                    head.headers.add(name: "Accept", value: "text/event-stream")
                    for (name, value) in headers { head.headers.add(name: name, value: value) }
                    channel.write(HTTPClientRequestPart.head(head), promise: nil)
                    try await channel.writeAndFlush(HTTPClientRequestPart.end(nil))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in opening.cancel() }
        }
    }
}

/// The answer that is not a stream: a status other than 200, with its body.
struct EventStreamRefusal: Error {
    var status: Int
    var body: Data
}

/// Turns a streamed answer into events; a refusal (any status but 200) into an error with its body.
final class EventStreamHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart

    private let continuation: AsyncThrowingStream<ServerEvent, any Error>.Continuation
    private var parser = EventStreamParser()
    private var status = 0
    private var refusal = Data()
    private var finished = false

    init(_ continuation: AsyncThrowingStream<ServerEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): status = Int(head.status.code)
        case .body(let chunk):
            if status == 200 {
                for event in parser.feed(chunk.readableBytesView) { continuation.yield(event) }
            } else {
                refusal.append(contentsOf: chunk.readableBytesView)
            }
        case .end:
            finish(status == 200 ? nil : EventStreamRefusal(status: status, body: refusal))
            context.close(promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            finish(HTTPTransport.TransportError.timedOut)
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(HTTPTransport.TransportError.closed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(error)
        context.close(promise: nil)
    }

    private func finish(_ error: (any Error)?) {
        guard !finished else { return }
        finished = true
        if let error { continuation.finish(throwing: error) } else { continuation.finish() }
    }
}
