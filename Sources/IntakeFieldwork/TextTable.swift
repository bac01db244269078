import Foundation
import IntakeForm
import IntakeStore
import IntakeTerminal

/// Columns padded to fixed widths, for the tables the commands print.
public enum TextTable {
    public static func row(_ columns: String..., widths: [Int] = [3, 9, 34, 8, 8, 8, 16]) -> String {
        row(columns, widths: widths)
    }

    /// One row, each column padded to its width. A row holding right-to-left text (an Arabic
    /// name), or any row of a right-to-left table, ends each cell with a mark of the table's
    /// direction, so that on screen the cells stay in their columns in the table's order.
    public static func row(_ columns: [String], widths: [Int], rightToLeft: Bool = false) -> String {
        let marked = rightToLeft || columns.contains(where: BidiText.hasRightToLeft)
        let mark = marked ? (rightToLeft ? "\u{200F}" : "\u{200E}") : ""
        return zip(columns, widths + Array(repeating: 0, count: max(0, columns.count - widths.count)))
            .map { ($0 + mark).padding(toLength: max($1 + mark.count, $0.count + mark.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }

    /// The numbered table of drafts that `drafts list` and `fill` show: initials, never names.
    public static func drafts(_ summaries: [DraftSummary], say: FormLanguage = FormLanguage(nil)) -> [String] {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let widths = [3, 9, 34, 8, 8, 8, 16]
        let rtl = say.isRightToLeft
        var lines = [row(say(.draftColumns).split(separator: "|").map(String.init), widths: widths, rightToLeft: rtl)]
        for (number, summary) in summaries.enumerated() {
            let at = summary.cursor.map { $0.section == 0 ? say(.draftAtPatient) : $0.description } ?? say(.draftAtStart)
            lines.append(
                row(
                    [
                        "\(number + 1)", String(summary.id.uuidString.lowercased().prefix(8)), summary.questionnaire.description,
                        "\(summary.answerCount)", at, summary.initials.isEmpty ? "-" : summary.initials,
                        formatter.string(from: summary.updatedAt) + (summary.baseRevision.map { "  " + say(.editOfRevision($0)) } ?? ""),
                    ], widths: widths, rightToLeft: rtl))
        }
        return lines
    }

    /// The table of queued records that `queue list` shows: ids, states, attempts and reasons;
    /// no patient data. Its last line counts what waits and what is set aside.
    public static func queue(_ entries: [QueueEntry], say: FormLanguage = FormLanguage(nil)) -> [String] {
        guard !entries.isEmpty else { return [say(.queueListEmpty)] }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let widths = [9, 12, 9, 17, 9]
        let rtl = say.isRightToLeft
        var lines = [row(say(.queueColumns).split(separator: "|").map(String.init), widths: widths, rightToLeft: rtl)]
        for entry in entries {
            lines.append(
                row(
                    [
                        String(entry.id.uuidString.lowercased().prefix(8)),
                        say(entry.state == .pending ? .queueWaiting : .queueSetAsideState),
                        "\(entry.attempts)", formatter.string(from: entry.enqueuedAt),
                        say(entry.baseRevision == nil ? .queueNew : .queueEdit),
                        entry.reason ?? "",
                    ], widths: widths, rightToLeft: rtl))
        }
        let pending = entries.filter { $0.state == .pending }.count
        lines.append(say(.queueCounts(waiting: pending, setAside: entries.count - pending)))
        return lines
    }
}
