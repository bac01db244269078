import Foundation
import IntakeStore

/// The numbered table of local records that `drafts list` and `fill` show: initials, never names.
enum DraftTable {
    static func lines(_ summaries: [DraftSummary]) -> [String] {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        var lines = [row("#", "ID", "STATUS", "QUESTIONNAIRE", "ANSWERS", "AT", "PATIENT", "UPDATED")]
        for (number, summary) in summaries.enumerated() {
            let at = summary.cursor.map { $0.section == 0 ? "patient" : $0.description } ?? "start"
            lines.append(
                row(
                    "\(number + 1)", String(summary.id.uuidString.lowercased().prefix(8)), summary.status.rawValue,
                    summary.questionnaire.description, "\(summary.answerCount)", summary.status == .complete ? "-" : at,
                    summary.initials.isEmpty ? "-" : summary.initials, formatter.string(from: summary.updatedAt)))
        }
        return lines
    }

    private static func row(_ columns: String...) -> String {
        let widths = [3, 9, 9, 34, 8, 8, 8, 16]
        return zip(columns, widths).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
