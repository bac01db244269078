import Foundation

/// A calendar date with no time or time zone, written as ISO 8601 `YYYY-MM-DD`.
///
/// Dates of birth and symptom onsets are days, not instants: storing them as `Date` would shift
/// them across time zones.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Creates a date, or nil when the day does not exist (2023-02-29, month 13).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...LocalDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses exactly `YYYY-MM-DD` (digits only).
    public init?(iso string: String) {
        var reader = FixedWidthReader(string)
        guard let y = reader.digits(4), reader.expect(UInt8(ascii: "-")), let m = reader.digits(2), reader.expect(UInt8(ascii: "-")),
            let d = reader.digits(2), reader.next() == nil
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// Why text written `YYYY-MM-DD` names no day of the calendar (2024-02-31, month 13), so that
    /// a person is told what is wrong rather than how to write a date; nil for text of another
    /// shape and for a real day.
    public static func impossibleDay(iso string: String) -> ImpossibleDay? {
        var reader = FixedWidthReader(string)
        guard let y = reader.digits(4), reader.expect(UInt8(ascii: "-")), let m = reader.digits(2), reader.expect(UInt8(ascii: "-")),
            let d = reader.digits(2), reader.next() == nil, LocalDate(year: y, month: m, day: d) == nil, (1...9999).contains(y)
        else { return nil }
        guard (1...12).contains(m) else { return .noSuchMonth(m) }
        return .noSuchDay(day: d, month: m, year: y, days: daysIn(month: m, year: y))
    }

    /// See ``impossibleDay(iso:)``.
    public enum ImpossibleDay: Sendable, Equatable {
        /// A month outside 01–12.
        case noSuchMonth(Int)
        /// A day the month does not have (`days` is how many it has that year).
        case noSuchDay(day: Int, month: Int, year: Int, days: Int)
    }

    /// The day `time` falls on in UTC, by arithmetic (no calendar is made); nil outside the
    /// years 1 to 9999.
    public init?(utcDayOf time: Date) {
        let day = CivilDays.date(fromDays: Int64((time.timeIntervalSince1970 / 86_400).rounded(.down)))
        self.init(year: day.year, month: day.month, day: day.day)
    }

    /// Today in the given time zone (the device's by default).
    public static func today(in timeZone: TimeZone = .current, now: Date = Date()) -> LocalDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: now)
        return LocalDate(year: c.year!, month: c.month!, day: c.day!)!
    }

    public var description: String {
        year.zeroPadded(4) + "-" + month.zeroPadded(2) + "-" + day.zeroPadded(2)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// Days since 0001-01-01, for arithmetic such as age and random dates.
    public var ordinal: Int {
        let y = year - 1
        var days = y * 365 + y / 4 - y / 100 + y / 400
        for m in 1..<month { days += LocalDate.daysIn(month: m, year: year) }
        return days + day - 1
    }

    public init(ordinal: Int) {
        var remaining = max(0, ordinal)
        var year = 1
        while true {
            let length = LocalDate.isLeap(year) ? 366 : 365
            if remaining < length { break }
            remaining -= length
            year += 1
        }
        var month = 1
        while remaining >= LocalDate.daysIn(month: month, year: year) {
            remaining -= LocalDate.daysIn(month: month, year: year)
            month += 1
        }
        self.init(year: year, month: month, day: remaining + 1)!
    }

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

extension LocalDate: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let date = LocalDate(iso: string) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected a date written as YYYY-MM-DD.")
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension LocalDate {
    /// The moment this day starts in UTC.
    public var startInUTC: Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }
}
