import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeFieldwork
import IntakeForm

extension ConflictPolicy: ExpressibleByArgument {}

struct FlushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flush",
        abstract: "Upload the queue of finished records to the server, in batches.",
        discussion: """
            A record leaves the queue only once the server has acknowledged it, so a flush can be stopped \
            at any moment and run again: nothing is lost and nothing is stored twice. Records the server \
            refuses are set aside with its reason ('intake queue list'); network and server failures are \
            retried with backoff. An edit of a record that changed on the server since it was loaded follows \
            --on-conflict. Exit status 0 when the queue is empty at the end, 1 otherwise.
            With --watch it keeps going while records wait for a server it cannot reach, pausing longer each \
            time (from --pause seconds up to 5 minutes), and ends when nothing waits or only records set \
            aside (which need a person) are left; Ctrl-C stops it, losing nothing.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions

    @Option(help: "Records per request at most (1 to 500); a request also stops growing past 1 MiB.")
    var batchSize = 250

    @Option(help: "Requests on their way to the server at once (1 to 16).")
    var inFlight = 4

    @Option(help: "Attempts for each batch when the network or server fails.")
    var attempts = 5

    @Option(
        help: ArgumentHelp(
            "An edit whose record changed on the server meanwhile: merge (changes of one side kept; answers both changed set the edit aside), ask (merge, then choose for each answer both changed), keep-mine, keep-server (the edit is set aside).",
            valueName: "policy"))
    var onConflict: ConflictPolicy = .merge

    @Flag(help: "Keep flushing while records wait, pausing longer each time the server cannot be reached; stop when nothing waits.")
    var watch = false

    @Option(help: "With --watch: the first pause in seconds (1 to 300); each next one is twice as long, up to 5 minutes.")
    var pause: Double = 5

    func validate() throws {
        guard (1...300).contains(pause) else { throw ValidationError("Please give a pause from 1 to 300 seconds.") }
        guard (1...500).contains(batchSize) else { throw ValidationError("Please give a batch size from 1 to 500.") }
        guard (1...20).contains(attempts) else { throw ValidationError("Please give from 1 to 20 attempts.") }
        guard (1...16).contains(inFlight) else { throw ValidationError("Please give from 1 to 16 requests in flight.") }
    }

    func run() async throws {
        if watch, !FlushWatchLock.take(in: storeOptions.directory) {
            print("Another 'intake flush --watch' is already sending this machine's queue.")
            return
        }
        let store = try storeOptions.openUnlocked()
        guard let configured = try clientOptions.client(dataDirectory: storeOptions.directory) else {
            throw ValidationError(
                "No server is configured; sign in with 'intake login --server URL --username NAME', or give --server and --token.")
        }
        // The queue as it stands, for the coordinator's list of devices.
        let client = configured.reporting(queueSize: try store.pendingCount())
        var flusher = QueueFlusher(
            store: store, client: client, batchSize: batchSize, inFlight: inFlight,
            retry: .init(attempts: attempts, baseDelay: 0.5, maxDelay: 8))
        let ask: @Sendable (RecordMerge) async throws -> [RecordMerge.Side] = { merge in
            // The questionnaire labels the questions, when this machine has its version.
            let reference = merge.merged.questionnaire
            let folder = try? QuestionnaireCatalog.commandLine.folder(for: reference.id)
            let local = folder.flatMap { try? QuestionnaireLoader.load(directory: $0) }
            return ConflictPrompt.choose(merge, questionnaire: local?.reference == reference ? local : nil, io: StandardIO())
        }
        flusher.resolver = ConflictResolver(client: client, policy: onConflict, choose: onConflict == .ask ? ask : nil)
        let run = FlushRun(flusher: flusher, io: StandardOutput(rightToLeft: Language.say.isRightToLeft), say: Language.say)
        var wait = pause
        while true {
            // Records filled before anyone signed in take the signed-in account, said once before
            // they are sent; asked again each round of --watch, as the server may only now say who.
            if try store.countWithoutCollector() > 0 {
                let asking = Language.say(.askingServer(host: client.baseURL.host ?? "the server", seconds: 3))
                try run.giveCollector(
                    await sayingWhileWaiting(asking) { await clientOptions.signedInUsername(dataDirectory: storeOptions.directory) })
            }
            let emptied = try await run.run(progress: ProgressDisplay(interactive: isatty(STDOUT_FILENO) == 1))
            if emptied { return }
            // Only what a retry can send is waited for: records set aside need a person.
            guard watch, try store.pendingCount() + store.pendingActionCount() > 0 else { throw ExitCode.failure }
            // Waiting helps only when the server may come back: a token refused (expired, this
            // machine's enrolment revoked) or a server that is not the one pinned needs a person.
            do throws(ClientError) {
                _ = try await client.me()
            } catch {
                if !error.isTransient {
                    printError("Stopped watching: \(error.description)")
                    throw ExitCode.failure
                }
            }
            print(Language.say(.flushWaiting(seconds: Int(wait.rounded()))))
            try await Task.sleep(for: .seconds(wait))
            wait = min(wait * 2, 300)
        }
    }
}
