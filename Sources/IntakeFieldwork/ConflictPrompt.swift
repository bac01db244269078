import Foundation
import IntakeCore
import IntakeForm

/// `--on-conflict ask`: shows each answer both sides changed, the person's and the server's side
/// by side, and asks which to keep. Changes only one side made are merged without asking.
public enum ConflictPrompt {
    /// A side for each of `merge.conflicts`, in order; fewer when input ended first (the edit is
    /// then not saved: nothing the person did not choose is dropped).
    public static func choose(_ merge: RecordMerge, questionnaire: Questionnaire?, io: any FormIO) -> [RecordMerge.Side] {
        let record = merge.merged
        io.write(
            "\nRecord \(record.id.uuidString.lowercased().prefix(8)) (\(record.patient.initials)) changed on the server while you edited it. "
                + "\(merge.appliedFromMine.count) change(s) of yours merge; \(merge.conflicts.count) were changed on both sides:")
        let display = AnswerDisplay(language: record.language)
        var sides: [RecordMerge.Side] = []
        for (number, conflict) in merge.conflicts.enumerated() {
            io.write("  [\(number + 1)/\(merge.conflicts.count)] \(label(conflict.field, questionnaire))")
            io.write("        1) yours:  \(text(conflict.mine, conflict.field, questionnaire, display))")
            io.write("        2) server: \(text(conflict.theirs, conflict.field, questionnaire, display))")
            var side: RecordMerge.Side?
            while side == nil {
                guard let line = io.readLine(prompt: "  Keep which (1 yours, 2 the server's; Enter for the server's)? ") else {
                    io.write("  (Input ended before every answer was chosen: your edit is not saved, and stays here.)")
                    return sides
                }
                switch line.trimmingCharacters(in: .whitespaces) {
                case "1": side = .mine
                case "2", "": side = .theirs
                default: io.write("  Please type 1 or 2.")
                }
            }
            sides.append(side!)
        }
        return sides
    }

    static func label(_ field: RecordMerge.Field, _ questionnaire: Questionnaire?) -> String {
        guard case .answer(let position) = field, let question = questionnaire?.question(at: position) else {
            return field.description.capitalizedFirst
        }
        return "Question \(position): \(question.text.text(in: nil))"
    }

    static func text(_ value: RecordMerge.Value, _ field: RecordMerge.Field, _ questionnaire: Questionnaire?, _ display: AnswerDisplay)
        -> String
    {
        switch value {
        case .text(let text): return text.map { $0.isEmpty ? "(empty)" : $0 } ?? "(none)"
        case .questionnaire(let reference): return reference.description
        case .answer(nil): return "(no answer)"
        case .answer(let answer?):
            if case .answer(let position) = field, let question = questionnaire?.question(at: position) {
                return display.text(of: answer, for: question.type)
            }
            return "\(answer)"
        }
    }
}

extension String {
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
