import Foundation
import IntakeClient
import IntakeCore
import IntakeStore
import Testing

@testable import IntakeFieldwork

struct FieldworkSessionTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-fieldwork-\(UUID().uuidString)")
    let questionnaire: Questionnaire
    let store: LocalStore

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        questionnaire = try QuestionnaireLoader.load(directory: root.appendingPathComponent("Questionnaires/refugee-health"))
        store = try LocalStore(directory: directory)
    }

    func session(_ io: ScriptedIO, interactive: Bool = true) -> FillSession {
        FillSession(questionnaire: questionnaire, store: store, client: nil, io: io, interactive: interactive, collector: "amir")
    }

    func saveDraft(family: String, given: String) throws -> Draft {
        let draft = Draft(
            response: PatientResponse(
                questionnaire: questionnaire.reference, patient: PatientIdentification(givenName: given, familyName: family),
                collector: "c",
                deviceId: "d"))
        try store.save(draft)
        return draft
    }

    @Test func withoutDraftsFillStartsANewRecordByTheCollector() throws {
        let draft = try #require(try session(ScriptedIO()).chooseDraft(resume: false, draftId: nil))
        #expect(draft.response.collector == "amir" && draft.response.patient.familyName.isEmpty)
        #expect(draft.response.questionnaire == questionnaire.reference)
    }

    @Test func aRecordForARegistryPatientStartsWithTheirSectionFilledAndPointsToThem() throws {
        var fill = session(ScriptedIO(), interactive: false)
        let id = UUID()
        fill.patient = RemotePatient(
            id: id.uuidString.lowercased(), givenName: "Amina", familyName: "Haddad", dateOfBirth: "1990-04-12", sex: "female",
            externalId: "UNHCR-1")
        let draft = try #require(try fill.chooseDraft(resume: false, draftId: nil))
        #expect(draft.response.patientId == id)
        #expect(
            draft.response.patient
                == PatientIdentification(
                    givenName: "Amina", familyName: "Haddad", dateOfBirth: LocalDate(iso: "1990-04-12"), sex: .female, externalId: "UNHCR-1"
                ))
        #expect(draft.cursor == QuestionPosition(section: 1, index: 1), "the form starts at the first question")
    }

    @Test func draftsAreListedByInitialsAndPickedByNumber() throws {
        _ = try saveDraft(family: "Haddad", given: "Amina")
        _ = try saveDraft(family: "Osman", given: "Yusuf")
        let io = ScriptedIO(["7", "x", "2"])
        let picked = try #require(try session(io).chooseDraft(resume: false, draftId: nil))
        let listed = try store.summaries()
        #expect(picked.response.id == listed[1].id)
        #expect(io.transcript.contains("Please type a number from 1 to 2, or press Enter."))
        #expect(io.transcript.contains("A. H.") && io.transcript.contains("Y. O."))
        #expect(!io.transcript.contains("Haddad") && !io.transcript.contains("Osman"))
    }

    @Test func enterAtTheListStartsANewRecordAndEndOfInputStartsNothing() throws {
        let saved = try saveDraft(family: "Haddad", given: "Amina")
        let fresh = try #require(try session(ScriptedIO([""])).chooseDraft(resume: false, draftId: nil))
        #expect(fresh.response.id != saved.response.id)
        #expect(try session(ScriptedIO()).chooseDraft(resume: false, draftId: nil) == nil)
    }

    @Test func resumeTakesTheOnlyDraftAndNeedsAnIdAmongSeveralWithoutATerminal() throws {
        #expect(throws: FieldworkError.self) { try session(ScriptedIO(), interactive: false).chooseDraft(resume: true, draftId: nil) }
        let only = try saveDraft(family: "Haddad", given: "Amina")
        #expect(try session(ScriptedIO(), interactive: false).chooseDraft(resume: true, draftId: nil)?.response.id == only.response.id)
        _ = try saveDraft(family: "Osman", given: "Yusuf")
        let error = #expect(throws: FieldworkError.self) {
            try session(ScriptedIO(), interactive: false).chooseDraft(resume: true, draftId: nil)
        }
        #expect(error?.description == "there are 2 drafts; name one: intake fill --resume <id> (ids from 'intake drafts list')")
        let prefix = String(only.response.id.uuidString.lowercased().prefix(8))
        #expect(try session(ScriptedIO(), interactive: false).chooseDraft(resume: true, draftId: prefix)?.response.id == only.response.id)
    }

    /// The person's language (the locale) starts new records in it; a draft resumed keeps its own.
    @Test func thePreferredLanguageStartsNewRecordsAndLeavesResumedDraftsAsTheyAre() async throws {
        let english = try saveDraft(family: "Haddad", given: "Amina")
        var resumed = session(ScriptedIO([":quit"]), interactive: false)
        resumed.preferredLanguage = "ar"
        _ = try await resumed.run(resume: true, draftId: String(english.response.id.uuidString.prefix(8)), language: nil)
        #expect(try store.draft(id: english.response.id)?.response.language == nil, "still English")

        let io = ScriptedIO(["ليلى", ":quit"])
        var fresh = session(io, interactive: false)
        fresh.preferredLanguage = "ar"
        _ = try await fresh.run(resume: false, draftId: nil, language: nil)
        let started = try #require(try store.summaries().first { $0.id != english.response.id })
        #expect(try store.draft(id: started.id)?.response.language == "ar")
        #expect(io.transcript.contains("── بيانات المريض ──"), "\(io.transcript)")
    }

    @Test func anUnknownTranslationIsRefusedBeforeAnythingStarts() async throws {
        let error = await #expect(throws: FieldworkError.self) {
            _ = try await session(ScriptedIO()).run(resume: false, draftId: nil, language: "fr")
        }
        #expect(error?.description == "the questionnaire has no 'fr' translation; choose one of en, ar")
        #expect(try store.summaries().isEmpty)
    }

    @Test func lookupAsksForCriteriaAndSkipsABadDateOfBirth() throws {
        let io = ScriptedIO(["  Haddad ", "", "1990-13-40", "CASE-1"])
        let lookup = LookupSession(store: store, client: nil, io: io, catalog: QuestionnaireCatalog(root: nil))
        let criteria = try #require(lookup.askCriteria())
        #expect(
            criteria.familyName == "Haddad" && criteria.givenName == nil && criteria.dateOfBirth == nil && criteria.externalId == "CASE-1")
        #expect(io.transcript.contains("(The date of birth was not YYYY-MM-DD and is left out.)"))
        #expect(
            LookupSession(store: store, client: nil, io: ScriptedIO(["", "", "", ""]), catalog: QuestionnaireCatalog(root: nil))
                .askCriteria() == nil)
    }

    @Test func lookupFindsDraftsOnThisMachineAndOpensThePickedOne() async throws {
        let saved = try saveDraft(family: "Haddad", given: "Amina")
        _ = try saveDraft(family: "Osman", given: "Yusuf")
        let finder = PatientFinder(store: store, client: nil)
        let found = try await finder.find(LookupCriteria(familyName: "hadd"))
        #expect(found.matches.map(\.id) == [saved.response.id])
        let io = ScriptedIO(["0", "1"])
        let lookup = LookupSession(store: store, client: nil, io: io, catalog: QuestionnaireCatalog(root: nil))
        #expect(lookup.choose(from: found.matches)?.id == saved.response.id)
        #expect(io.transcript.contains("Haddad, Amina"))
        #expect(io.transcript.contains("Please type a number from 1 to 1, or press Enter."))
        #expect(lookup.choose(from: []) == nil && io.transcript.hasSuffix("No patient matches."))
    }

    @Test func aRecordOfAVersionThisMachineLacksNeedsTheServer() async throws {
        var draft = try saveDraft(family: "Haddad", given: "Amina")
        draft.response.questionnaire = QuestionnaireReference(id: questionnaire.id, version: "not-here")
        let lookup = LookupSession(store: store, client: nil, io: ScriptedIO(), catalog: QuestionnaireCatalog(root: nil))
        await #expect(throws: FieldworkError.self) { _ = try await lookup.questionnaire(for: draft) }
    }

    @Test func progressIsABarOnATerminalAndATenthPerLineInAPipe() {
        let piped = Written()
        let display = ProgressDisplay(interactive: false) { piped.text += $0 }
        for done in 0...100 { display.show(done, of: 100) }
        display.finish()
        #expect(piped.text.split(separator: "\n").count == 11)
        #expect(piped.text.hasSuffix("progress: 100/100\n"))
        let terminal = Written()
        let bar = ProgressDisplay(interactive: true) { terminal.text += $0 }
        bar.show(15, of: 30)
        bar.finish()
        #expect(terminal.text == "\r[###############...............] 15/30\n")
    }

    final class Written: @unchecked Sendable {
        var text = ""
    }
}

/// An offline lookup matches names as the server does: case, accents and Arabic letter variants
/// do not count.
struct OfflineMatchingTests {
    @Test func arabicVariantsAndAccentsMatchAsOnTheServer() {
        let patient = PatientIdentification(givenName: "فاطمة", familyName: "الأحمد", dateOfBirth: nil, sex: .female, externalId: "٢٠٢٤-٧")
        #expect(PatientFinder.matches(patient, LookupCriteria(familyName: "الاحمد")))
        #expect(PatientFinder.matches(patient, LookupCriteria(givenName: "فاطمه")))
        #expect(PatientFinder.matches(patient, LookupCriteria(externalId: "2024-7")), "either digit set")
        #expect(!PatientFinder.matches(patient, LookupCriteria(familyName: "الحسن")))
        let latin = PatientIdentification(givenName: "Şahin", familyName: "Côté", dateOfBirth: nil, sex: .male, externalId: nil)
        #expect(
            PatientFinder.matches(latin, LookupCriteria(givenName: "sahin"))
                && PatientFinder.matches(latin, LookupCriteria(familyName: "COTE")))
        let spaced = PatientIdentification(givenName: "Ben  Osman", familyName: "X", dateOfBirth: nil, sex: .male, externalId: nil)
        #expect(PatientFinder.matches(spaced, LookupCriteria(givenName: "ben osman")), "spaces count as on the server")
    }

    /// A table holding an Arabic name keeps its columns on screen: each cell ends with a mark.
    @Test func aTableRowWithRightToLeftTextMarksEachCell() {
        #expect(TextTable.row(["1", "Haddad", "1990"], widths: [3, 8]) == "1   Haddad   1990", "Latin rows as before")
        let row = TextTable.row(["1", "الأحمد", "1990"], widths: [3, 8])
        #expect(row == "1\u{200E}   الأحمد\u{200E}   1990\u{200E}", "columns as wide as before")
        #expect(TextTable.row(["1", "abc"], widths: [3], rightToLeft: true) == "1\u{200F}   abc\u{200F}")
    }
}
