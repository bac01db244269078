import Foundation
import IntakeClient
import IntakeForm
import IntakeStore

/// `intake flush`: uploads the queue with a progress display, and says what happened.
public struct FlushRun {
    public var flusher: QueueFlusher
    public var io: any FieldOutput
    /// The language the summary is said in.
    public var say: FormLanguage

    public init(flusher: QueueFlusher, io: any FieldOutput, say: FormLanguage = FormLanguage(nil)) {
        self.flusher = flusher
        self.io = io
        self.say = say
    }

    /// Records filled on this machine before anyone signed in are given `account` (the account
    /// signed in now) as their collector, and the person is told so once, before they are sent.
    /// Without an account they stay as they are, and the person is told why.
    public func giveCollector(_ account: String?) throws {
        let store = flusher.store
        // Without an account they stay as they are: the flush keeps them back (and says so).
        guard let account, !account.isEmpty else { return }
        let given = try store.giveCollector(account)
        if given > 0 { io.write(say(.filledBeforeSignIn(count: given, account: account))) }
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
            if try store.pendingActionCount() == 0 || setAside > 0 { io.write(say(.queueEmpty)) }
            if setAside > 0 { io.write(say(.queueSetAside(setAside))) }
            return setAside == 0
        }
        // Said before the first byte goes: where to, how long it may take, how to leave.
        var flusher = self.flusher
        let client = flusher.client
        io.write(
            say(
                .flushSending(
                    count: try store.pendingCount(), host: client.baseURL.host ?? "the server", timeout: Int(client.timeout.rounded(.up)),
                    tries: flusher.retry.attempts, longest: Int(flusher.longestWait.rounded(.up)))))
        let retrying = RetryNotices(io: io, progress: progress, say: say)
        flusher.retrying = { retrying.say($0) }
        let summary = try await flusher.flush { progress?.show($0.done, of: $0.total) }
        progress?.finish()
        io.write(
            say(
                .flushed(
                    uploaded: summary.uploaded, alreadyThere: summary.alreadyOnServer, setAside: summary.setAside.count,
                    stillQueued: summary.remaining)))
        if summary.withoutCollector > 0 { io.writeError(say(.filledBeforeSignInNoAccount(count: summary.withoutCollector))) }
        for (id, how) in summary.resolved {
            io.write(say(.mergedMeanwhile(id: String(id.uuidString.lowercased().prefix(8)), how: "\(how)")))
        }
        for (id, reason, code) in summary.setAside {
            let short = String(id.uuidString.lowercased().prefix(8))
            io.write(say(.setAsideFor(id: short, code: code, reason: reason)))
            if let record = try? store.queuedRecord(idPrefix: short),
                let hint = DraftMigration.hint(for: record.response, store: store, say: say)
            {
                io.write(hint)
            }
        }
        if let reason = summary.stoppedBecause { io.writeError(say(.stoppedEarly("\(reason)"))) }
        return summary.remaining == 0
    }
}

/// Says each failed try that will be made again, on its own line above the progress bar.
private final class RetryNotices: @unchecked Sendable {
    let io: any FieldOutput
    let progress: ProgressDisplay?
    let sayText: FormLanguage
    private let lock = NSLock()

    init(io: any FieldOutput, progress: ProgressDisplay?, say: FormLanguage) {
        self.io = io
        self.progress = progress
        self.sayText = say
    }

    func say(_ notice: QueueFlusher.Retrying) {
        let line = sayText(
            .flushRetrying(
                attempt: notice.attempt, of: notice.attempts, reason: notice.reason, seconds: max(1, Int(notice.delay.rounded(.up)))))
        lock.withLock {
            if let progress { progress.note(line) } else { io.write(line) }
        }
    }
}
