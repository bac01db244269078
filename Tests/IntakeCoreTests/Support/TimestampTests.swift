import Foundation
import Testing

@testable import IntakeCore

struct TimestampTests {
    @Test func writesAndReadsWhatFoundationsFormatterDoes() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var random = SeededGenerator(seed: 5)
        for _ in 0..<5000 {
            // Milliseconds between 1901 and 2099, as records keep them.
            let milliseconds = Int64.random(in: -2_177_452_800_000...4_102_444_800_000, using: &random)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = Timestamp.string(from: date)
            #expect(text == formatter.string(from: date))
            #expect(Timestamp.date(from: text) == date)
        }
    }

    @Test func readsOtherISO8601SpellingsAndRefusesImpossibleTimes() {
        #expect(Timestamp.date(from: "2026-11-22T05:19:08Z") == Date(timeIntervalSince1970: 1_795_324_748))
        #expect(Timestamp.date(from: "2026-11-22T07:19:08.000+02:00") == Date(timeIntervalSince1970: 1_795_324_748))
        #expect(Timestamp.date(from: "2024-02-29T00:00:00.000Z") != nil)
        #expect(Timestamp.date(from: "2026-11-23T05:18:08+23:59") == Date(timeIntervalSince1970: 1_795_324_748))
        #expect(Timestamp.date(from: "0000-01-01T00:00:00Z").map(Timestamp.string(from:)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.date(from: "9999-12-31T23:59:59.999Z").map(Timestamp.string(from:)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.date(from: "2026-11-22T00:49:08.5-0430") == Date(timeIntervalSince1970: 1_795_324_748.5))
        #expect(Timestamp.date(from: "2026-11-22T05:19:08.123456789Z") == Date(timeIntervalSince1970: 1_795_324_748.123))
        for bad in [
            "2023-02-29T00:00:00.000Z", "2026-13-01T00:00:00Z", "2026-11-22 05:19:08Z", "yesterday", "", "2026-11-22T05:19:08.123",
            // Impossible times with an offset are refused too, never rolled over into the next day or month.
            "2026-02-30T10:00:00+01:00", "2026-11-22T24:00:00+00:00", "2026-11-22T05:19:60Z", "2026-11-22T05:19:08+24:00",
            "2026-11-22T05:19:08+02:60", "2026-11-22T05:19:08.Z", "2026-11-22T05:19:08.1234567890Z", "+12026-11-22T05:19:08Z",
            // An offset past ±23:59 (RFC 3339's limit), or one that moves the time out of the years 0000 to 9999, which could not be written back.
            "2026-11-22T05:19:08-24:00", "0000-01-01T00:30:00+01:00", "9999-12-31T23:30:00-01:00",
        ] {
            #expect(Timestamp.date(from: bad) == nil, "\(bad)")
        }
    }
}
