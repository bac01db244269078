import Foundation
import IntakeCore

/// A record laid out for an export's columns: its fields prepared as the export asks (keyed,
/// de-identified, dates moved) and its answers in an array by question ordinal, with show-if
/// settled. No per-record dictionaries: this is what the wide CSV writes from, read straight
/// from the bytes a store keeps.
public struct ExportRow: Sendable {
    /// The record's fields other than its answers (those are in ``answers``), prepared.
    var item: ExportRecord
    /// By ordinal in its version: the answer, dates moved when the export moves them.
    var answers: [Answer?]
    /// By ordinal: whether show-if hides the question.
    var hidden: [Bool]
    let layout: VersionLayout

    /// Reads a record's bytes (as ``RecordCodec`` wrote them) and prepares it as `plan` asks;
    /// `keyer` makes patient keys and moves dates.
    /// - Parameter collector: who collected the record, as the server checked it, when it differs from the body's.
    /// - Parameter reviewState: its review state on the server.
    public init(
        body: [UInt8], revision: Int?, plan: ExportPlan, keyer: PatientKeyer?, registry: RegistryFacts? = nil, collector: String? = nil,
        reviewState: String? = nil
    ) throws(ExportError) {
        var found: [(position: QuestionPosition, answer: Answer)] = []
        found.reserveCapacity(64)
        var header: PatientResponse
        do {
            header = try JSONReader.document(body) { reader throws(JSONReadError) in
                try RecordCodec.read(&reader) { position, answer, _ in found.append((position, answer)) }
            }
        } catch {
            throw ExportError(
                "a stored record cannot be read (\(error.description)); the database was changed outside Intake or is damaged: "
                    + "restore it from a backup")
        }
        if let collector { header.collector = collector }
        let options = plan.options
        let item = ExportRecord(
            header, revision: revision, keyer: keyer, includeIdentifiers: options.includeIdentifiers, shiftDates: options.shiftDates,
            registry: registry, reviewState: reviewState)
        let days = item.datesShifted ? keyer?.dateShift(patientKey: item.patientKey, recordId: header.id) ?? 0 : 0
        let layout = try plan.layout(for: header.questionnaire)
        let ordinals = layout.visibility.ordinals
        var answers = [Answer?].noAnswers(layout.visibility.questionCount)
        for (position, answer) in found {
            guard let ordinal = ordinals[position] else { continue }
            answers[ordinal] = days == 0 ? answer : ExportRecord.shifted(answer, by: days)
        }
        self.init(item: item, answers: answers, layout: layout)
    }

    /// Lays out a record read already (from a JSON Lines file, or in tests), prepared as it is.
    public init(_ item: ExportRecord, plan: ExportPlan) throws(ExportError) {
        let layout = try plan.layout(for: item.record.questionnaire)
        let ordinals = layout.visibility.ordinals
        var answers = [Answer?].noAnswers(layout.visibility.questionCount)
        for (section, byIndex) in item.record.answers {
            for (index, answer) in byIndex {
                guard let ordinal = ordinals[QuestionPosition(section: section, index: index)] else { continue }
                answers[ordinal] = answer
            }
        }
        self.init(item: item, answers: answers, layout: layout)
    }

    private init(item: ExportRecord, answers: [Answer?], layout: VersionLayout) {
        self.item = item
        // A repeat's questions have no answers of their own here: their cells read the repeat's
        // instances (``VersionLayout/Slot/repeatMember``).
        self.answers = answers
        self.layout = layout
        var hidden: [Bool] = []
        layout.visibility.markHidden(&hidden, answers: answers)
        self.hidden = hidden
    }
}
