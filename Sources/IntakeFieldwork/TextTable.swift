import Foundation
import IntakeStore

/// Columns padded to fixed widths, for the tables the commands print.
public enum TextTable {
    public static func row(_ columns: String..., widths: [Int] = [3, 9, 34, 8, 8, 8, 16]) -> String {
        row(columns, widths: widths)
    }

    public static func row(_ columns: [String], widths: [Int]) -> String {
        zip(columns, widths + Array(repeating: 0, count: max(0, columns.count - widths.count)))
            .map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }

    /// The numbered table of drafts that `drafts list` and `fill` show: initials, never names.
    public static func drafts(_ summaries: [DraftSummary]) -> [String] {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        var lines = [row("#", "ID", "QUESTIONNAIRE", "ANSWERS", "AT", "PATIENT", "UPDATED")]
        for (number, summary) in summaries.enumerated() {
            let at = summary.cursor.map { $0.section == 0 ? "patient" : $0.description } ?? "start"
            lines.append(
                row(
                    "\(number + 1)", String(summary.id.uuidString.lowercased().prefix(8)), summary.questionnaire.description,
                    "\(summary.answerCount)", at, summary.initials.isEmpty ? "-" : summary.initials,
                    formatter.string(from: summary.updatedAt) + (summary.baseRevision.map { "  (edit of revision \($0))" } ?? "")))
        }
        return lines
    }
}
