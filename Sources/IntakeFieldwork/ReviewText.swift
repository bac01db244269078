import Foundation
import IntakeClient

/// What `intake review` prints.
public enum ReviewText {
    /// A state as people read it.
    public static func state(_ state: String, locked: Bool = false) -> String {
        let name =
            switch state {
            case "has_issues": "has issues"
            default: state
            }
        return locked ? name + " (locked)" : name
    }

    /// A state as typed (`has-issues`, `has issues`, `Has_Issues`) as the server names it (`has_issues`).
    public static func stateName(_ typed: String) -> String {
        typed.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "-", with: "_").replacingOccurrences(
            of: " ", with: "_")
    }

    static func time(_ text: String) -> String { String(text.prefix(16)).replacingOccurrences(of: "T", with: " ") }

    public static func list(_ reviews: [RemoteReview]) -> [String] {
        guard !reviews.isEmpty else { return ["No records in those review states."] }
        let widths = [9, 20, 24, 16, 18]
        return [TextTable.row("RECORD", "STATE", "QUESTIONNAIRE", "COLLECTOR", "CHANGED", "REVIEWED BY", widths: widths)]
            + reviews.map { review in
                TextTable.row(
                    String(review.recordId.prefix(8)), state(review.state, locked: review.locked),
                    "\(review.questionnaireId) \(review.questionnaireVersion)", review.collector, time(review.updatedAt),
                    review.reviewedBy ?? "",
                    widths: widths)
            }
    }

    public static func show(_ review: RemoteReview) -> [String] {
        var lines = [
            "Record \(review.recordId) (\(review.questionnaireId) \(review.questionnaireVersion)), collected by \(review.collector)",
            "Review: \(state(review.state, locked: review.locked))"
                + (review.reviewedBy.map { " — last reviewed by \($0)" + (review.reviewedAt.map { " at \(time($0))" } ?? "") } ?? ""),
        ]
        if review.locked { lines.append("Locked: edits are refused until a coordinator reopens it ('intake review reopen').") }
        for entry in review.entries ?? [] {
            var what: [String] = []
            if let state = entry.state { what.append(state == "edited" ? "edited the record" : "set \(Self.state(state))") }
            if let locked = entry.locked { what.append(locked ? "locked it" : "reopened it") }
            let said = entry.text.isEmpty ? "" : (what.isEmpty ? ": " : " — ") + entry.text
            lines.append("  \(time(entry.at))  \(entry.author)\(what.isEmpty ? "" : " " + what.joined(separator: ", "))\(said)")
        }
        return lines
    }
}
