import Testing

@testable import IntakeCore

struct LocalDateTests {
    @Test func parsesOnlyRealCalendarDays() {
        #expect(LocalDate(iso: "2024-02-29") != nil)
        #expect(LocalDate(iso: "2023-02-29") == nil)
        #expect(LocalDate(iso: "2024-13-01") == nil)
        #expect(LocalDate(iso: "2024-1-01") == nil)
        #expect(LocalDate(iso: "٢٠٢٤-٠١-٠١") == nil)
    }

    @Test func ordinalRoundTrips() {
        for text in ["0001-01-01", "1999-12-31", "2000-02-29", "2026-11-22"] {
            let date = LocalDate(iso: text)!
            #expect(LocalDate(ordinal: date.ordinal) == date)
        }
        #expect(LocalDate(iso: "2024-03-01")!.ordinal - LocalDate(iso: "2024-02-28")!.ordinal == 2)
    }
}
