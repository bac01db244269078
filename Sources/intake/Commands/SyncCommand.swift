import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork

/// `intake sync [--watch]`: keeps a sealed copy of the team's records on this machine.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Copy your team's records to this machine (sealed), for 'intake lookup --offline'.",
        discussion: """
            The first sync copies every record of your team; later ones only what changed since (records saved \
            or edited, and records deleted on the server, which leave the copy). With --watch it keeps going, \
            applying changes as the server saves them, until interrupted. The copy is sealed with the same key \
            as drafts; if the server no longer lets you read the team's records, the copy is dropped.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Flag(help: "Keep the copy up to date until interrupted.") var watch = false

    func run() async throws {
        let store = try storeOptions.openUnlocked()
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        let sync = SyncRun(store: store, client: client)
        print(SyncRun.describe(try await sync.catchUp()))
        // The team's registry too, for 'intake patient find --offline'.
        do {
            let count = try await RegistryCopy(store: store).sync(from: client)
            print("Registry: \(count) patient\(count == 1 ? "" : "s") of the team and their dated reports kept on this machine, sealed.")
        } catch {
            printError("The registry could not be copied now (\(error)); the records' copy is up to date.")
        }
        guard watch else { return }
        print("Watching for changes (Ctrl-C to stop).")
        try await sync.watch(say: { print($0) }, warn: printError)
    }
}
