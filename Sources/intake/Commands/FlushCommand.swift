import ArgumentParser
import Foundation
import IntakeClient
import IntakeStore

struct FlushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flush",
        abstract: "Upload the queue of finished records to the server, in batches.",
        discussion: """
            A record leaves the queue only once the server has acknowledged it, so a flush can be stopped \
            at any moment and run again: nothing is lost and nothing is stored twice. Records the server \
            refuses are set aside with its reason ('intake queue list'); network and server failures are \
            retried with backoff. Exit status 0 when the queue is empty at the end, 1 otherwise.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions

    @Option(help: "Records per request at most (1 to 500); a request also stops growing past 1 MiB.")
    var batchSize = 250

    @Option(help: "Requests on their way to the server at once (1 to 16).")
    var inFlight = 4

    @Option(help: "Attempts for each batch when the network or server fails.")
    var attempts = 5

    func validate() throws {
        guard (1...500).contains(batchSize) else { throw ValidationError("Please give a batch size from 1 to 500.") }
        guard (1...20).contains(attempts) else { throw ValidationError("Please give from 1 to 20 attempts.") }
        guard (1...16).contains(inFlight) else { throw ValidationError("Please give from 1 to 16 requests in flight.") }
    }

    func run() async throws {
        let store = try storeOptions.open()
        guard let client = try clientOptions.client(dataDirectory: storeOptions.directory) else {
            throw ValidationError(
                "No server is configured; sign in with 'intake login --server URL --username NAME', or give --server and --token.")
        }
        let pending = try store.pendingCount()
        if pending == 0 {
            print("The queue is empty; nothing to upload.")
            let setAside = try store.queueEntries().count
            if setAside > 0 { print("\(setAside) record(s) set aside: see 'intake queue list'.") }
            if setAside > 0 { throw ExitCode.failure }
            return
        }
        let bar = ProgressDisplay(interactive: isatty(STDOUT_FILENO) == 1)
        let flusher = QueueFlusher(
            store: store, client: client, batchSize: batchSize, inFlight: inFlight,
            retry: .init(attempts: attempts, baseDelay: 0.5, maxDelay: 8))
        let summary = try await flusher.flush { bar.show($0.done, of: $0.total) }
        bar.finish()
        print(
            "Uploaded: \(summary.uploaded). Already on the server: \(summary.alreadyOnServer). Set aside: \(summary.setAside.count). Still queued: \(summary.remaining)."
        )
        for (id, reason) in summary.setAside { print("  \(id.uuidString.lowercased().prefix(8)) set aside: \(reason)") }
        if let reason = summary.stoppedBecause {
            printError("Stopped early: \(reason). The records not sent are still queued; run 'intake flush' again later.")
        }
        if summary.remaining > 0 { throw ExitCode.failure }
    }
}

/// A progress bar on a terminal; plain progress lines when output is piped.
final class ProgressDisplay: @unchecked Sendable {
    let interactive: Bool
    private var lastLine = -1

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func show(_ done: Int, of total: Int) {
        let total = max(total, 1)
        if interactive {
            let width = 30, filled = width * min(done, total) / total
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            FileHandle.standardOutput.write(Data("\r[\(bar)] \(done)/\(total)".utf8))
        } else if done == total || done / max(1, total / 10) != lastLine {
            lastLine = done / max(1, total / 10)
            FileHandle.standardOutput.write(Data("progress: \(done)/\(total)\n".utf8))
        }
    }

    func finish() {
        if interactive { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }
}
