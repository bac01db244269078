import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork

struct InboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
        abstract: "Your notifications: invitations, and changes to your team membership.",
        discussion: """
            Unread ones are marked with *. --mark-read marks what was shown as read. --watch keeps going and \
            prints each new notification as it arrives (within a second), picking up after the last one \
            seen when the connection comes back; stop it with Ctrl-C.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Flag(help: "Only unread notifications.") var unread = false
    @Flag(help: "Mark the notifications shown as read.") var markRead = false
    @Flag(help: "Keep watching for new notifications until stopped.") var watch = false

    func run() async throws {
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        var all: [RemoteNotification] = []
        var after: Int64?
        repeat {
            let page = try await client.notifications(unreadOnly: unread, after: after, limit: 200)
            all += page.notifications
            after = page.next
        } while after != nil
        // Written straight to standard output, unbuffered: with --watch someone (or a script) is reading it as it comes.
        let say: @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
        TeamText.inbox(all).forEach(say)
        let unreadIds = all.filter { !$0.read }.map(\.id)
        if markRead, !unreadIds.isEmpty {
            var marked = 0
            for chunk in stride(from: 0, to: unreadIds.count, by: 1000) {
                marked += try await client.markRead(Array(unreadIds[chunk..<min(chunk + 1000, unreadIds.count)]))
            }
            say("Marked \(marked) as read.")
        }
        guard watch else { return }
        try await InboxWatch(client: client, after: all.map(\.id).max() ?? 0, waitSeconds: max(1, Int(clientOptions.timeout) - 5)).run(say)
    }
}
