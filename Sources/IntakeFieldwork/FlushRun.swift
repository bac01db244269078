import Foundation
import IntakeClient
import IntakeStore

/// `intake flush`: uploads the queue with a progress display, and says what happened.
public struct FlushRun {
    public var flusher: QueueFlusher
    public var io: any FieldOutput

    public init(flusher: QueueFlusher, io: any FieldOutput) {
        self.flusher = flusher
        self.io = io
    }

    /// Uploads what is pending, then sends the answers given offline; true when nothing is left
    /// at the end (nothing pending, nothing set aside).
    public func run(progress: ProgressDisplay?) async throws -> Bool {
        let emptied = try await uploadRecords(progress: progress)
        guard try flusher.store.pendingActionCount() > 0 else { return emptied }
        let answers = try await ActionFlush(store: flusher.store, client: flusher.client).run()
        ActionFlush.lines(answers).forEach { answers.stoppedBecause == nil ? io.write($0) : io.writeError($0) }
        return emptied && answers.remaining == 0
    }

    private func uploadRecords(progress: ProgressDisplay?) async throws -> Bool {
        let store = flusher.store
        if try store.pendingCount() == 0 {
            let setAside = try store.queueEntries().count
            if try store.pendingActionCount() == 0 || setAside > 0 { io.write("The queue is empty; nothing to upload.") }
            if setAside > 0 { io.write("\(setAside) record(s) set aside: see 'intake queue list'.") }
            return setAside == 0
        }
        let summary = try await flusher.flush { progress?.show($0.done, of: $0.total) }
        progress?.finish()
        io.write(
            "Uploaded: \(summary.uploaded). Already on the server: \(summary.alreadyOnServer). Set aside: \(summary.setAside.count). Still queued: \(summary.remaining)."
        )
        for (id, how) in summary.resolved { io.write("  \(id.uuidString.lowercased().prefix(8)) changed on the server meanwhile: \(how).") }
        for (id, reason) in summary.setAside { io.write("  \(id.uuidString.lowercased().prefix(8)) set aside: \(reason)") }
        if let reason = summary.stoppedBecause {
            io.writeError("Stopped early: \(reason). The records not sent are still queued; run 'intake flush' again later.")
        }
        return summary.remaining == 0
    }
}
