import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeForm
import IntakeStore

/// Runs the form on a draft, then sends or queues the finished record and says what happened.
/// Shared by `intake fill` and `intake lookup`.
struct FormRun {
    let store: LocalStore
    let client: IntakeClient?
    let io: StandardIO

    func run(_ draft: Draft, questionnaire: Questionnaire) async throws {
        if let revision = draft.baseRevision { io.write("Editing the server's record at revision \(revision).") }
        let session = try FormSession(questionnaire: questionnaire, draft: draft, io: io) { try store.save($0) }
        switch try session.run() {
        case .completed(let record):
            try await report(try await Submitter(store: store, client: client).submit(record, baseRevision: draft.baseRevision))
        case .quit: return
        case .inputEnded(let saved):
            printError("Input ended before the record was finished. The draft is saved: intake fill --resume \(saved.response.id.uuidString.lowercased().prefix(8))")
            throw ExitCode(3)
        }
    }

    func report(_ outcome: Submitter.Outcome) async throws {
        switch outcome {
        case .sent(.duplicate): io.write("The server already had this record; nothing was sent twice.")
        case .sent(.updated(let revision)): io.write("Saved on the server as revision \(revision).")
        case .sent: io.write("Sent to the server.")
        case .queued(let waiting, let reason):
            io.write("Saved offline (\(reason)): \(waiting) record\(waiting == 1 ? "" : "s") waiting, encrypted on this machine. Upload with 'intake flush'.")
        case .invalid(let message, let issues):
            io.write("The server refused the record: \(message)")
            issues.forEach { io.write("  - \($0)") }
            printError("The record is a draft again; fix it with: intake fill --resume")
            throw ExitCode.failure
        case .heldBack(let reason):
            printError("The server has a different record with this id (\(reason)). It is kept in the queue, set aside: see 'intake queue list'.")
            throw ExitCode.failure
        case .stale(let current, _):
            printError(
                "Someone saved this record on the server (now revision \(current)) after you loaded it, so your changes were not saved over theirs. They are kept as a draft; look the record up again ('intake lookup') and apply them to the current version.")
            throw ExitCode.failure
        }
    }

}
