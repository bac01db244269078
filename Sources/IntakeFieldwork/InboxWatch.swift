import Foundation
import IntakeClient

/// Follows a user's notifications: each new one is printed once as it arrives. It follows the
/// server's event stream (over http or https, through the client's one transport), reconnecting
/// with the last id it printed (Last-Event-ID) whenever the server ends the stream or the
/// connection is lost; a client without a stream long-polls from that id. Either way nothing is
/// missed and nothing is shown twice.
public struct InboxWatch: Sendable {
    let client: IntakeClient
    let after: Int64
    /// How long each long poll lets the server wait; under the client's own timeout.
    let waitSeconds: Int
    /// How long to wait before trying again when the server cannot be reached.
    let retryDelay: Duration
    /// Only these kinds are shown (all when nil).
    let kinds: NotificationKinds?

    public init(
        client: IntakeClient, after: Int64, waitSeconds: Int = 10, retryDelay: Duration = .seconds(2), kinds: NotificationKinds? = nil
    ) {
        self.client = client
        self.after = after
        self.waitSeconds = waitSeconds
        self.retryDelay = retryDelay
        self.kinds = kinds
    }

    /// Runs until the task is cancelled; `output` gets each line to show.
    public func run(_ output: @Sendable (String) -> Void) async throws {
        var after = after
        var offline = false
        func reachedAgain() {
            if offline { output("(connected again)") }
            offline = false
        }
        while !Task.isCancelled {
            do {
                if client.followsEventStreams {
                    let opened = ContinuousClock.now
                    for try await notification in client.notificationStream(after: after) {
                        reachedAgain()
                        guard notification.id > after else { continue }
                        if kinds?.includes(notification.type) ?? true { TeamText.inbox([notification]).forEach(output) }
                        after = notification.id
                    }
                    reachedAgain()
                    // A stream the server ends at once (it is shutting down) is not reopened in a tight loop.
                    if ContinuousClock.now - opened < .milliseconds(250) { try? await Task.sleep(for: retryDelay) }
                } else {
                    let page = try await client.notifications(unreadOnly: false, after: after, limit: 200, wait: waitSeconds).notifications
                    reachedAgain()
                    let shown = page.filter { kinds?.includes($0.type) ?? true }
                    if !shown.isEmpty { TeamText.inbox(shown).forEach(output) }
                    after = page.map(\.id).max() ?? after
                }
            } catch let error as ClientError {
                guard case .offline(let reason) = error else { throw error }
                if !offline { output("(\(reason); trying again)") }
                offline = true
                try? await Task.sleep(for: retryDelay)
            }
        }
    }
}
