import Foundation
import IntakeCore

/// Where an incremental export starts: after a previous export's cursor, or at a time.
///
/// A cursor counts changes. An export of one team counts that team's changes alone and is
/// written `team-42`; an export of every team counts the deployment's and is written `42`. The
/// two are never mixed: each answers for its own kind of export only.
public enum ExportSince: Sendable, Equatable {
    /// After a change of every team's.
    case cursor(Int64)
    /// After a change of the exporting team's.
    case teamCursor(Int64)
    case time(Date)

    static let teamPrefix = "team-"

    /// A cursor as an export of a team (`team-42`) or of every team (`42`) gives it.
    public static func cursorText(_ value: Int64, team: Bool) -> String {
        team ? teamPrefix + String(value) : String(value)
    }

    /// A cursor (`42`, `team-42`) or an ISO 8601 time (`2026-11-01` or `2026-11-01T00:00:00Z`).
    public init?(_ text: String) {
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let cursor = Int64(text) {
            self = .cursor(cursor)
        } else if text.hasPrefix(Self.teamPrefix), case let digits = text.dropFirst(Self.teamPrefix.count),
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let cursor = Int64(digits)
        {
            self = .teamCursor(cursor)
        } else if let date = Timestamp.date(from: text) {
            self = .time(date)
        } else if let day = LocalDate(iso: text) {
            self = .time(Date(timeIntervalSince1970: Double(CivilDays.days(year: day.year, month: day.month, day: day.day)) * 86_400))
        } else {
            return nil
        }
    }

    public static let hint =
        "give a cursor from a previous export (such as team-42, or 42 for an export of every team) or a time such as 2026-11-01 or 2026-11-01T06:00:00Z"
}

extension ExportSince {
    /// `--since` as given: a cursor or a time as it is, or the folder of a previous export,
    /// whose export.json gives its cursor.
    public static func resolve(_ argument: String) throws(ExportError) -> String {
        guard ExportSince(argument) == nil else { return argument }
        guard FileManager.default.fileExists(atPath: argument) else {
            throw ExportError("--since: \(hint), or the folder of a previous export")
        }
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
