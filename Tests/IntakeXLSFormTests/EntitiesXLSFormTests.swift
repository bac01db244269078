import Foundation
import IntakeCore
import Testing

@testable import IntakeXLSForm

/// XLSForm's entities (ODK's case lists) both ways: an entities sheet and `save_to` cells become
/// `cases.txt`, an entity to update becomes a follow-up whose questions read `case.name`; Intake's
/// export writes them back for ODK's tools, and its case rules whole for Intake's import.
@Suite struct EntitiesXLSFormTests {
    static let questionnaires = Fixtures.root.appendingPathComponent("Questionnaires")

    @Test func anEntityCreatedByAFormOpensACase() throws {
        let result = try Fixtures.importing("entities-household.md")
        #expect(result.problems.isEmpty, "\(result.problems)")
        let q = try #require(result.questionnaire)
        let opening = try #require(q.cases.opens.first)
        #expect(q.cases.opens.count == 1 && opening.list == "households" && q.cases.follows == nil)
        #expect(opening.condition?.description == "needs_visit = \"yes\"", "\(String(describing: opening.condition))")
        #expect(opening.assignments.map(\.property) == ["size", "visit_on"])
        #expect(opening.assignments.map(\.value.description) == ["members", "next_visit"])
        #expect(result.leftOut.contains { $0.sheet == "entities" && $0.message.contains("label is not kept") })
    }

    @Test func anEntityUpdatedByAFormMakesAFollowUpThatReadsItsCase() throws {
        let result = try Fixtures.importing("entities-household-visit.md")
        #expect(result.problems.isEmpty, "\(result.problems)")
        let q = try #require(result.questionnaire)
        let follows = try #require(q.cases.follows)
        #expect(follows.list == "households" && follows.properties.map(\.name) == ["size"])
        #expect(follows.assignments.map(\.property) == ["size"] && follows.assignments.first?.value.description == "members")
        #expect(q.question(id: "household") == nil, "the question that picks the entity is not asked")
        #expect(q.question(id: "size_was")?.calculation?.description == "case.size")
        #expect(result.leftOut.contains { $0.message.contains("intake fill --case") })
    }

    @Test func whatEntitiesCannotSayIsRefusedWhereItIsWritten() throws {
        func importing(_ entities: String, survey extra: String = "") throws -> XLSFormImport {
            let text = """
                | survey |
                |        | type                                | name      | label     | save_to |
                |        | select_one_from_file households.csv | household | Household |         |
                |        | integer                             | members   | Members   | size    |
                \(extra)
                | settings |
                |          | form_title | form_id |
                |          | Visit      | visit   |
                | entities |
                \(entities)
                """
            let workbook = try XLSFormImporter.workbook(data: Data(text.utf8), fileName: "visit.md")
            return XLSFormImporter.importForm(workbook, fallbackId: "visit")
        }
        let updateIf = try importing(
            "|          | list_name  | entity_id    | update_if       |\n|          | households | ${household} | ${members} > 0  |")
        #expect(updateIf.problems.contains { $0.kind == .unsupported && $0.message.contains("'update_if' has no Intake equivalent") })
        let upsert = try importing(
            "|          | list_name  | entity_id    | create_if       |\n|          | households | ${household} | ${members} > 0  |")
        #expect(upsert.problems.contains { $0.kind == .unsupported && $0.message.contains("created or updated by one form") })
        let badName = try importing("|          | list_name  | label |\n|          | Households | 'x'   |")
        #expect(
            badName.problems.contains { $0.sheet == "entities" && $0.row == 2 && $0.message.contains("cannot name an Intake case list") },
            "\(badName.problems)")
        let noEntity = try importing(
            "|          | list_name  | label |\n|          | homes      | 'x'   |",
            survey: "|        | integer                             | other     | Other     | elsewhere#count |")
        #expect(
            noEntity.problems.contains { $0.sheet == "survey" && $0.message.contains("save_to") && $0.message.contains("names no entity") },
            "\(noEntity.problems)")
    }

    /// The bundled screening and follow-up go out as ODK's entities (which pyxform reads, see
    /// scripts/xlsform-oracle.py) and come back with the same case rules.
    @Test func theBundledCaseRulesComeBackFromTheirXLSForms() throws {
        for id in ["refugee-health", "follow-up"] {
            let folder = Self.questionnaires.appendingPathComponent(id)
            let original = try QuestionnaireLoader.load(directory: folder)
            let cases = try String(contentsOf: folder.appendingPathComponent(CaseRules.fileName), encoding: .utf8)
            let workbook = XLSFormExporter.workbook(original, casesText: cases)
            let entities = try #require(workbook.sheet("entities"), "\(id) has an entities sheet")
            let header = entities.rows[0].cells
            let row = entities.rows[1].cells
            #expect(row[header.firstIndex(of: "list_name")!] == "follow-up")
            let survey = try #require(workbook.sheet("survey"))
            let saveTo = try #require(survey.rows[0].cells.firstIndex(of: "save_to"))
            let saved = survey.rows.dropFirst().filter { $0[saveTo] != "" }.map { $0[1] + "→" + $0[saveTo] }
            if id == "follow-up" {
                #expect(row[header.firstIndex(of: "entity_id")!] == "${intake_case}")
                #expect(saved.contains("phq2_score→phq2") && saved.contains("self_harm→self_harm"), "\(saved)")
                let calculation = try #require(survey.rows[0].cells.firstIndex(of: "calculation"))
                #expect(survey.rows.contains { $0[calculation] == "instance('follow-up')/root/item[name=${intake_case}]/phq2" })
                // A yes/no property compares with 'yes', as a yes/no question does (true() would hold for "no" too).
                let relevant = try #require(survey.rows[0].cells.firstIndex(of: "relevant"))
                #expect(
                    survey.rows.contains {
                        $0[relevant].contains("instance('follow-up')/root/item[name=${intake_case}]/long_term_illness = 'yes'")
                    },
                    "\(survey.rows.map { $0[relevant] }.filter { $0.contains("instance") })")
            } else {
                #expect(row[header.firstIndex(of: "create_if")!].contains("${phq2_score} >= 3"))
                #expect(saved.contains("phq2_score→phq2"), "\(saved)")
            }
            let back = XLSFormImporter.importForm(workbook, fallbackId: id)
            #expect(back.problems.isEmpty, "\(id): \(back.problems)")
            let imported = try #require(back.questionnaire)
            #expect(imported.cases == original.cases, "\(id)'s case rules come back")
            #expect(imported.question(id: "intake_case") == nil)
        }
    }

    /// A follow-up reading a multiple-choice and a yes/no property: both written as ODK reads the
    /// entity's values, and read back as the same show-if; case lines written as any cases.txt may be.
    @Test func multipleChoiceAndYesNoPropertiesGoOutAsODKReadsThem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("follow-up-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.questionnaires.appendingPathComponent("follow-up"), to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = folder.appendingPathComponent(CaseRules.fileName)
        let cases = try String(contentsOf: rules, encoding: .utf8).replacingOccurrences(
            of: "property: visits integer 0..",
            with: "property: visits integer 0..\nProperty : sym multiple: a=A, b=B\nproperty: flag YesNo|identifying")
        try cases.write(to: rules, atomically: true, encoding: .utf8)
        let section = folder.appendingPathComponent("1-visit.txt")
        try
            (try String(contentsOf: section, encoding: .utf8)
            + "What was seen | id: seen | text | show if: case.sym = a and case.flag = yes\n").write(
                to: section, atomically: true, encoding: .utf8)
        let arabic = folder.appendingPathComponent("1-visit.ar.txt")
        try (try String(contentsOf: arabic, encoding: .utf8) + "ما الذي رُئي | id: seen\n").write(
            to: arabic, atomically: true, encoding: .utf8)
        let original = try QuestionnaireLoader.load(directory: folder)
        let workbook = XLSFormExporter.workbook(original, casesText: cases)
        let survey = try #require(workbook.sheet("survey"))
        let relevant = try #require(survey.rows[0].cells.firstIndex(of: "relevant"))
        let shown = try #require(survey.rows.first { $0[1] == "seen" })[relevant]
        #expect(shown.contains("selected(instance('follow-up')/root/item[name=${intake_case}]/sym, 'a')"), "\(shown)")
        #expect(shown.contains("instance('follow-up')/root/item[name=${intake_case}]/flag = 'yes'"), "\(shown)")
        let back = XLSFormImporter.importForm(workbook, fallbackId: "follow-up")
        #expect(back.problems.isEmpty, "\(back.problems)")
        let imported = try #require(back.questionnaire)
        #expect(imported.cases == original.cases)
        // The same condition (its columns in the text aside).
        #expect(
            String(describing: imported.question(id: "seen")?.showIf) == String(describing: original.question(id: "seen")?.showIf)
                && original.question(id: "seen")?.showIf != nil)
    }
}
