import ArgumentParser
import Foundation
import IntakeClient
import IntakeStore

/// `intake status`: what waits on this machine, and (when the server answers) what waits for
/// the signed-in account there. Reads no sealed data, so it never asks for the passphrase.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say what waits: records to send, drafts, and (online) unread notifications and invitations.")
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions

    func run() async throws {
        let store = try storeOptions.open()
        let entries = try store.queueEntries()
        let waiting = entries.filter { $0.state == .pending }.count
        let setAside = entries.count - waiting
        let drafts = try store.draftCount()
        let answers = try store.pendingActionCount()
        print(waiting == 0 ? "Nothing waits to be sent." : "\(Self.count(waiting, "record")) wait\(waiting == 1 ? "s" : "") to be sent: run 'intake flush'.")
        if setAside > 0 { print("\(Self.count(setAside, "record")) set aside by the server: see 'intake queue list'.") }
        if answers > 0 { print("\(Self.count(answers, "answer")) to referrals given offline wait\(answers == 1 ? "s" : "") too.") }
        print(drafts == 0 ? "No unfinished drafts." : "\(Self.count(drafts, "unfinished draft")): 'intake fill --resume' or 'intake drafts list'.")
        guard let client = try clientOptions.client(dataDirectory: storeOptions.directory) else {
            print("Not signed in to a server: 'intake login'.")
            return
        }
        do {
            let summary = try await Self.inbox(client)
            print("Signed in to \(client.baseURL.absoluteString)\(summary.isEmpty ? "; nothing new there." : ":")")
            summary.forEach { print("  " + $0) }
        } catch {
            print("The server could not be asked (\(error)); records wait here until 'intake flush' reaches it.")
        }
    }

    /// What waits on the server for the signed-in account: unread notifications by kind, and
    /// open invitations to accept. Lines to show; empty when nothing waits.
    static func inbox(_ client: IntakeClient) async throws -> [String] {
        var lines: [String] = []
        let unread = try await client.notificationCounts().filter { $0.value > 0 }
        let total = unread.values.reduce(0, +)
        if total > 0 {
            let kinds = unread.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.replacingOccurrences(of: "_", with: " "))" }
            lines.append("\(count(total, "unread notification")) (\(kinds.joined(separator: ", "))): 'intake inbox'.")
        }
        // Invitations to this account (a coordinator also sees those of their team, which wait on others).
        let me = try await client.me()
        let invitations = try await client.invitations(state: "pending").filter { $0.invitee == me }
        if !invitations.isEmpty {
            let teams = invitations.map { "'\($0.team)'" }.joined(separator: ", ")
            lines.append("\(count(invitations.count, "invitation")) to join \(teams): 'intake invitation list'.")
        }
        return lines
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
