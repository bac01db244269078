import Foundation

/// A record an earlier export held that its receiver must now delete, and why: listed in a
/// `--since` export's `removed.csv`.
public struct RemovedRecord: Sendable, Hashable {
    public var recordId: UUID
    public var reason: Reason

    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The patient's sharing scope no longer reaches the exporter's access level.
        case consentWithdrawn = "consent_withdrawn"
        /// A coordinator deleted the record.
        case deleted
        /// The record moved to another team (a team's export).
        case transferred
    }

    public init(recordId: UUID, reason: Reason) {
        self.recordId = recordId
        self.reason = reason
    }

    static let columns = ["record_id", "reason"]

    /// `removed.csv`: a header, then a line per record.
    public static func csv(_ removed: [RemovedRecord]) -> String {
        removed.reduce(CSV.line(columns)) { text, entry in text + CSV.line([entry.recordId.uuidString.lowercased(), entry.reason.rawValue])
        }
    }

    /// Reads `removed.csv` as ``csv(_:)`` writes it.
    public static func parse(csv text: String) throws(ExportError) -> [RemovedRecord] {
        var lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }[...]
        guard lines.first.map({ $0.split(separator: ",").map(String.init) }) == columns else {
            throw ExportError("the server's removed.csv does not start with the header record_id,reason; update Intake on this machine")
        }
        lines = lines.dropFirst()
        return try lines.enumerated().map { (number, line) throws(ExportError) -> RemovedRecord in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == 2, let id = UUID(uuidString: String(fields[0])), let reason = Reason(rawValue: String(fields[1])) else {
                throw ExportError(
                    "line \(number + 2) of the server's removed.csv is not a record id and a known reason; update Intake on this machine")
            }
            return RemovedRecord(recordId: id, reason: reason)
        }
    }
}
