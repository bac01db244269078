import Foundation
import IntakeClient

/// `intake patient import`: registers a roster's valid rows in batches and says, row by row, what
/// became of each. Each row's id comes from its content, so importing the same roster again
/// registers nobody twice ("already registered").
public enum RosterImport {
    public struct Result: Sendable, Equatable {
        public var line: Int
        /// created, existing, external_id_taken or id_taken.
        public var outcome: String
        public var id: String
        public var existingPatientId: String?
    }

    public static func run(_ rows: [Roster.Row], client: IntakeClient, batchSize: Int = 500) async throws -> [Result] {
        var results: [Result] = []
        for start in stride(from: 0, to: rows.count, by: batchSize) {
            let batch = Array(rows[start..<min(start + batchSize, rows.count)])
            let answers = try await client.registerPatients(batch.map(\.patient))
            for (row, answer) in zip(batch, answers) {
                results.append(
                    Result(line: row.line, outcome: answer.outcome, id: row.patient.id, existingPatientId: answer.existingPatientId))
            }
        }
        return results
    }

    /// A line per row, then the totals.
    public static func lines(_ results: [Result]) -> [String] {
        var lines: [String] = []
        for result in results {
            let id = result.id.prefix(8)
            switch result.outcome {
            case "created": lines.append("row \(result.line): registered as patient \(id)")
            case "existing": lines.append("row \(result.line): already registered (patient \(id))")
            case "external_id_taken":
                lines.append(
                    "row \(result.line): not registered: patient \(result.existingPatientId?.prefix(8) ?? "?") has this external id")
            default: lines.append("row \(result.line): not registered: the id is taken by another patient or team")
            }
        }
        let counts = Dictionary(grouping: results, by: \.outcome).mapValues(\.count)
        lines.append(
            "Registered \(counts["created", default: 0]), already registered \(counts["existing", default: 0]), refused \(results.count - counts["created", default: 0] - counts["existing", default: 0])."
        )
        return lines
    }
}
