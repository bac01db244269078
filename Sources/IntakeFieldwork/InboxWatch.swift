import Foundation
import IntakeClient

/// Follows a user's notifications with long polls: each new one is printed once as it arrives,
/// and after a lost connection the watch picks up after the last one it printed.
public struct InboxWatch: Sendable {
    let client: IntakeClient
    let after: Int64
    /// How long each poll lets the server wait; under the client's own timeout.
    let waitSeconds: Int
    /// How long to wait before trying again when the server cannot be reached.
    let retryDelay: Duration

    public init(client: IntakeClient, after: Int64, waitSeconds: Int = 10, retryDelay: Duration = .seconds(2)) {
        self.client = client
        self.after = after
        self.waitSeconds = waitSeconds
        self.retryDelay = retryDelay
    }

    /// Runs until the task is cancelled; `output` gets each line to show.
    public func run(_ output: @Sendable (String) -> Void) async throws {
        var after = after
        var offline = false
        while !Task.isCancelled {
            let page: [RemoteNotification]
            do {
                page = try await client.notifications(unreadOnly: false, after: after, limit: 200, wait: waitSeconds).notifications
            } catch {
                guard case .offline(let reason) = error else { throw error }
                if !offline { output("(\(reason); trying again)") }
                offline = true
                try? await Task.sleep(for: retryDelay)
                continue
            }
            if offline {
                output("(connected again)")
                offline = false
            }
            if !page.isEmpty { TeamText.inbox(page).forEach(output) }
            after = page.map(\.id).max() ?? after
        }
    }
}
