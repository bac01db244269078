import Foundation
import IntakeCore
import Testing

/// What a translation leaves in the base language is listed (`intake questionnaire check` says
/// it), and the bundled questionnaires leave nothing so.
struct UntranslatedTextTests {
    @Test func aChoiceAHelpAndATitleATranslationLeavesOutAreListedWhereTheyBelong() throws {
        let manifest = "id: t\ntitle: Visit\ntitle.ar: زيارة\nformat: 1\nlanguages: en, ar\n"
        let base = """
            @title Visit
            Referred? | id: referral | single: no=Not needed, referred=Referred, not seen yet, seen=Seen
            Weight | decimal 0..300 | help: in kilograms
            Country | id: country | single from countries
            """
        let arabic = """
            @title زيارة
            هل أحيل؟ | id: referral | labels: no=لا حاجة, referred=أحيل ولم يُفحص, seen=فُحص
            الوزن
            البلد | id: country
            """
        let files = TestQuestionnaires.files(
            ["1-visit.txt": base, "1-visit.ar.txt": arabic], manifest: manifest,
            lists: ["countries.txt": "jo = Jordan\nsy = Syria\n", "countries.ar.txt": "jo = الأردن\n"])
        let questionnaire = try QuestionnaireLoader.load(files)
        let found = questionnaire.untranslated
        #expect(
            found.map(\.description) == [
                "q/1-visit.ar.txt: question 1.1 (referral): the label of choice 'not_seen_yet' (labels:) has no 'ar' text; the base language's is shown",
                "q/1-visit.ar.txt: question 1.2: the help has no 'ar' text; the base language's is shown",
                "countries.ar.txt: the label of choice 'sy' has no 'ar' text; the base language's is shown",
            ], "\(found)")
        #expect(found.allSatisfy { $0.language == "ar" })

        // Nothing is listed for a questionnaire of one language, or once the translation is whole.
        let whole = arabic.replacingOccurrences(of: "seen=فُحص", with: "seen=فُحص, not_seen_yet=لم يُفحص")
            .replacingOccurrences(of: "الوزن", with: "الوزن | help: بالكيلوغرام")
        let mended = TestQuestionnaires.files(
            ["1-visit.txt": base, "1-visit.ar.txt": whole], manifest: manifest,
            lists: ["countries.txt": "jo = Jordan\nsy = Syria\n", "countries.ar.txt": "jo = الأردن\nsy = سوريا\n"])
        #expect(try QuestionnaireLoader.load(mended).untranslated.isEmpty)
        #expect(try TestQuestionnaires.load(["1-visit.txt": base], lists: ["countries.txt": "jo = Jordan\n"]).untranslated.isEmpty)
    }

    /// The bundled screening and follow-up are whole in every language they name (the follow-up's
    /// referral once had a label cut at its comma, left in English in Arabic).
    @Test func theBundledQuestionnairesLeaveNothingUntranslated() throws {
        let root = TestQuestionnaires.repositoryRoot.appendingPathComponent("Questionnaires")
        let folders = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
        #expect(folders.contains("follow-up") && folders.contains("refugee-health"))
        for folder in folders {
            let questionnaire = try QuestionnaireLoader.load(directory: root.appendingPathComponent(folder))
            #expect(questionnaire.languages.count > 1, "\(folder)")
            #expect(questionnaire.untranslated.isEmpty, "\(folder): \(questionnaire.untranslated.map(\.description))")
        }
    }
}
