import Foundation
import IntakeCore
import Testing

@testable import IntakeExport

struct ExportPlanTests {
    @Test func columnsAreTheUnionOfEveryVersionInAStableOrder() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1, v2])
        let answers = plan.columns.filter { $0.questionKey != nil }.map(\.name)
        #expect(
            answers == [
                "cough", "cough_days", "smoker", "symptoms_fever", "symptoms_rash", "symptoms_cough", "weight", "meds_name", "meds_dose",
                "meds_unit", "visits", "notes", "s1_q8",
            ])
        #expect(plan.columns.first { $0.name == "visits" }?.type == .number, "integer in v1 and decimal in v2 widen to number")
        #expect(plan.columns.first { $0.name == "notes" }?.type == .string, "text in v1, yes/no in v2: one text column")
        #expect(plan.columns.first { $0.name == "symptoms_cough" }?.type == .indicator)
        // The same versions in the same order give the same columns.
        #expect(try ExportPlan(questionnaires: [v1, v2]).columns == plan.columns)
    }

    @Test func identifiersAreLeftOutUnlessAskedFor() throws {
        let (v1, _) = try Fixtures.versions()
        let names = try ExportPlan(questionnaires: [v1]).columns.map(\.name)
        for identifier in ["given_name", "family_name", "date_of_birth", "external_id"] { #expect(!names.contains(identifier)) }
        #expect(names.contains("patient_key") && names.contains("age_years") && names.contains("sex"))
        let full = try ExportPlan(questionnaires: [v1], options: ExportOptions(includeIdentifiers: true)).columns.map(\.name)
        for identifier in ["given_name", "family_name", "date_of_birth", "external_id"] { #expect(full.contains(identifier)) }
    }

    @Test func eachRecordFillsTheColumnsOfItsOwnVersion() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1, v2])
        let old = Fixtures.record(v1, [1: .yesNo(true), 2: .integer(20), 3: .choices(["rash"]), 4: .integer(70), 6: .integer(3)])
        let new = Fixtures.record(v2, [1: .yesNo(false), 3: .yesNo(true), 4: .choices(["cough"]), 6: .decimal(2.5), 7: .yesNo(true)])
        let a = try cells(plan, old), b = try cells(plan, new)
        #expect(a["cough"] == "1" && a["cough_days"] == "20" && a["weight"] == "70" && a["visits"] == "3")
        #expect(a["symptoms_fever"] == "0" && a["symptoms_rash"] == "1")
        #expect(a["symptoms_cough"] == "", "v1 had no 'cough' choice: not asked")
        #expect(a["smoker"] == "", "v1 had no smoker question: not asked")
        #expect(b["weight"] == "", "v2 dropped weight: not asked, the column stays")
        #expect(b["cough"] == "0" && b["smoker"] == "1" && b["symptoms_cough"] == "1" && b["symptoms_fever"] == "0")
        #expect(b["visits"] == "2.5" && b["notes"] == "1")
        #expect(a["questionnaire_version"] == v1.version && b["questionnaire_version"] == v2.version)
    }

    @Test func hiddenIsEmptyAndAskedButUnansweredIsTheCode() throws {
        let (v1, _) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1])
        let noCough = try cells(plan, Fixtures.record(v1, [1: .yesNo(false)]))
        #expect(noCough["cough_days"] == "", "hidden by show-if")
        #expect(noCough["weight"] == ".", "shown, not answered")
        #expect(noCough["symptoms_fever"] == "." && noCough["meds_dose"] == "." && noCough["notes"] == ".")
        let cough = try cells(plan, Fixtures.record(v1, [1: .yesNo(true)], status: .draft))
        #expect(cough["cough_days"] == ".")
        #expect(cough["status"] == "draft")
        let custom = try ExportPlan(questionnaires: [v1], options: ExportOptions(unansweredCode: "NA"))
        #expect(try cells(custom, Fixtures.record(v1, [1: .yesNo(false)]))["weight"] == "NA")
    }

    @Test func compoundAnswersFillOneColumnPerField() throws {
        let (v1, _) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1])
        let record = Fixtures.record(v1, [1: .yesNo(false), 5: .dictionary(["name": .text("Metformin, 500"), "unit": .choice("mg")])])
        let row = try cells(plan, record)
        #expect(row["meds_name"] == "Metformin, 500" && row["meds_unit"] == "mg")
        #expect(row["meds_dose"] == ".", "a field left empty in an answered compound question")
    }

    @Test func freeTextCanBeLeftOut() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1, v2], options: ExportOptions(dropFreeText: true))
        let names = plan.columns.map(\.name)
        #expect(!names.contains("notes"), "text in any version is left out")
        #expect(!names.contains("meds_name") && names.contains("meds_dose"))
        #expect(!names.contains("s1_q8"))
    }

    @Test func aQuestionIdThatClashesWithAPropertyGetsASuffix() throws {
        let questionnaire = try Fixtures.questionnaire("Sex at birth | id: sex | single: f=Female, m=Male\nStatus | id: status | text")
        let names = try ExportPlan(questionnaires: [questionnaire]).columns.map(\.name)
        #expect(names.filter { $0 == "sex" }.count == 1 && names.contains("sex_2") && names.contains("status_2"))
    }

    @Test func recordsOfAVersionTheExportLacksAreAnErrorThatSaysWhatToDo() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1])
        #expect {
            try plan.cells(for: Fixtures.item(Fixtures.record(v2, [1: .yesNo(true)])))
        } throws: { error in
            let text = "\(error)"
            return text.contains(v2.version) && text.contains("--questionnaire")
        }
    }

    @Test func versionsOfDifferentQuestionnairesCannotShareAnExport() throws {
        let (v1, _) = try Fixtures.versions()
        let other = try QuestionnaireLoader.load(
            QuestionnaireFiles(
                directory: "x",
                files: [
                    "manifest.txt": .init(path: "manifest.txt", bytes: Array("id: other\ntitle: O\nformat: 1\n".utf8)),
                    "1-a.txt": .init(path: "1-a.txt", bytes: Array("One".utf8)),
                ]))
        #expect(throws: ExportError.self) { try ExportPlan(questionnaires: [v1, other]) }
        #expect(throws: ExportError.self) { try ExportPlan(questionnaires: []) }
    }

    private func cells(_ plan: ExportPlan, _ record: PatientResponse) throws -> [String: String] {
        let values = try plan.cells(for: Fixtures.item(record))
        return Dictionary(uniqueKeysWithValues: zip(plan.columns.map(\.name), values))
    }
}
