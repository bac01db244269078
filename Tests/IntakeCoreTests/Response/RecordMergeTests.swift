import Foundation
import Testing

@testable import IntakeCore

/// Three-way merges of two edits of one record.
struct RecordMergeTests {
    static let base = PatientResponse(
        id: UUID(), questionnaire: QuestionnaireReference(id: "q", version: "1"),
        patient: PatientIdentification(givenName: "Amina", familyName: "Haddad", externalId: "C-1"),
        answers: [1: [1: .integer(30), 2: .yesNo(false), 3: .text("cough")]], status: .draft, collector: "fatima", deviceId: "d")

    @Test func changesOfOneSideAreKeptAndOnlyAnswersBothChangedDifferentlyConflict() {
        var mine = Self.base
        mine[QuestionPosition(section: 1, index: 1)] = .integer(31)  // mine only
        mine[QuestionPosition(section: 1, index: 3)] = .text("fever")  // both, differently
        mine[QuestionPosition(section: 2, index: 1)] = .choice("a")  // added by me
        mine.patient.externalId = "C-2"  // both, the same
        var theirs = Self.base
        theirs[QuestionPosition(section: 1, index: 2)] = .yesNo(true)  // theirs only
        theirs[QuestionPosition(section: 1, index: 3)] = .text("rash")
        theirs.patient.externalId = "C-2"
        theirs.status = .complete
        let merge = RecordMerge(base: Self.base, mine: mine, theirs: theirs)
        #expect(merge.conflicts.map(\.field) == [.answer(QuestionPosition(section: 1, index: 3))])
        #expect(merge.conflicts.first?.mine == .answer(.text("fever")) && merge.conflicts.first?.theirs == .answer(.text("rash")))
        #expect(
            merge.appliedFromMine == [.answer(QuestionPosition(section: 1, index: 1)), .answer(QuestionPosition(section: 2, index: 1))])
        let merged = merge.merged
        #expect(
            merged[QuestionPosition(section: 1, index: 1)] == .integer(31) && merged[QuestionPosition(section: 1, index: 2)] == .yesNo(true)
        )
        #expect(merged[QuestionPosition(section: 1, index: 3)] == .text("rash"), "unresolved, the server's value stays")
        #expect(merged.patient.externalId == "C-2" && merged.status == .complete)
        #expect(merge.resolved { _ in .mine }[QuestionPosition(section: 1, index: 3)] == .text("fever"))
        #expect(merge.resolved { _ in .theirs } == merged)
    }

    @Test func anAnswerRemovedOnOneSideStaysRemovedAndRemovedAgainstChangedConflicts() {
        var mine = Self.base
        mine[QuestionPosition(section: 1, index: 2)] = nil
        mine[QuestionPosition(section: 1, index: 3)] = nil
        var theirs = Self.base
        theirs[QuestionPosition(section: 1, index: 3)] = .text("rash")
        let merge = RecordMerge(base: Self.base, mine: mine, theirs: theirs)
        #expect(merge.merged[QuestionPosition(section: 1, index: 2)] == nil, "my removal is kept")
        #expect(
            merge.conflicts.map(\.field) == [.answer(QuestionPosition(section: 1, index: 3))] && merge.conflicts.first?.mine == .answer(nil)
        )
    }

    @Test func identicalEditsAndUntouchedRecordsMergeToTheServersRecord() {
        #expect(RecordMerge(base: Self.base, mine: Self.base, theirs: Self.base).merged == Self.base)
        var both = Self.base
        both.patient.givenName = "Amira"
        let merge = RecordMerge(base: Self.base, mine: both, theirs: both)
        #expect(merge.conflicts.isEmpty && merge.appliedFromMine.isEmpty && merge.merged == both)
        var renamed = Self.base
        renamed.patient.givenName = "Amani"
        #expect(RecordMerge(base: Self.base, mine: renamed, theirs: both).conflicts.map(\.field) == [.patient(.givenName)])
    }
}
