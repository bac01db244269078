import Foundation
import IntakeCore

/// Where an incremental export starts: after a previous export's cursor, or at a time.
public enum ExportSince: Sendable, Equatable {
    case cursor(Int64)
    case time(Date)

    /// A cursor (digits) or an ISO 8601 time (`2026-11-01` or `2026-11-01T00:00:00Z`).
    public init?(_ text: String) {
        if let cursor = Int64(text), cursor >= 0 {
            self = .cursor(cursor)
        } else if let date = Timestamp.date(from: text) {
            self = .time(date)
        } else if let day = LocalDate(iso: text) {
            self = .time(Date(timeIntervalSince1970: Double(CivilDays.days(year: day.year, month: day.month, day: day.day)) * 86_400))
        } else {
            return nil
        }
    }

    public static let hint = "give a cursor from a previous export (digits) or a UTC time such as 2026-11-01 or 2026-11-01T06:00:00Z"
}

extension ExportSince {
    /// `--since` as given: a cursor or a time as it is, or the folder of a previous export,
    /// whose export.json gives its cursor.
    public static func resolve(_ argument: String) throws(ExportError) -> String {
        guard ExportSince(argument) == nil else { return argument }
        guard FileManager.default.fileExists(atPath: argument) else { throw ExportError("--since: \(hint), or the folder of a previous export") }
        let summary: FolderExport.Summary
        do {
            summary = try FolderExport.Summary(folder: URL(fileURLWithPath: argument))
        } catch {
            throw ExportError("--since: \(error.description)")
        }
        guard let cursor = summary.cursor else {
            throw ExportError("--since: the export in \(argument) has no cursor (it was made from files); give a time instead")
        }
        return cursor
    }
}
