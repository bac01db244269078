import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeForm
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
        let say = Language.say
        print(say(waiting == 0 ? .nothingWaits : .recordsWait(waiting)))
        if setAside > 0 { print(say(.recordsSetAside(setAside))) }
        if answers > 0 { print(say(.answersWait(answers))) }
        print(say(drafts == 0 ? .noDrafts : .draftsWait(drafts)))
        if let sent = try store.lastSent() { print(say(.lastSent(at: Self.minute(sent)))) }
        // The newest failed try of what still waits, with the reason it was given.
        if waiting > 0,
            let tried = entries.filter({ $0.state == .pending && $0.reason != nil }).max(by: {
                ($0.lastAttemptAt ?? .distantPast) < ($1.lastAttemptAt ?? .distantPast)
            }),
            let at = tried.lastAttemptAt, at > (try store.lastSent() ?? .distantPast)
        {
            print(say(.lastTryFailed(at: Self.minute(at), reason: tried.reason ?? "")))
        }
        guard let client = try clientOptions.client(dataDirectory: storeOptions.directory) else {
            print(say(.notSignedIn))
            return
        }
        do {
            let kept = Set(try store.pulledQuestionnaires().map(\.reference))
            let asking = say(.askingServer(host: client.baseURL.host ?? "the server", seconds: Int(client.timeout.rounded(.up))))
            let summary = try await sayingWhileWaiting(asking) {
                var summary = try await Self.inbox(client, say: say)
                // Versions the server publishes that this machine has not pulled yet.
                if let versions = try? await client.questionnaireVersions() {
                    let missing = versions.filter {
                        $0.state == "published" && !kept.contains(QuestionnaireReference(id: $0.id, version: $0.version))
                    }
                    if !missing.isEmpty { summary.append(say(.questionnairesToPull(missing.map { "\($0.id) \($0.version)" }))) }
                }
                return summary
            }
            print(say(.signedIn(server: client.baseURL.absoluteString, nothingNew: summary.isEmpty)))
            summary.forEach { print("  " + $0) }
        } catch {
            print(say(.serverNotAsked("\(error)")))
        }
    }

    static func minute(_ date: Date) -> String {
        String(Timestamp.string(from: date).prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// What waits on the server for the signed-in account: unread notifications by kind, and
    /// open invitations to accept. Lines to show; empty when nothing waits.
    static func inbox(_ client: IntakeClient, say: FormLanguage = Language.say) async throws -> [String] {
        var lines: [String] = []
        let unread = try await client.notificationCounts().filter { $0.value > 0 }
        let total = unread.values.reduce(0, +)
        if total > 0 {
            let kinds = unread.sorted { $0.key < $1.key }.map { (kind: $0.key.replacingOccurrences(of: "_", with: " "), count: $0.value) }
            lines.append(say(.unreadNotifications(total, kinds: kinds)))
        }
        // Invitations to this account (a coordinator also sees those of their team, which wait on others).
        let me = try await client.me()
        let invitations = try await client.invitations(state: "pending").filter { $0.invitee == me }
        if !invitations.isEmpty {
            lines.append(say(.invitations(invitations.count, teams: invitations.map(\.team))))
        }
        return lines
    }
}
