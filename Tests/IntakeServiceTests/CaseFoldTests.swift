import Foundation
import IntakeCore
import Testing

@testable import IntakeService

/// The one rule of a case's state: visits apply in the order they were made, and visits that saw
/// neither the other and disagree are flagged, nothing lost.
struct CaseFoldTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func opened() -> StoredCase {
        StoredCase(
            id: UUID(), list: "follow-up", teamId: 1, patientId: nil,
            opening: CaseOpeningFacts(
                recordId: UUID(), at: start, collector: "a", properties: ["phq2": .integer(4), "reason": .choice("low_mood")],
                due: LocalDate(iso: "2027-01-14")),
            assignee: "a", updatedAt: start)
    }

    static func visit(hours: Double, base: Int, _ properties: [String: Answer], due: String? = nil, closes: Bool = false) -> CaseVisit {
        CaseVisit(
            recordId: UUID(), at: start.addingTimeInterval(hours * 3600), collector: "a", baseRevision: base, arrivalRevision: 0,
            properties: properties, due: due.flatMap(LocalDate.init(iso:)), closes: closes)
    }

    @Test func visitsApplyInTheOrderTheyWereMadeNotTheOrderTheyArrived() {
        var state = CaseFold.folded(Self.opened())
        #expect(state.properties["phq2"] == .integer(4) && state.revision == 1 && state.status == .open)
        let later = Self.visit(hours: 48, base: 1, ["phq2": .integer(1)], closes: true)
        let earlier = Self.visit(
            hours: 24, base: 1, ["phq2": .integer(3), "last_visit": .date(LocalDate(iso: "2027-01-02")!)], due: "2027-01-20")
        // The later visit arrives first, then the earlier one (flushed a day late).
        state = CaseFold.recording(later, in: state, at: Self.start)
        state = CaseFold.recording(earlier, in: state, at: Self.start)
        #expect(state.revision == 3)
        #expect(state.properties["phq2"] == .integer(1), "the latest visit by its time stands")
        #expect(state.properties["last_visit"] == .date(LocalDate(iso: "2027-01-02")!), "what only the earlier visit set stays")
        #expect(state.properties["reason"] == .choice("low_mood"), "what no visit set keeps the opening's value")
        #expect(state.due == LocalDate(iso: "2027-01-20"))
        #expect(state.status == .closed, "the latest visit closed it")
        // Both made from revision 1: they saw neither the other, and disagree on phq2 and on closing.
        #expect(state.conflicts.map(\.property) == ["phq2", "status"])
        #expect(state.conflicts[0].recordIds == [earlier.recordId, later.recordId])
        #expect(state.visits.count == 2)
    }

    @Test func aVisitMadeAfterAnotherArrivedSawItAndConflictsWithNothing() {
        var state = CaseFold.folded(Self.opened())
        let first = Self.visit(hours: 24, base: 1, ["phq2": .integer(3)])
        state = CaseFold.recording(first, in: state, at: Self.start)
        // Made from revision 2, which holds the first visit.
        let second = Self.visit(hours: 48, base: 2, ["phq2": .integer(2)])
        state = CaseFold.recording(second, in: state, at: Self.start)
        #expect(state.conflicts.isEmpty && state.properties["phq2"] == .integer(2) && state.revision == 3)
        // Two visits that agree are no conflict either.
        let agreeing = Self.visit(hours: 49, base: 2, ["phq2": .integer(2)])
        state = CaseFold.recording(agreeing, in: state, at: Self.start)
        #expect(state.conflicts.isEmpty)
    }

    @Test func aVisitSentAgainKeepsItsArrivalAndIsNotCountedTwice() {
        var state = CaseFold.folded(Self.opened())
        var visit = Self.visit(hours: 24, base: 1, ["phq2": .integer(3)])
        state = CaseFold.recording(visit, in: state, at: Self.start)
        state = CaseFold.recording(visit, in: state, at: Self.start)
        #expect(state.visits.count == 1 && state.revision == 2)
        // Edited: the new values replace the visit's, at its place.
        visit.properties["phq2"] = .integer(5)
        state = CaseFold.recording(visit, in: state, at: Self.start)
        #expect(state.visits.count == 1 && state.revision == 2 && state.properties["phq2"] == .integer(5))
    }

    @Test func theBodyKeepsEverythingTheFoldNeeds() throws {
        var state = CaseFold.folded(Self.opened())
        state = CaseFold.recording(
            Self.visit(hours: 24, base: 1, ["phq2": .integer(3), "note": .text("نص عربي")], due: "2027-02-01"), in: state, at: Self.start)
        state = CaseFold.recording(Self.visit(hours: 25, base: 1, ["phq2": .integer(2)], closes: true), in: state, at: Self.start)
        let body = CaseBody.encode(state)
        var read = state
        read.visits = []
        read.conflicts = []
        read.properties = [:]
        read.opening = CaseOpeningFacts(recordId: UUID(), at: Self.start, collector: "", properties: [:], due: nil)
        try CaseBody.decode(body, into: &read)
        #expect(read == state)
        #expect(CaseFold.folded(read) == state)
    }

    @Test func aCoordinatorsClosingTakesItsPlaceAmongTheVisitsByItsTime() {
        var state = CaseFold.folded(Self.opened())
        state = CaseFold.recording(Self.visit(hours: 24, base: 1, ["phq2": .integer(3)]), in: state, at: Self.start)
        state.statusChanges.append(CaseStatusChange(at: Self.start.addingTimeInterval(30 * 3600), closed: true, by: "lead"))
        state = CaseFold.folded(state)
        #expect(state.status == .closed)
        // A visit made before the closing, arriving after it, does not open the case again.
        state = CaseFold.recording(Self.visit(hours: 20, base: 1, ["phq2": .integer(2)]), in: state, at: Self.start)
        #expect(state.status == .closed)
        // One made after it does: the latest word stands.
        state = CaseFold.recording(Self.visit(hours: 40, base: 3, ["phq2": .integer(1)]), in: state, at: Self.start)
        #expect(state.status == .open && state.properties["phq2"] == .integer(1))
        // Kept in the body.
        var read = state
        read.statusChanges = []
        read.visits = []
        try? CaseBody.decode(CaseBody.encode(state), into: &read)
        #expect(read.statusChanges == state.statusChanges && CaseFold.folded(read) == state)
    }

    @Test func aCaseWhoseOpeningRecordWasDeletedIsClosedAndKeepsNoProperties() {
        var state = CaseFold.folded(Self.opened())
        state = CaseFold.recording(Self.visit(hours: 24, base: 1, ["phq2": .integer(3)]), in: state, at: Self.start)
        state.erased = true
        state = CaseFold.folded(state)
        #expect(state.status == .closed && state.properties.isEmpty && state.due == nil)
    }

    @Test func visitsMadeOneAfterTheOtherOnOneMachineSawEachOther() {
        var state = CaseFold.folded(Self.opened())
        var first = Self.visit(hours: 24, base: 1, ["phq2": .integer(3)])
        first.deviceId = "machine-1"
        var second = Self.visit(hours: 48, base: 1, ["phq2": .integer(1)])
        second.deviceId = "machine-1"
        var elsewhere = Self.visit(hours: 30, base: 1, ["phq2": .integer(5)])
        elsewhere.deviceId = "machine-2"
        state = CaseFold.recording(first, in: state, at: Self.start)
        state = CaseFold.recording(second, in: state, at: Self.start)
        #expect(state.conflicts.isEmpty && state.properties["phq2"] == .integer(1))
        // Another machine's visit from the same revision saw neither.
        state = CaseFold.recording(elsewhere, in: state, at: Self.start)
        #expect(state.conflicts.map(\.property) == ["phq2"])
        #expect(Set(state.conflicts[0].recordIds) == Set([first.recordId, second.recordId, elsewhere.recordId]))
    }
    @Test func aWithdrawnVisitSetsNothingClosesNothingAndKeepsItsRevision() {
        var state = CaseFold.folded(Self.opened())
        let one = Self.visit(hours: 24, base: 1, ["phq2": .integer(1)], closes: true)
        let two = Self.visit(hours: 30, base: 1, ["phq2": .integer(6)])
        state = CaseFold.recording(one, in: state, at: Self.start)
        state = CaseFold.recording(two, in: state, at: Self.start)
        #expect(state.revision == 3 && state.conflicts.map(\.property) == ["phq2", "status"])
        var withdrawn = state
        withdrawn.visits[1].withdrawn = true
        withdrawn.visits[1].properties = [:]
        withdrawn = CaseFold.folded(withdrawn)
        #expect(withdrawn.revision == 3, "the revision does not go back")
        #expect(withdrawn.properties["phq2"] == .integer(1) && withdrawn.status == .closed && withdrawn.conflicts.isEmpty)
        var body = withdrawn
        CaseBodyCheck.roundTrip(&body)
        #expect(body.visits.map(\.withdrawn) == [false, true])
    }
}

/// A case read back from its body.
enum CaseBodyCheck {
    static func roundTrip(_ stored: inout StoredCase) {
        var read = stored
        read.visits = []
        read.conflicts = []
        read.statusChanges = []
        try? CaseBody.decode(CaseBody.encode(stored), into: &read)
        stored = read
    }
}
