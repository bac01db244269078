import Foundation

/// The notification stream (`GET /v1/notifications/stream`), read as it arrives.
extension IntakeClient {
    /// Whether ``notificationStream(after:)`` can follow the stream with this server: over http
    /// and https alike, through the same transport as every other request.
    public var followsEventStreams: Bool { transport != nil }

    /// The user's notifications after `lastEventID`, each as the server sends it. The sequence
    /// ends when the server ends the stream (reconnect with the last id seen), and throws
    /// ``ClientError`` when the connection is lost or goes silent (`.offline`) or the server
    /// refuses it.
    public func notificationStream(after lastEventID: Int64) -> AsyncThrowingStream<RemoteNotification, any Error> {
        AsyncThrowingStream { continuation in
            let parser = StreamParsing()
            let reading = Task {
                do {
                    // Silence longer than 45 seconds (the server sends a keep-alive every 15) is a dead link.
                    let answer = try await exchange(
                        "GET", "/v1/notifications/stream", body: nil,
                        extraHeaders: [("Accept", "text/event-stream"), ("Last-Event-ID", String(lastEventID))],
                        sink: .stream({ bytes in
                            for event in parser.feed(bytes) {
                                guard let notification = try? JSONDecoder().decode(RemoteNotification.self, from: Data(event.data.utf8))
                                else {
                                    continuation.finish(throwing: ClientError.unexpected("the server sent an event that could not be read"))
                                    return false
                                }
                                continuation.yield(notification)
                            }
                            return true
                        }), limit: .idle(45))
                    guard answer.status == 200 else { throw ClientError.from(status: answer.status, data: answer.body) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}

/// The parser of one stream, fed by its transfer's thread alone.
private final class StreamParsing: @unchecked Sendable {
    private var parser = EventStreamParser()
    func feed(_ bytes: UnsafeRawBufferPointer) -> [ServerEvent] { parser.feed(bytes) }
}
