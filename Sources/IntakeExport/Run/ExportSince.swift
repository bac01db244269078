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
