import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork

struct InboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
        abstract: "Your notifications: invitations, and changes to your team membership.",
        discussion: "Unread ones are marked with *. --mark-read marks what was shown as read.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Flag(help: "Only unread notifications.") var unread = false
    @Flag(help: "Mark the notifications shown as read.") var markRead = false

    func run() async throws {
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        var all: [RemoteNotification] = []
        var after: Int64?
        repeat {
            let page = try await client.notifications(unreadOnly: unread, after: after, limit: 200)
            all += page.notifications
            after = page.next
        } while after != nil
        TeamText.inbox(all).forEach { print($0) }
        let unreadIds = all.filter { !$0.read }.map(\.id)
        if markRead, !unreadIds.isEmpty {
            var marked = 0
            for chunk in stride(from: 0, to: unreadIds.count, by: 1000) {
                marked += try await client.markRead(Array(unreadIds[chunk..<min(chunk + 1000, unreadIds.count)]))
            }
            print("Marked \(marked) as read.")
        }
    }
}
