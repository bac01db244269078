import Foundation
import IntakeCore
import Testing

@testable import IntakeXLSForm

enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let forms = root.appendingPathComponent("Tests/XLSForms")

    static func bundled() throws -> Questionnaire {
        try QuestionnaireLoader.load(directory: root.appendingPathComponent("Questionnaires/refugee-health"))
    }

    static func importing(_ name: String) throws -> XLSFormImport {
        let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : forms.appendingPathComponent(name)
        let workbook = try XLSFormImporter.workbook(data: try Data(contentsOf: url), fileName: url.lastPathComponent)
        return XLSFormImporter.importForm(workbook, fallbackId: url.deletingPathExtension().lastPathComponent)
    }
}

/// XLSForms written for these tests, read into Intake questionnaires; what cannot be taken is
/// reported at its sheet, row and column.
@Suite struct XLSFormImportTests {
    @Test func aTwoLanguageFormWithEveryConstructImports() throws {
        let result = try Fixtures.importing("household-visit.md")
        #expect(result.problems.isEmpty, "\(result.problems)")
        let q = try #require(result.questionnaire)
        #expect(q.id == "household_visit" && q.title.base == "Household visit" && q.languages == ["en", "ar"])
        #expect(q.sections.map(\.name) == ["visit", "health", "members"])
        #expect(q.sections[0].title.translations["ar"] == "الزيارة")
        func question(_ id: String) throws -> Question { try #require(q.allQuestions.first { $0.id == id }, "\(id)") }

        let visitDate = try question("visit_date")
        #expect(visitDate.type == .date(.unbounded) && visitDate.isRequired && visitDate.defaultValue?.description == "today()")
        #expect(visitDate.constraint?.expression?.description == ". <= today()")
        #expect(visitDate.constraint?.message?.translations["ar"] == "لا يمكن أن تكون الزيارة في المستقبل")
        let district = try question("district")
        #expect(try district.type.choices?.listName == "district" && district.choiceFilter == (question("region")).position)
        #expect(district.type.choices?.choice(code: "irbid")?.filter == "north")
        #expect(district.type.choices?.choice(code: "karak")?.label.translations["ar"] == "الكرك")
        #expect(try (question("region")).type.choices?.listName == nil, "a list one question uses is written inline")
        #expect(try (question("home_location")).type == .geopoint && (question("home_location")).help?.translations["ar"] == "قف عند الباب")
        #expect(try (question("household_size")).defaultValue?.description == "1")

        let fever = try question("fever_days")
        #expect(fever.requiredIf?.description == "household_size > 2")
        #expect(relevance(fever, q) == "selected(${symptoms}, 'fever')")
        #expect(relevance(try question("temperature"), q) == "selected(${symptoms}, 'fever') and ${fever_days} != ''")
        #expect(try (question("clinic_visit")).type.choices?.listName == "yes_no", "a list used by several questions is shared")
        #expect(result.files["yes_no.ar.txt"]?.contains("yes = نعم") == true)
        #expect(try (question("card_photo")).type == .attachment(.photo) && (question("voice_note")).type == .attachment(.audio))
        #expect(try (question("referral_letter")).type == .attachment(.document))

        let member = try question("member")
        #expect(member.isRepeat && member.repeatCount?.description == "household_size - 1")
        #expect(try (question("member_age")).group == member.position)
        let isChild = try question("member_is_child")
        #expect(
            isChild.type == .decimal(.unbounded) && isChild.calculation?.description == "if(member_age < 18, 1, 0)"
                && isChild.text.base == "member_is_child")
        let vaccination = try question("vaccination")
        #expect(try vaccination.group == member.position && (question("vaccine_date")).group == vaccination.position)
        #expect(try (question("children")).calculation?.description == "sum(member_is_child)")
        let summary = try question("summary")
        #expect(
            summary.type == .note && summary.text.base == "This household has {children} children"
                && summary.text.translations["ar"] == "في هذه الأسرة {children} أطفال")
        #expect(try (question("consent_followup")).defaultValue?.description == "\"yes\"")

        #expect(result.leftOut.contains { $0.row == 2 && $0.message.contains("'start' is not asked") })
        #expect(result.files["manifest.txt"]?.contains("2026112501") == true, "the XLSForm's version is kept as a note")
    }

    @Test func aCSVFormWithOneLanguageAndAGroupInsideImports() throws {
        let result = try Fixtures.importing("clinic-intake.csv")
        #expect(result.problems.isEmpty, "\(result.problems)")
        let q = try #require(result.questionnaire)
        #expect(q.languages == ["en"] && q.sections.map(\.name) == ["questions", "screening", "questions-2"])
        #expect(q.sections[0].title.base == "Questions")
        func question(_ id: String) throws -> Question { try #require(q.allQuestions.first { $0.id == id }, "\(id)") }
        let code = try question("patient_code")
        #expect(code.constraint?.expression?.description == "matches(., \"[A-Z]{3}-[0-9]{4}\")")
        #expect(try (question("pregnant")).requiredIf?.description == "age >= 15")
        #expect(try (question("bmi")).calculation?.description == "round(weight / (height / 100 * (height / 100)), 1)")
        #expect(relevance(try question("bmi_note"), q) == "${bmi} != ''")
        #expect(
            try (question("risk_count")).type == .integer(.unbounded)
                && (question("risk_count")).calculation?.description == "count-selected(risks)")
        #expect(try (question("risk_summary")).calculation?.description == "concat(\"risks: \", risk_count)")
        #expect(relevance(try question("last_visit"), q) == "not(${age} < 1)")
        #expect(result.leftOut.contains { $0.row == 4 && $0.column == "J (appearance)" })
    }

    @Test func badFormsAreReportedAtTheirCellAndNothingIsHalfImported() throws {
        let expected = try String(contentsOf: Fixtures.forms.appendingPathComponent("bad/EXPECTED"), encoding: .utf8)
        var checked = 0
        for line in expected.split(separator: "\n") where !line.hasPrefix("#") {
            let (file, rest) = (String(line.prefix { $0 != ":" }), line.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces))
            let words = rest.split(separator: ";")[0].split(separator: " ").map(String.init)
            let (kind, sheet, row, column) = (words[0], words[1], Int(words[2])!, words[3])
            let result = try Fixtures.importing("bad/\(file)")
            #expect(!result.isComplete, "\(file) is not imported whole")
            let found = result.problems.contains {
                $0.kind.rawValue == kind && $0.sheet == sheet && $0.row == row && $0.column?.hasPrefix(column + " ") == true
            }
            #expect(found, "\(file): expected \(kind) at \(sheet) row \(row) column \(column); got \(result.problems)")
            #expect(
                result.problems.allSatisfy { !$0.message.isEmpty && $0.row != nil },
                "\(file): every problem has its row: \(result.problems)")
            if kind == "unsupported" {
                #expect(!result.hasErrors && result.questionnaire != nil, "\(file): a partial import is possible: \(result.problems)")
            }
            checked += 1
        }
        #expect(checked == 9)
    }

    @Test func aGroupsRelevanceGoesToItsQuestionsAndItsLabelIsANote() throws {
        let workbook = Workbook(sheets: [
            Sheet(
                name: "survey",
                cells: [
                    ["type", "name", "label", "relevant"],
                    ["begin group", "main", "Main", "${adult} = 'yes'"],
                    ["select_one yn", "adult", "Adult?", ""],
                    ["begin group", "work", "About work", "${adult} = 'yes'"],
                    ["text", "job", "Job", "${adult} != ''"],
                    ["end group", "", "", ""],
                    ["end group", "", "", ""],
                ]),
            Sheet(name: "choices", cells: [["list_name", "name", "label"], ["yn", "yes", "Yes"], ["yn", "no", "No"]]),
        ])
        let result = XLSFormImporter.importForm(workbook, fallbackId: "groups")
        // The outer group's relevance reads a question inside it: Intake says why at its cell.
        #expect(result.problems.contains { $0.row == 3 && $0.message.contains("adult") }, "\(result.problems)")

        let valid = Workbook(sheets: [
            Sheet(
                name: "survey",
                cells: [
                    ["type", "name", "label", "relevant"],
                    ["select_one yn", "adult", "Adult?", ""],
                    ["begin group", "work", "About work", "${adult} = 'yes'"],
                    ["text", "job", "Job", "${adult} != ''"],
                    ["end group", "", "", ""],
                ]),
            Sheet(name: "choices", cells: [["list_name", "name", "label"], ["yn", "yes", "Yes"], ["yn", "no", "No"]]),
        ])
        let imported = XLSFormImporter.importForm(valid, fallbackId: "groups")
        let q = try #require(imported.questionnaire, "\(imported.problems)")
        #expect(q.sections.map(\.name) == ["questions", "work"])
        let job = try #require(q.allQuestions.first { $0.id == "job" })
        #expect(relevance(job, q) == "${adult} = 'yes' and ${adult} != ''")
    }

    @Test func languagesAreTakenFromHeadersAndTheDefaultLanguage() throws {
        let workbook = Workbook(sheets: [
            Sheet(name: "survey", cells: [["type", "name", "label::French (fr)", "label::English (en)"], ["text", "q", "Nom", "Name"]]),
            Sheet(name: "settings", cells: [["default_language"], ["English (en)"]]),
        ])
        let q = try #require(XLSFormImporter.importForm(workbook, fallbackId: "langs").questionnaire)
        #expect(q.languages == ["en", "fr"] && q.allQuestions[0].text.base == "Name" && q.allQuestions[0].text.translations["fr"] == "Nom")

        let nameless = Workbook(sheets: [Sheet(name: "survey", cells: [["type", "name", "label::Klingon"], ["text", "q", "nuqneH"]])])
        let result = XLSFormImporter.importForm(nameless, fallbackId: "x")
        #expect(result.problems.contains { $0.message.contains("'Klingon' has no code") })
    }
}

/// A question's show-if as XLSForm's `relevant` says it.
func relevance(_ question: Question, _ questionnaire: Questionnaire) -> String? {
    XLSFormExporter.relevance(of: question, in: questionnaire)
}

typealias Expression = IntakeCore.Expression
