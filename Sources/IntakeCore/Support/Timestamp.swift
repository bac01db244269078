import Foundation

/// RFC 3339 times, always written in UTC with milliseconds: `2026-11-22T05:19:08.123Z`.
///
/// Written and read by hand: records carry two of these and exports handle millions of records,
/// and a date formatter per call cost more than everything else in decoding a record.
package enum Timestamp {
    package static func string(from date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = Int(milliseconds - seconds * 1000)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CivilDays.date(fromDays: days)
        guard (0...9999).contains(year) else {
            var text = year.zeroPadded(4) + "-" + month.zeroPadded(2) + "-" + day.zeroPadded(2) + "T"
            text +=
                (secondOfDay / 3600).zeroPadded(2) + ":" + (secondOfDay / 60 % 60).zeroPadded(2) + ":" + (secondOfDay % 60).zeroPadded(2)
            return text + "." + fraction.zeroPadded(3) + "Z"
        }
        // The 24 bytes written in place: every record is written with two of these (and an
        // export reads and writes millions), where joining fourteen small strings cost more.
        return String(unsafeUninitializedCapacity: 24) { bytes in
            func digits(_ value: Int, _ width: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            digits(year, 4, at: 0)
            bytes[4] = UInt8(ascii: "-")
            digits(month, 2, at: 5)
            bytes[7] = UInt8(ascii: "-")
            digits(day, 2, at: 8)
            bytes[10] = UInt8(ascii: "T")
            digits(secondOfDay / 3600, 2, at: 11)
            bytes[13] = UInt8(ascii: ":")
            digits(secondOfDay / 60 % 60, 2, at: 14)
            bytes[16] = UInt8(ascii: ":")
            digits(secondOfDay % 60, 2, at: 17)
            bytes[19] = UInt8(ascii: ".")
            digits(fraction, 3, at: 20)
            bytes[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// An ISO 8601 time with a zone: `2026-11-01T06:00:00Z`, with a fraction (`.5`, `.123456`)
    /// or an offset (`+02:00`, `-0530`). Read by hand and strictly: a time that does not exist
    /// (February 30, 24:00, an offset past ±23:59) is refused, never rolled over.
    package static func date(from string: String) -> Date? {
        parse(string)
    }

    private static let firstSecond = CivilDays.days(year: 0, month: 1, day: 1) * 86_400
    private static let lastSecond = CivilDays.days(year: 9999, month: 12, day: 31) * 86_400 + 86_399

    private static func parse(_ string: String) -> Date? {
        var reader = FixedWidthReader(string)
        guard let year = reader.digits(4), reader.expect(UInt8(ascii: "-")), let month = reader.digits(2), reader.expect(UInt8(ascii: "-")),
            let day = reader.digits(2), reader.expect(UInt8(ascii: "T")), let hour = reader.digits(2), reader.expect(UInt8(ascii: ":")),
            let minute = reader.digits(2), reader.expect(UInt8(ascii: ":")), let second = reader.digits(2)
        else { return nil }
        var milliseconds = 0
        var next = reader.next()
        if next == UInt8(ascii: ".") {
            // One to nine digits, kept to the millisecond.
            var count = 0
            var fraction = 0
            next = reader.next()
            while let byte = next, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                count += 1
                if count <= 3 { fraction = fraction * 10 + Int(byte - UInt8(ascii: "0")) }
                next = reader.next()
            }
            guard (1...9).contains(count) else { return nil }
            for _ in min(count, 3)..<3 { fraction *= 10 }
            milliseconds = fraction
        }
        var offsetSeconds = 0
        switch next {
        case UInt8(ascii: "Z"): break
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let hours = reader.digits(2) else { return nil }
            var following = reader.next()
            if following == UInt8(ascii: ":") { following = reader.next() }
            guard let tens = following, tens >= UInt8(ascii: "0"), tens <= UInt8(ascii: "5"), let units = reader.digits(1),
                hours < 24
            else { return nil }
            let minutes = Int(tens - UInt8(ascii: "0")) * 10 + units
            offsetSeconds = (hours * 3600 + minutes * 60) * (next == UInt8(ascii: "-") ? -1 : 1)
        default: return nil
        }
        guard reader.next() == nil else { return nil }
        guard (1...12).contains(month), day >= 1, day <= LocalDate.daysIn(month: month, year: year), hour < 24, minute < 60, second < 60
        else {
            return nil
        }
        let seconds =
            CivilDays.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        // An offset must not carry a time out of the years a timestamp can be written in.
        guard (firstSecond...lastSecond).contains(seconds) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds * 1000 + Int64(milliseconds)) / 1000)
    }
}
