import Foundation
import IntakeCore

/// When a dated report is for: a calendar day, or an instant. Each report series takes one kind,
/// fixed by its first report.
public enum ReportDate: Sendable, Hashable, Comparable {
    case day(LocalDate)
    case instant(Date)

    public enum Kind: String, Sendable, Hashable, Codable {
        case date, instant
    }

    public var kind: Kind {
        switch self {
        case .day: .date
        case .instant: .instant
        }
    }

    /// `2026-11-24` or an RFC 3339 time (any offset, kept as UTC to the millisecond).
    public init?(_ text: String) {
        if let day = LocalDate(iso: text) {
            self = .day(day)
        } else if text.count > 10, let instant = Timestamp.date(from: text) {
            self = .instant(instant)
        } else {
            return nil
        }
    }

    /// The stores' key: sorts as the dates do, within a kind.
    public var key: String {
        switch self {
        case .day(let day): day.description
        case .instant(let instant): Timestamp.string(from: instant)
        }
    }

    public static func < (lhs: ReportDate, rhs: ReportDate) -> Bool { lhs.key < rhs.key }
}

/// One dated report of a patient's series (follow-up vitals on a day, a reading at an instant):
/// its values as a JSON object, and who stored it when. Replacing it keeps the old one in history.
public struct Report: Sendable, Hashable {
    public var patientId: UUID
    public var series: String
    public var date: String
    /// A JSON object, as sent (checked strict).
    public var values: String
    /// 1 for the first report of that date, then one more for each replacement.
    public var version: Int
    public var recordedBy: String
    public var recordedAt: Date

    public init(patientId: UUID, series: String, date: String, values: String, version: Int, recordedBy: String, recordedAt: Date) {
        self.patientId = patientId
        self.series = series
        self.date = date
        self.values = values
        self.version = version
        self.recordedBy = recordedBy
        self.recordedAt = recordedAt
    }
}

/// What became of storing a report.
public enum ReportOutcome: Sendable, Equatable {
    case stored(Report)
    /// The series takes dates of the other kind.
    case wrongDateKind(expected: ReportDate.Kind)
    case patientNotFound
}

/// Which reports of a series to read.
public struct ReportQuery: Sendable, Hashable {
    public var patientId: UUID
    public var series: String
    /// Calendar dates: inclusive at both ends. Instants: `start` inclusive, `end` exclusive.
    public var start: ReportDate?
    public var end: ReportDate?
    /// Only the latest report in the range.
    public var latestOnly = false

    public init(patientId: UUID, series: String, start: ReportDate? = nil, end: ReportDate? = nil, latestOnly: Bool = false) {
        self.patientId = patientId
        self.series = series
        self.start = start
        self.end = end
        self.latestOnly = latestOnly
    }
}

/// What became of reading a series.
public enum ReportsOutcome: Sendable, Equatable {
    /// Oldest date first (only the latest, when asked).
    case reports([Report])
    /// A bound of the other kind than the series takes.
    case wrongDateKind(expected: ReportDate.Kind)
    /// No report of this series was ever stored (for anyone).
    case unknownSeries
}
