import Foundation
import IntakeCore
import Testing

@testable import IntakeXLSForm

/// Forms as the field writes them, read as pyxform reads them: the spellings, the old binary
/// workbook, and what Intake's own language cannot hold left out only by a partial import.
@Suite struct FieldFormTests {
    static let corpus = Fixtures.forms.appendingPathComponent("corpus/pyxform/forms")

    func importing(_ text: String, id: String = "field") throws -> XLSFormImport {
        XLSFormImporter.importForm(try XLSFormImporter.workbook(data: Data(text.utf8), fileName: "\(id).md"), fallbackId: id)
    }

    @Test func pyxformsOwnLoopFormReadsAlikeFromXLSXLSXCSVAndMarkdown() throws {
        // pyxform's examples hold one form in four files; an .xls is read by its BIFF records.
        for stem in ["tests__example_xls__loop", "tests__example_xls__specify_other"] {
            var seen: [String: [String: String]] = [:]
            for ext in ["xls", "xlsx", "csv", "md"] {
                let url = Self.corpus.appendingPathComponent("\(stem).\(ext)")
                guard FileManager.default.fileExists(atPath: url.path) else { continue }
                let result = try Fixtures.importing(url.path)
                #expect(result.questionnaire != nil, "\(stem).\(ext): \(result.problems)")
                seen[ext] = result.files
            }
            #expect(seen.count >= 3 && seen["xls"] != nil, "\(stem): \(seen.keys.sorted())")
            let first = try #require(seen["xls"])
            for (ext, files) in seen { #expect(files == first, "\(stem).\(ext) reads otherwise than the .xls") }
        }
    }

    @Test func aLoopIsAGroupPerChoiceAndOrOtherAsksWhatTheOtherIs() throws {
        let loop = try Fixtures.importing(Self.corpus.appendingPathComponent("tests__example_xls__loop.xlsx").path)
        let questionnaire = try #require(loop.questionnaire)
        let ids = questionnaire.allQuestions.compactMap(\.id)
        // pyxform's loop over toilet types asks `number` once per type.
        #expect(ids.contains("number_pit_latrine_with_slab") && ids.contains("number_bucket_system"), "\(ids)")
        #expect(loop.leftOut.contains { $0.message.contains("is asked once per choice") })
        let other = try importing(
            """
            | survey |
            | | type | name | label |
            | | select_one fruit or_other | fruit | Fruit |
            | | select one from fruit or specify other | again | Again |
            | choices |
            | | list_name | name | label |
            | | fruit | apple | Apple |
            """)
        let q = try #require(other.questionnaire, "\(other.problems)")
        #expect(try #require(q.allQuestions.first { $0.id == "fruit" }).type.choices?.choice(code: "other") != nil)
        let specify = try #require(q.allQuestions.first { $0.id == "fruit_other" })
        #expect(specify.text.base == "Specify other." && specify.showIf.map { "\($0)" }?.contains("fruit") == true)
        #expect(q.allQuestions.contains { $0.id == "again_other" })
    }

    @Test func theFieldsSpellingsImportAndWhatIntakeCannotHoldIsLeftOutOnlyByAPartialImport() throws {
        let form = """
            | survey |
            | | type | name | label | label::English (en) | hint | relevant | default |
            | | start | start | | | | | |
            | | select one from yn | consent | | Consent? | | | |
            | | begin group | hh | Household | | | | |
            | | integer | size | Size | | | | |
            | | text | head-name | Head's name | | | | |
            | | end group | | | | | | |
            | | begin group | visit | Visit | | | | |
            | | integer | size | Size again | | | ${head-name} != '' | |
            | | note | | Thanks ${head-name} | | | | |
            | | text | tip | | | only a hint | | |
            | | hidden | hid | | | | | 5 |
            | | text | early | Early | | | ${late} != '' | |
            | | text | late | Late | | | | |
            | | text | when | When | | | ${start} != '' | |
            | | end group | | | | | | |
            | choices |
            | | list_name | name | label |
            | | yn | yes | Yes |
            | | yn | no | No |
            """
        let result = try importing(form)
        // What pyxform takes and Intake's language cannot hold: unsupported, at its cell, never an error.
        #expect(!result.problems.contains { $0.kind == .error }, "\(result.problems)")
        #expect(
            result.problems.contains {
                $0.kind == .unsupported && $0.row == 13 && $0.column?.contains("relevant") == true && $0.message.contains("late")
            })
        #expect(result.problems.contains { $0.kind == .unsupported && $0.row == 15 && $0.message.contains("${start}") })
        #expect(result.leftOut.contains { $0.row == 6 && $0.message.contains("Intake names it 'head_name'") })
        #expect(result.leftOut.contains { $0.row == 9 && $0.message.contains("'visit_size'") })
        // A partial import leaves out the question the loader refuses and the condition it cannot read.
        let q = try #require(result.questionnaire)
        let ids = q.allQuestions.compactMap(\.id)
        #expect(ids == ["consent", "size", "head_name", "visit_size", "note_row10", "tip", "hid", "late", "when"], "\(ids)")
        #expect(q.allQuestions.first { $0.id == "when" }?.showIf == nil)
        #expect(result.files.values.contains { $0.contains("Size again | id: visit_size | integer | show if: head_name is answered") })
        #expect(q.allQuestions.first { $0.id == "tip" }?.text.base == "only a hint")
        #expect(q.allQuestions.first { $0.id == "consent" }?.text.base == "Consent?")
        #expect(q.allQuestions.first { $0.id == "note_row10" }?.text.base == "Thanks {head_name}")
    }

    @Test func typesArePyxformsSpellingsCaseIncluded() throws {
        #expect(FormReader.readType("select all that apply from colors").word == "select_multiple")
        #expect(FormReader.readType("select all that apply from colors").list == "colors")
        #expect(FormReader.readType("select one from file towns.csv").word == "select_one_from_file")
        #expect(FormReader.readType("gps").word == "geopoint" && FormReader.readType("imei").word == "deviceid")
        #expect(FormReader.readType("begin looped group").word == "begin_repeat" && FormReader.readType("end_repeat").word == "end_repeat")
        #expect(FormReader.readType("begin loop over animals") == ("begin_loop", "animals", false))
        let wrongCase = try importing("| survey |\n| | type | name | label |\n| | Text | a | A |\n")
        #expect(
            wrongCase.problems.contains {
                $0.kind == .error && $0.message == "'Text' is not a question type" && $0.hint?.contains("lower case") == true
            })
    }

    @Test func rowsAfterMoreThanSixtyEmptyRowsAreNotReadAsPyxformDoesNot() throws {
        var cells = [["type", "name", "label"], ["text", "a", "A"]]
        cells += Array(repeating: ["", "", ""], count: 61)
        cells.append(["text", "", ""])  // pyxform never reads this row (it would be a mistake)
        let result = XLSFormImporter.importForm(Workbook(sheets: [Sheet(name: "survey", cells: cells)]), fallbackId: "f")
        #expect(result.isComplete, "\(result.problems)")
        #expect(result.leftOut.contains { $0.row == 64 && $0.message.contains("more than 60 empty rows") })
    }

    @Test func anExportKeepsTheFormsNameOfALanguageAndItsCalculateRows() throws {
        let result = try importing(
            """
            | survey |
            | | type | name | label::Français (fr) | label::English (en) | calculation |
            | | integer | age | Âge | Age | |
            | | calculate | twice | Deux fois | Twice | ${age} * 2 |
            """)
        let questionnaire = try #require(result.questionnaire, "\(result.problems)")
        #expect(questionnaire.languageNames == ["fr": "Français"] && questionnaire.languages == ["fr", "en"])
        #expect(result.leftOut.contains { $0.row == 3 && $0.message.contains("label of a calculate row") })
        let exported = try XLSFormImporter.workbook(data: try XLSFormExporter.xlsx(questionnaire), fileName: "back.xlsx")
        let header = try #require(exported.sheet("survey")?.rows.first?.cells)
        #expect(header.contains("label::Français (fr)") && header.contains("label::English (en)"), "\(header)")
        let twice = try #require(exported.sheet("survey")?.rows.first { $0.cells.contains("twice") })
        #expect(twice.cells.first == "calculate")
        let again = XLSFormImporter.importForm(exported, fallbackId: "back")
        #expect(again.questionnaire?.languageNames == ["fr": "Français"], "\(again.problems)")
    }

    @Test func aTimeIsTextWithAPatternABarcodeTextAndAnAcknowledgementAChoiceOfOK() throws {
        let result = try importing(
            """
            | survey |
            | | type | name | label |
            | | time | arrival | Arrival |
            | | dateTime | seen | Seen at |
            | | barcode | vial | Vial |
            | | acknowledge | read | I read the consent |
            """)
        let q = try #require(result.questionnaire, "\(result.problems)")
        #expect(result.problems.isEmpty && result.leftOut.filter { $0.column?.contains("type") == true }.count == 4)
        let arrival = try #require(q.allQuestions.first { $0.id == "arrival" })
        #expect(arrival.type == .text && arrival.constraint?.pattern == "([01][0-9]|2[0-3]):[0-5][0-9]")
        let pattern = try NSRegularExpression(pattern: "^(?:" + (arrival.constraint?.pattern ?? "") + ")$")
        for (text, good) in [("14:30", true), ("09:05", true), ("24:00", false), ("9:05", false)] {
            #expect((pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil) == good, "\(text)")
        }
        #expect(q.allQuestions.first { $0.id == "seen" }?.constraint?.pattern?.contains("[ T]") == true)
        #expect(q.allQuestions.first { $0.id == "vial" }?.type == .text)
        #expect(q.allQuestions.first { $0.id == "read" }?.type.choices?.choices.map(\.code) == ["OK"])
    }

    @Test func aChoiceNameIntakeCannotCodeIsCodedAndEveryComparisonFollows() throws {
        let result = try importing(
            """
            | survey |
            | | type | name | label | relevant | default |
            | | select_one hours | h | Hours | | 24/7 |
            | | text | why | Why? | ${h} = '24/7' | |
            | | select_multiple w | w | Words | | |
            | | text | more | More | selected(${w}, 'père') | |
            | choices |
            | | list_name | name | label |
            | | hours | 24/7 | All day |
            | | hours | day | Day |
            | | w | père | Père |
            | | w | red’s | Red |
            """)
        let q = try #require(result.questionnaire, "\(result.problems)")
        #expect(result.problems.isEmpty && result.leftOut.filter { $0.sheet == "choices" }.count == 3)
        #expect(q.allQuestions.first { $0.id == "h" }?.type.choices?.choices.map(\.code) == ["24_7", "day"])
        #expect(q.allQuestions.first { $0.id == "w" }?.type.choices?.choices.map(\.code) == ["pere", "red_s"])
        let section = try #require(result.files.first { $0.key.hasPrefix("1-") }?.value)
        #expect(
            section.contains("default: \"24_7\"") && section.contains("show if: h = \"24_7\"")
                && section.contains("show if: selected(w, \"pere\")"), "\(section)")
    }

    @Test func externalChoicesAndAChoicesFileBesideTheFormAreListsOfTheQuestionnaire() throws {
        let form = """
            | survey |
            | | type | name | label | choice_filter |
            | | select_one_from_file villes.csv | ville | Ville | |
            | | select_one region | region | Région | |
            | | select_one_external district | district | District | region=${region} |
            | | select_one_from_file absent.csv | x | X | |
            | | select_one_from_file ../secret.csv | y | Y | |
            | choices |
            | | list_name | name | label |
            | | region | nord | Nord |
            | | region | sud | Sud |
            | external_choices |
            | | list_name | name | label | region |
            | | district | korhogo | Korhogo | nord |
            | | district | san_pedro | San Pedro | sud |
            """
        var asked: [String] = []
        let workbook = try XLSFormImporter.workbook(data: Data(form.utf8), fileName: "f.md")
        let result = XLSFormImporter.importForm(workbook, fallbackId: "f") { name in
            asked.append(name)
            return name == "villes.csv" ? Data("name,label\nabidjan,Abidjan\nbouake,Bouaké\n\"man\",\"Man, Tonkpi\"\n".utf8) : nil
        }
        #expect(!asked.contains("../secret.csv"), "a name with a path is never read: \(asked)")
        #expect(result.problems.map(\.row) == [5, 6] && result.problems.allSatisfy { $0.kind == .unsupported }, "\(result.problems)")
        let q = try #require(result.questionnaire)
        #expect(q.allQuestions.first { $0.id == "ville" }?.type.choices?.choices.map(\.label.base) == ["Abidjan", "Bouaké", "Man, Tonkpi"])
        let district = try #require(q.allQuestions.first { $0.id == "district" })
        #expect(district.type.choices?.choice(code: "korhogo")?.filter == "nord" && district.choiceFilter != nil)
        #expect(result.files["villes.txt"] != nil && result.files["district.txt"] != nil)
    }
}
