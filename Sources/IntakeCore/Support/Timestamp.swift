import Foundation

/// ISO 8601 UTC times with milliseconds: `2026-11-22T05:19:08.123Z`.
///
/// Written and read by hand: records carry two of these and exports handle millions of records,
/// and a date formatter per call cost more than everything else in decoding a record. Other
/// ISO 8601 spellings (offsets, no fraction) are read through Foundation's formatter.
package enum Timestamp {
    package static func string(from date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = Int(milliseconds - seconds * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CivilDays.date(fromDays: days)
        var text = year.zeroPadded(4) + "-" + month.zeroPadded(2) + "-" + day.zeroPadded(2) + "T"
        text += (secondOfDay / 3600).zeroPadded(2) + ":" + (secondOfDay / 60 % 60).zeroPadded(2) + ":" + (secondOfDay % 60).zeroPadded(2)
        return text + "." + fraction.zeroPadded(3) + "Z"
    }

    package static func date(from string: String) -> Date? {
        // Our own spelling is read by hand; an impossible date in it (February 30) is refused,
        // where Foundation's formatter would roll it over into the next month.
        if let parsed = fastDate(from: string) { return parsed }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: string) ?? ISO8601DateFormatter().date(from: string)
    }

    /// Only `YYYY-MM-DDTHH:MM:SS.sssZ` or `YYYY-MM-DDTHH:MM:SSZ` naming a time that exists: what
    /// records carry. Nothing is rolled over or guessed.
    package static func strictDate(from string: String) -> Date? {
        fastDate(from: string) ?? nil
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ` or `YYYY-MM-DDTHH:MM:SSZ`: the date, or `.some(nil)` when the
    /// fields are out of range; nil for any other spelling.
    private static func fastDate(from string: String) -> Date?? {
        var reader = FixedWidthReader(string)
        guard let year = reader.digits(4), reader.expect(UInt8(ascii: "-")), let month = reader.digits(2), reader.expect(UInt8(ascii: "-")),
            let day = reader.digits(2), reader.expect(UInt8(ascii: "T")), let hour = reader.digits(2), reader.expect(UInt8(ascii: ":")),
            let minute = reader.digits(2), reader.expect(UInt8(ascii: ":")), let second = reader.digits(2)
        else { return nil }
        var milliseconds = 0
        switch reader.next() {
        case UInt8(ascii: "."):
            guard let fraction = reader.digits(3), reader.expect(UInt8(ascii: "Z")) else { return nil }
            milliseconds = fraction
        case UInt8(ascii: "Z"): break
        default: return nil
        }
        guard reader.next() == nil else { return nil }
        guard (1...12).contains(month), day >= 1, day <= LocalDate.daysIn(month: month, year: year), hour < 24, minute < 60, second < 60
        else {
            return .some(nil)
        }
        let seconds = CivilDays.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds * 1000 + Int64(milliseconds)) / 1000)
    }
}
