import ArgumentParser
import Foundation
import IntakeClient
import IntakeStore

/// `intake logout`: the end of a working session on a shared machine. The server revokes the
/// saved token, this machine forgets it (keeping the server's address and how it is trusted, for
/// the next `intake login`), and the store's unlocked key is forgotten: the next person is asked
/// for the passphrase. Drafts and queued records stay, sealed.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: the server revokes the saved token, this machine forgets it, and the store locks.",
        discussion: """
            Drafts and queued records stay on this machine, sealed; the next 'intake flush' after someone signs \
            in sends them, each as the collector it was filled by. With no network the token is forgotten here \
            and the command says that the server still knows it until it expires.
            """)

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let directory = storeOptions.directory
        guard var saved = ClientSettings.load(from: directory), saved.token != nil else {
            let locked = (try? storeOptions.open().lock()) ?? false
            print("Nobody is signed in on this machine\(locked ? "; the store is locked" : "").")
            return
        }
        let who = saved.username.map { " as \($0)" } ?? ""
        var revoked = true
        if let url = saved.url {
            let client = IntakeClient(baseURL: url, token: saved.token, timeout: 10, tls: saved.tls)
            do {
                try await sayingWhileWaiting(Language.say(.askingServer(host: url.host ?? "the server", seconds: 10))) {
                    try await client.signOut()
                }
            } catch let error as ClientError {
                revoked = false
                printError(
                    "The server could not be told (\(error.description)): the token still works there until it expires; to revoke it, sign in and out again once the server is in reach (intake login, then intake logout)."
                )
            }
        }
        saved.token = nil
        saved.username = nil
        try saved.save(in: directory)
        let store = try storeOptions.open()
        let locked = (try? store.lock()) ?? false
        print("Signed out\(who) from \(saved.server)\(revoked ? "; the token is revoked" : "").")
        if locked { print("The store is locked: the next command asks for its passphrase.") }
        let waiting = try store.pendingCount()
        if waiting > 0 {
            print(
                "\(waiting) record\(waiting == 1 ? "" : "s") still wait\(waiting == 1 ? "s" : "") here, sealed; the next 'intake flush' after a sign-in sends \(waiting == 1 ? "it" : "them")."
            )
        }
    }
}
