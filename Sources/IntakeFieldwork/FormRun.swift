import Foundation
import IntakeClient
import IntakeCore
import IntakeForm
import IntakeStore
import Synchronization

/// Runs the form on a draft, then sends or queues the finished record and says what happened.
/// Shared by `intake fill` and `intake lookup`.
public struct FormRun {
    /// Whether a finished record is on its way to the server right now (it is in the queue
    /// already): what Ctrl-C then means.
    public static let sending = Atomic<Bool>(false)

    let store: LocalStore
    let client: IntakeClient?
    let io: any FormIO

    public init(store: LocalStore, client: IntakeClient?, io: any FormIO) {
        self.store = store
        self.client = client
        self.io = io
    }

    /// How a run ended, and the exit status the command gives for it.
    public enum Ending: Sendable, Equatable {
        /// Sent, queued, or left with :quit (the draft kept).
        case done
        /// Input ended before the record was finished; the draft is kept.
        case inputEnded(String)
        /// The record was not saved where it was meant to go; the message says where it is now.
        case failed(String)

        /// 0, 3 when input ended, 1 on failure.
        public var exitStatus: Int32 {
            switch self {
            case .done: 0
            case .inputEnded: 3
            case .failed: 1
            }
        }

        /// What to tell the person on standard error, if anything.
        public var problem: String? {
            switch self {
            case .done: nil
            case .inputEnded(let message), .failed(let message): message
            }
        }
    }

    public func run(_ draft: Draft, questionnaire: Questionnaire) async throws -> Ending {
        let say = FormLanguage(draft.response.language ?? questionnaire.baseLanguage)
        if let revision = draft.baseRevision { io.write(say(.editingRevision(revision))) }
        let store = self.store
        let session = try FormSession(
            questionnaire: questionnaire, draft: draft, io: io, discard: { _ = try store.discard(id: $0) },
            keepFile: { ref, bytes in try store.keepAttachment(bytes, ref: ref) }
        ) {
            try store.save($0)
        }
        switch try session.run() {
        case .completed(let record) where record.collector == PatientResponse.collectorToCome && draft.baseRevision == nil:
            // Nobody has signed in here yet: the server would refuse a record without a collector.
            // It waits, and the first flush after a sign-in gives it the account's name.
            try store.enqueue(record)
            io.write(say(.savedUntilSignIn(waiting: try store.pendingCount())))
            remindAlerts(of: record, questionnaire: questionnaire, say: say)
            return .done
        case .completed(let record):
            let io = self.io
            // Ctrl-C's meaning changed, and then said, only once the record is safe in the queue:
            // in that order, so a Ctrl-C answering the words is read with their meaning.
            let outcome = try await Submitter(store: store, client: client).submit(record, baseRevision: draft.baseRevision) {
                Self.sending.store(true, ordering: .relaxed)
                if let client {
                    io.write(say(.sending(host: client.baseURL.host ?? "the server", seconds: Int(client.timeout.rounded(.up)))))
                }
            }
            Self.sending.store(false, ordering: .relaxed)
            if case .stale = outcome, let client, let base = draft.baseRevision {
                return try await settle(record, baseRevision: base, client: client, questionnaire: questionnaire)
            }
            let ending = report(outcome, say: say)
            if case .queued = outcome { remindAlerts(of: record, questionnaire: questionnaire, say: say) }
            // A follow-up: this machine's copy of its case says what the visit changed (a cache:
            // the next pull brings the server's word, so a failure here loses nothing).
            if record.caseLink != nil, ending == .done { try? CaseCopy(store: store).recordVisit(record, questionnaire: questionnaire) }
            if case .invalid = outcome, let hint = DraftMigration.hint(for: record, store: store, say: say) { io.write(hint) }
            return ending
        case .quit, .abandoned(inputEnded: false):
            return .done
        case .abandoned(inputEnded: true):
            return .inputEnded(say(.inputEndedBlank))
        case .inputEnded(let saved):
            return .inputEnded(say(.inputEnded(resume: String(saved.response.id.uuidString.lowercased().prefix(8)))))
        }
    }

    /// Someone saved the record on the server after it was loaded: merge, asking the person
    /// about each answer both changed (`ask`); the edit stays a draft if it cannot be saved.
    func settle(_ record: PatientResponse, baseRevision: Int, client: IntakeClient, questionnaire: Questionnaire) async throws -> Ending {
        let io = self.io
        let resolver = ConflictResolver(client: client, policy: .ask)
        let outcome: ConflictResolver.Outcome
        do {
            outcome = try await resolver.resolve(record, baseRevision: baseRevision) { merge in
                ConflictPrompt.choose(merge, questionnaire: questionnaire, io: io)
            }
        } catch {
            return .failed(
                "Someone saved this record on the server after you loaded it, and it could not be merged now (\(error)). Your changes are kept as a draft; try again with 'intake lookup'."
            )
        }
        switch outcome {
        case .saved(let revision, let how):
            _ = try store.discard(id: record.id)
            io.write("Someone saved this record on the server after you loaded it: \(how).")
            io.write("Saved on the server as revision \(revision).")
            return .done
        case .keptServer, .unresolved, .refused:
            return .failed(
                "Your changes were not saved (\(ConflictResolver.setAsideReason(outcome) ?? "")). They are kept as a draft: 'intake fill --resume'."
            )
        }
    }

    /// A record kept on this machine that raises alerts: the coordinators hear of them only when
    /// it reaches the server, which the person is reminded of, with each alert's message.
    func remindAlerts(of record: PatientResponse, questionnaire: Questionnaire, say: FormLanguage) {
        let language = record.language ?? questionnaire.baseLanguage
        for alert in questionnaire.raisedAlerts(by: record, today: .today()).compactMap(\.alert) {
            io.write(say(.alertWaits(alert.message.text(in: language))))
        }
    }

    /// Says what became of a finished record.
    func report(_ outcome: Submitter.Outcome, say: FormLanguage = FormLanguage(nil)) -> Ending {
        switch outcome {
        case .sent(.duplicate):
            io.write(say(.alreadySent))
        case .sent(.updated(let revision)):
            io.write(say(.savedAsRevision(revision)))
        case .sent:
            io.write(say(.sent))
        case .queued(let waiting, let reason):
            io.write(say(.savedOffline(waiting: waiting, reason: "\(reason)")))
        case .invalid(let message, let issues, let code):
            // The server's refusal in the person's language where this client knows its code.
            io.write(say(.refusedFor(code: code, message: message)))
            issues.forEach { io.write("  - " + say(.serverIssue(said: $0.description, $0.issue))) }
            return .failed(say(.refusedDraftAgain))
        case .heldBack(let reason):
            return .failed(say(.heldBack("\(reason)")))
        case .stale(let current, _):
            return .failed(say(.staleEdit(current: current)))
        }
        return .done
    }
}
