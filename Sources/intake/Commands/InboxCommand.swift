import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeFieldwork
import IntakeTerminal

struct InboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inbox",
        abstract: "Your notifications: invitations, and changes to your team membership.",
        discussion: """
            Unread ones are marked with *. --mark-read marks what was shown as read. The last inbox fetched is \
            kept sealed on this machine and shown when the server cannot be reached. --watch keeps going and \
            prints each new notification as it arrives (within a second), picking up after the last one \
            seen when the connection comes back; stop it with Ctrl-C.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Flag(help: "Only unread notifications.") var unread = false
    @Flag(help: "Mark the notifications shown as read.") var markRead = false
    @Flag(help: "Keep watching for new notifications until stopped.") var watch = false
    @Option(
        help: ArgumentHelp(
            "Only these kinds, comma-separated: \(NotificationKinds.words), or a notification's type (referral_received).",
            valueName: "kinds"))
    var type: String?

    func validate() throws {
        if let type, NotificationKinds(type) == nil {
            throw ValidationError(
                "'\(type.prefix(60))' names no kind of notification; give one or more of \(NotificationKinds.words), separated by commas.")
        }
    }

    func run() async throws {
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        let kinds = type.flatMap(NotificationKinds.init)
        let wanted: (RemoteNotification) -> Bool = { (kinds?.includes($0.type) ?? true) && (!unread || !$0.read) }
        let store = try storeOptions.openUnlocked()
        let cache = InboxCache(store: store)
        // Written straight to standard output, unbuffered: with --watch someone (or a script) is reading it as it comes.
        let say: @Sendable (String) -> Void = { Console.out(TerminalText.escaped($0, lines: true) + "\n") }
        // An alert's message, from the questionnaire version on this machine (the server sends ids only).
        let alertMessage: (String, String, String) -> String? = { id, version, number in
            guard let questionnaire = QuestionnaireOptions.kept(QuestionnaireReference(id: id, version: version), in: store),
                let alert = Int(number).flatMap(questionnaire.alert(number:))
            else { return nil }
            return alert.message.text(in: Language.say.code)
        }
        var all: [RemoteNotification] = []
        do {
            var after: Int64?
            repeat {
                let page = try await client.notifications(unreadOnly: false, after: after, limit: 200)
                all += page.notifications
                after = page.next
            } while after != nil
        } catch {
            guard case .offline(let reason) = error else { throw error }
            // Offline: what was fetched last time, from the sealed local copy.
            guard let (kept, fetchedAt) = try cache.load() else {
                throw ValidationError("\(reason); no inbox was fetched on this machine yet, so there is nothing to show offline.")
            }
            say("Offline (\(reason)): your inbox as fetched \(Self.minute(fetchedAt)) UTC.")
            TeamText.inbox(kept.filter(wanted), alertMessage: alertMessage).forEach(say)
            return
        }
        try? cache.save(all)
        let shown = all.filter(wanted)
        TeamText.inbox(shown, alertMessage: alertMessage).forEach(say)
        let unreadIds = shown.filter { !$0.read }.map(\.id)
        if markRead, !unreadIds.isEmpty {
            var marked = 0
            for chunk in stride(from: 0, to: unreadIds.count, by: 1000) {
                marked += try await client.markRead(Array(unreadIds[chunk..<min(chunk + 1000, unreadIds.count)]))
            }
            say("Marked \(marked) as read.")
        }
        guard watch else { return }
        try await InboxWatch(
            client: client, after: all.map(\.id).max() ?? 0, waitSeconds: max(1, Int(clientOptions.timeout) - 5), kinds: kinds
        ).run(say)
    }

    private static func minute(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
