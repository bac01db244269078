import Foundation
import IntakeCore
import IntakeForm
import IntakeStore

/// `intake drafts migrate`: moves a draft, or a queued record, to another version of its
/// questionnaire (``RecordMigration``), keeps the answers that could not go in the record's
/// history on this machine, and says what moved, what was set aside and what is now to answer.
public struct DraftMigration {
    public var store: LocalStore
    /// A version of a questionnaire kept on this machine (pulled, or the local folder's), or nil.
    public var versions: (QuestionnaireReference) -> Questionnaire?

    public init(store: LocalStore, versions: @escaping (QuestionnaireReference) -> Questionnaire?) {
        self.store = store
        self.versions = versions
    }

    /// A record to move: a draft or a queued record.
    public struct Candidate: Sendable {
        public var draft: Draft
        /// Whether it waits in the queue (sent, or refused, or not yet) rather than in the drafts.
        public var queued: Bool
        public var shortId: String { String(draft.response.id.uuidString.lowercased().prefix(8)) }
    }

    public struct Outcome: Sendable {
        public var candidate: Candidate
        public var result: RecordMigration.Result
        /// Where the record is now: back in the queue (complete on the new version) or a draft.
        public var queued: Bool
    }

    /// The draft or queued record whose id starts with `prefix`.
    public func candidate(idPrefix prefix: String) throws -> Candidate {
        let draftError: LocalStoreError
        do {
            return Candidate(draft: try store.draft(idPrefix: prefix), queued: false)
        } catch {
            draftError = error
        }
        do {
            let queued = try store.queuedRecord(idPrefix: prefix)
            return Candidate(draft: Draft(response: queued.response, baseRevision: queued.entry.baseRevision), queued: true)
        } catch {
            // Neither a draft nor a queued record: the drafts' message (it names the prefix).
            if try store.queueEntries().contains(where: { $0.id.uuidString.lowercased().hasPrefix(prefix.lowercased()) }) { throw error }
            throw draftError
        }
    }

    /// Every draft and queued record (waiting or set aside) on this machine.
    public func all() throws -> [Candidate] {
        let queued = try store.queueEntries().map { entry in
            let record = try store.queuedRecord(idPrefix: entry.id.uuidString.lowercased())
            return Candidate(draft: Draft(response: record.response, baseRevision: record.entry.baseRevision), queued: true)
        }
        return try store.drafts().map { Candidate(draft: $0, queued: false) } + queued
    }

    /// Every draft and queued record of questionnaire `id` on a version other than `target`.
    public func behind(_ target: QuestionnaireReference) throws -> [Candidate] {
        try all().filter { $0.draft.response.questionnaire.id == target.id && $0.draft.response.questionnaire != target }
    }

    /// Moves `candidate` to `target` and keeps it: a queued record complete on the new version
    /// goes back in the queue; one that now misses required answers, and every draft, is a
    /// draft on the new version, its form at the first question to answer.
    public func migrate(_ candidate: Candidate, to target: Questionnaire, at time: Date = Date()) throws -> Outcome {
        let record = candidate.draft.response
        guard record.questionnaire != target.reference else {
            throw FieldworkError("record \(candidate.shortId) is on \(target.reference) already")
        }
        guard record.questionnaire.id == target.id else {
            throw FieldworkError(
                "record \(candidate.shortId) answers \(record.questionnaire.id), not \(target.id); it can only move to a version of \(record.questionnaire.id)"
            )
        }
        guard let old = versions(record.questionnaire) else {
            throw FieldworkError(
                "\(record.questionnaire) is not on this machine, so its questions cannot be matched; "
                    + "pull it while the server still lists it (intake questionnaire pull) or give its folder: --from PATH")
        }
        var result = RecordMigration.migrate(record, from: old, to: target)
        result.record.updatedAt = PatientResponse.now()
        var draft = candidate.draft
        let complete =
            candidate.queued && result.nowRequired.isEmpty && Validator(questionnaire: target).validate(result.record).errors.isEmpty
        if !complete {
            result.record.status = .draft
            draft.cursor = result.nowRequired.first?.position ?? candidate.draft.cursor ?? QuestionPosition(section: 1, index: 1)
        }
        draft.response = result.record
        let json = RecordMigration.json(result.setAside, from: record.questionnaire, to: target.reference, at: time)
        try store.saveMove(
            draft, queue: complete, from: record.questionnaire, setAside: json, setAsideCount: result.setAside.count, at: time)
        return Outcome(candidate: candidate, result: result, queued: complete)
    }

    /// For a record the server refused: how to move it, when this machine keeps a newer
    /// published version of its questionnaire (pulled); nil otherwise.
    public static func hint(for record: PatientResponse, store: LocalStore, say: FormLanguage) -> String? {
        guard let current = try? store.currentPulled(id: record.questionnaire.id), current.version != record.questionnaire.version else {
            return nil
        }
        return say(
            .moveToVersion(
                id: String(record.id.uuidString.lowercased().prefix(8)), questionnaire: record.questionnaire.id,
                from: record.questionnaire.version, to: current.version))
    }

    /// What to tell the person: the questions, never the answers.
    public static func lines(_ outcome: Outcome) -> [String] {
        let result = outcome.result
        let from = outcome.candidate.draft.response.questionnaire
        let kind = outcome.candidate.queued ? "Queued record" : "Draft"
        var lines = [
            "\(kind) \(outcome.candidate.shortId) moved from version \(from.version) to \(result.record.questionnaire.version): "
                + "\(result.carried.count) answer\(result.carried.count == 1 ? "" : "s") carried, \(result.setAside.count) set aside."
        ]
        // Worth a line: an answer converted, or moved to another section (not one renumbered
        // because a question before it went).
        for carried in result.carried where carried.conversion != nil || carried.from.section != carried.to.section {
            let note = [carried.from.section != carried.to.section ? "now question \(carried.to)" : nil, carried.conversion].compactMap {
                $0
            }
            lines.append("  carried  \(carried.question) (\(note.joined(separator: ", ")))")
        }
        for aside in result.setAside {
            lines.append("  set aside  \(aside.question) (question \(aside.from)): \(aside.detail)")
        }
        if !result.setAside.isEmpty {
            lines.append("  The answers set aside stay on this machine: intake drafts history \(outcome.candidate.shortId)")
        }
        if outcome.queued {
            lines.append("  It is complete on version \(result.record.questionnaire.version) and back in the queue: intake flush sends it.")
        } else if !result.nowRequired.isEmpty {
            let keys = result.nowRequired.map(\.key).joined(separator: ", ")
            lines.append(
                "  \(result.nowRequired.count) required question\(result.nowRequired.count == 1 ? "" : "s") to answer (\(keys)): "
                    + "intake fill --resume \(outcome.candidate.shortId)")
        } else {
            lines.append(
                "  It is a draft on version \(result.record.questionnaire.version): intake fill --resume \(outcome.candidate.shortId)")
        }
        return lines
    }
}
