import Foundation
import IntakeCore
import Testing

@testable import IntakeXLSForm

/// `intake questionnaire export --xlsform`, and import ∘ export being the identity.
@Suite struct XLSFormExportTests {
    /// What a questionnaire says, question by question, without where it was written (lines,
    /// paths) or its version (a hash of the text, which an import writes anew).
    static func facets(_ q: Questionnaire) -> [String] {
        var lines = [q.id, "\(q.title)", "\(q.languages)"]
        for section in q.sections {
            lines.append("section \(section.number) \(section.name) \(section.title)")
            for question in section.questions { lines.append(facet(question)) }
        }
        return lines
    }

    static func facet(_ question: Question) -> String {
        let plain = XPath.Writing(questions: [], yesNo: [], multiple: [])
        var parts: [String] = [question.key, "\(question.text)", "\(question.type)", "\(question.isRequired)", "\(question.isIdentifying)"]
        parts.append(question.help.map { "\($0)" } ?? "-")
        parts.append(question.group.map { "\($0)" } ?? "-")
        parts.append(question.calculation?.description ?? "-")
        parts.append(question.constraint?.expression?.description ?? "-")
        parts.append(question.constraint?.pattern ?? "-")
        parts.append(question.constraint?.message.map { "\($0)" } ?? "-")
        parts.append(question.requiredIf?.description ?? "-")
        parts.append(question.defaultValue.map { XPath.write($0.expression, plain) } ?? "-")
        parts.append(question.alert.map { "\($0.condition) \($0.message)" } ?? "-")
        parts.append(question.choiceFilter.map { "\($0)" } ?? "-")
        parts.append(question.repeatCount?.description ?? "-")
        return parts.joined(separator: " · ")
    }

    @Test func theBundledQuestionnaireComesBackFromItsXLSForm() throws {
        let original = try Fixtures.bundled()
        let bytes = try XLSFormExporter.xlsx(original)
        let workbook = try XLSFormImporter.workbook(data: bytes, fileName: "refugee-health.xlsx")
        #expect(workbook == XLSFormExporter.workbook(original), "the .xlsx reads back as the workbook written")
        let result = XLSFormImporter.importForm(workbook, fallbackId: "x")
        #expect(result.problems.isEmpty, "\(result.problems)")
        let imported = try #require(result.questionnaire)
        let (a, b) = (Self.facets(original), Self.facets(imported))
        #expect(a.count == b.count)
        for (left, right) in zip(a, b) where left != right { Issue.record("differs:\n  \(left)\n  \(right)") }
        // Show-if conditions come back as expressions saying the same: the exports are equal.
        var again = XLSFormExporter.workbook(imported)
        var first = XLSFormExporter.workbook(original)
        again.sheets[2].rows[1].cells[2] = ""
        first.sheets[2].rows[1].cells[2] = ""  // the versions, hashes of different texts
        #expect(again == first)
    }

    @Test func everyFixtureComesBackFromItsOwnExport() throws {
        for name in ["household-visit.md", "clinic-intake.csv"] {
            let imported = try #require(try Fixtures.importing(name).questionnaire)
            let workbook = try XLSFormImporter.workbook(data: try XLSFormExporter.xlsx(imported), fileName: "x.xlsx")
            let again = try #require(XLSFormImporter.importForm(workbook, fallbackId: "x").questionnaire, "\(name)")
            #expect(Self.facets(again) == Self.facets(imported), "\(name)")
        }
    }

    @Test func theWorkbookHasTheColumnsODKsToolsRead() throws {
        let workbook = XLSFormExporter.workbook(try Fixtures.bundled())
        // The screening opens follow-up cases: ODK's entities say so on their own sheet.
        #expect(workbook.sheets.map(\.name) == ["survey", "choices", "settings", "entities"])
        let header = workbook.sheets[0].rows[0].cells
        #expect(header.starts(with: ["type", "name", "label::English (en)", "label::Arabic (ar)"]))
        #expect(header.contains("relevant") && header.contains("calculation") && header.contains("intake"))
        let settings = workbook.sheets[2]
        #expect(settings.rows[0].cells.starts(with: ["form_title", "form_id", "version", "default_language"]))
        #expect(settings.rows[1].cells[1] == "refugee-health")
    }

    @Test func expressionsReadBackAsWritten() throws {
        let names = XPath.Names(
            yesNo: ["smoker"], multiple: ["symptoms"], known: ["smoker", "symptoms", "weight", "height", "age", "dob", "name"])
        let writing = XPath.Writing(questions: names.known, yesNo: names.yesNo, multiple: names.multiple)
        for text in [
            "${weight} div (${height} div 100 * (${height} div 100))", "${smoker} = 'yes'", "selected(${symptoms}, 'fever')",
            "not(selected(${symptoms}, 'cough'))", "${age} >= 18 and ${age} < 65 or ${weight} != ''", "-${weight} + 3 mod 2",
            "if(${age} < 5, 'child', concat('adult ', ${name}))", "regex(${name}, '^(?:[A-Z]+)$')", "substr(${name}, 0, 3)",
            "date('2024-03-15') <= today()", "string-length(${name}) > 2", "round(${weight}, 1)", "${smoker} = ''", "\"it's\"",
        ] {
            let expression = try XPath.read(text, names: names)
            #expect(XPath.write(expression, writing) == text, "\(text) → \(expression)")
            // And Intake's own parser reads what the import writes.
            #expect(throws: Never.self) { _ = try Expression.parse(expression.description) }
        }
        // XPath's `=` on a multiple choice compares the whole answer: exactly that one choice.
        let exactly = try XPath.read("${symptoms} = 'fever'", names: names)
        #expect(exactly.description == "selected(symptoms, \"fever\") and count-selected(symptoms) = 1")
        #expect(XPath.write(try XPath.read("'cough' = ${symptoms}", names: names), writing).contains("count-selected(${symptoms}) = 1"))
        let deep = String(repeating: "(", count: 100) + "1" + String(repeating: ")", count: 100)
        #expect(throws: XPath.Failure.self) { _ = try XPath.read(deep, names: names) }
        for bad in [
            "${nope} = 1", "instance('x')/root/item", "jr:choice-name(${age}, '${age}')", "${age} = 1 = 2", "pulldata('a', 'b', 'c', 'd')",
            "'open",
        ] {
            #expect(throws: XPath.Failure.self, "\(bad)") { _ = try XPath.read(bad, names: names) }
        }
    }
}
