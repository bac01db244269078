import Foundation
import HummingbirdCore
import IntakeService
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// HTTP/1.1 as Hummingbird serves it, with a ``RequestGuard`` in front of the parser: a request
/// whose headers are not complete within the header timeout of its first byte gets 408 and the
/// connection is closed (a client trickling headers would otherwise hold it for as long as it
/// keeps sending), and a request the HTTP parser cannot read gets a JSON error like every other
/// (400, or 431 for headers too large) rather than a bare 400.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let headerTimeout: TimeAmount

    init(responder: @escaping HTTPChannelHandler.Responder, idleTimeout: TimeAmount, headerTimeout: TimeAmount) {
        self.inner = HTTP1Channel(
            responder: responder,
            configuration: .init(additionalChannelHandlers: [RequestWatcher()], idleTimeout: idleTimeout))
        self.headerTimeout = headerTimeout
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestGuard(headerTimeout: headerTimeout), position: .first)
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// The first handler of a connection's pipeline, before the HTTP parser: it times the headers
/// of each request from their first byte, and answers what the parser could not read. It writes
/// its answers as bytes straight to the socket, which is safe because it only answers while no
/// request is being served, and then closes the connection (whatever else arrives is dropped).
final class RequestGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let headerTimeout: TimeAmount
    private var context: ChannelHandlerContext?
    /// True from the connection's start, and from the end of each response, until a request's
    /// head has been read.
    private var awaitingHead = true
    private var timer: Scheduled<Void>?
    private var answered = false

    init(headerTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if awaitingHead, timer == nil, !answered {
            timer = context.eventLoop.scheduleTask(in: headerTimeout) { [weak self] in
                guard let self, self.awaitingHead else { return }
                let seconds = self.headerTimeout.nanoseconds / 1_000_000_000
                self.answer(
                    .requestTimeout, code: "header_timeout",
                    message: "the request's headers did not arrive within \(seconds) seconds; send the whole request at once")
            }
        }
        guard !answered else { return }
        context.fireChannelRead(data)
    }

    /// A request's head has been read: its headers came in time.
    func headArrived() {
        awaitingHead = false
        timer?.cancel()
        timer = nil
    }

    /// The response to the last request is written: the next request's headers are timed from its first byte.
    func responseEnded() {
        awaitingHead = true
    }

    /// Whether the guard may answer a protocol error itself: no request is being served.
    var mayAnswer: Bool { awaitingHead && !answered }

    /// Writes a JSON error and closes the connection.
    func answer(_ status: HTTPResponseStatus, code: String, message: String) {
        guard let context, !answered else { return }
        answered = true
        timer?.cancel()
        let body = (try? JSONEncoder().encode(ErrorMiddleware.Body(error: .init(code: code, message: message)))).map { [UInt8]($0) } ?? []
        var buffer = context.channel.allocator.buffer(capacity: body.count + 160)
        buffer.writeString(
            "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nContent-Type: application/json; charset=utf-8\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n")
        buffer.writeBytes(body)
        // Close for writing only, and drop what still comes for a moment before closing for good:
        // closing with unread input would reset the connection, and the client could lose the answer.
        let channel = context.channel
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }
}

/// After the HTTP parser: tells the ``RequestGuard`` when a request's head arrives and when its
/// response ends, and hands it the parser's errors to answer when no request is being served.
final class RequestWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var requestGuard: RequestGuard?

    func handlerAdded(context: ChannelHandlerContext) {
        requestGuard = try? context.pipeline.syncOperations.handler(type: RequestGuard.self)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { requestGuard?.headArrived() }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { requestGuard?.responseEnded() }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, let requestGuard, requestGuard.mayAnswer else {
            return context.fireErrorCaught(error)
        }
        if case .headerOverflow = parserError {
            requestGuard.answer(
                .requestHeaderFieldsTooLarge, code: "headers_too_large",
                message: "the request's headers are too large; send fewer or shorter headers")
        } else {
            requestGuard.answer(
                .badRequest, code: "malformed_request",
                message: "the request is not valid HTTP/1.1 (\(parserError)); send a well-formed request")
        }
    }
}
