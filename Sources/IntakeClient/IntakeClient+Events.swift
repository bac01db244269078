import Foundation

/// The notification stream (`GET /v1/notifications/stream`), read as it arrives.
extension IntakeClient {
    /// Whether ``notificationStream(after:)`` can follow the stream with this server (plain
    /// HTTP); otherwise follow the inbox with long polls (``notifications(unreadOnly:after:limit:wait:)``).
    public var followsEventStreams: Bool { eventStreams != nil }

    /// The user's notifications after `lastEventID`, each as the server sends it. The sequence
    /// ends when the server ends the stream (reconnect with the last id seen), and throws
    /// ``ClientError`` when the connection is lost or goes silent (`.offline`) or the server
    /// refuses it.
    public func notificationStream(after lastEventID: Int64) -> AsyncThrowingStream<RemoteNotification, any Error> {
        guard let eventStreams else {
            return AsyncThrowingStream { $0.finish(throwing: ClientError.unexpected("event streams are followed over plain http only")) }
        }
        var headers = [("Last-Event-ID", String(lastEventID))]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        let events = eventStreams.events(path: "/v1/notifications/stream", headers: headers)
        let base = baseURL.absoluteString
        return AsyncThrowingStream { continuation in
            let reading = Task {
                do {
                    for try await event in events {
                        guard let notification = try? JSONDecoder().decode(RemoteNotification.self, from: Data(event.data.utf8)) else {
                            throw ClientError.unexpected("the server sent an event that could not be read")
                        }
                        continuation.yield(notification)
                    }
                    continuation.finish()
                } catch let refusal as EventStreamRefusal {
                    continuation.finish(throwing: ClientError.from(status: refusal.status, data: refusal.body))
                } catch let error as ClientError {
                    continuation.finish(throwing: error)
                } catch {
                    continuation.finish(throwing: ClientError.offline("lost \(base): \(Self.describe(transportError: error))"))
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }
}
