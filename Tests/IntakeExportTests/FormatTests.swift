import Foundation
import IntakeCore
import Testing

@testable import IntakeExport

struct FormatTests {
    @Test func csvQuotesCommasQuotesAndLineBreaksAsRFC4180Says() throws {
        let fields = ["plain", "a, b", "say \"hi\"", "two\nlines", "cr\r\nlf", "", "عربي"]
        let line = CSV.line(fields)
        #expect(line == "plain,\"a, b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\nlf\",,عربي\r\n")
        #expect(try CSVReader.rows(line) == [fields])
    }

    @Test func aQuoteThatACombiningMarkJoinsIsStillDoubled() throws {
        // U+0301 after a quote, an Arabic fatha after one, a joiner: one Character each with the quote.
        let fields = ["he said \"\u{301}hi\"", "\"\u{64E}", "a\"\u{200D}b"]
        let line = CSV.line(fields)
        #expect(line == "\"he said \"\"\u{301}hi\"\"\",\"\"\"\u{64E}\",\"a\"\"\u{200D}b\"\r\n")
        var bytes: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            CSV.append(field, to: &bytes)
        }
        bytes += [13, 10]
        #expect(bytes == Array(line.utf8))
        #expect(try CSVReader.rows(line) == [fields])
    }

    @Test func cellsASpreadsheetWouldRunAreWrittenAsTextAndTheMarkerStaysUnambiguous() throws {
        let (v1, _) = try Fixtures.versions()
        let texts = [
            "=HYPERLINK(\"http://x\")", "+1+2", "-2-3", "@SUM(A1)", "\tindent", "\rcr", ".", "'quoted", "-3", "+1.5", "2.5e-05", "plain",
        ]
        for raw in [false, true] {
            let plan = try ExportPlan(questionnaires: [v1], options: ExportOptions(rawCells: raw))
            let formatter = WideCSVFormatter(plan: plan)
            var text = formatter.header()
            for value in texts { text += try formatter.row(Fixtures.item(Fixtures.record(v1, [7: .text(value)]))) }
            text += try formatter.row(Fixtures.item(Fixtures.record(v1, [1: .yesNo(true)])))
            let cells = try CSVReader.table(text).map { $0["notes"] ?? "" }
            if raw {
                #expect(Array(cells.prefix(texts.count)) == texts)
            } else {
                #expect(
                    Array(cells.prefix(texts.count)) == [
                        "'=HYPERLINK(\"http://x\")", "'+1+2", "'-2-3", "'@SUM(A1)", "'\tindent", "'\rcr", "'.", "''quoted", "-3", "+1.5",
                        "2.5e-05",
                        "plain",
                    ])
                // Removing one leading ' gives every value back; a bare marker is never an answer.
                #expect(cells.prefix(texts.count).map { $0.hasPrefix("'") ? String($0.dropFirst()) : $0 } == texts)
            }
            #expect(cells.last == ".")
            let long = LongCSVFormatter(plan: plan)
            let row = try long.row(Fixtures.item(Fixtures.record(v1, [7: .text("=1+1")])))
            let value = try #require(LongCSVFormatter.columns.firstIndex(of: "value"))
            #expect(try CSVReader.rows(row).first?[value] == (raw ? "=1+1" : "'=1+1"))
        }
    }

    @Test func wideCSVParsesStrictlyWithOneRowPerRecord() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1, v2])
        let formatter = WideCSVFormatter(plan: plan)
        var text = formatter.header()
        let records = [
            Fixtures.record(v1, [1: .yesNo(true), 2: .integer(3), 7: .text("line one\nline \"two\", end")]),
            Fixtures.record(v2, [1: .yesNo(false), 7: .yesNo(true)]),
        ]
        for record in records { text += try formatter.row(Fixtures.item(record)) }
        let rows = try CSVReader.rows(text)
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.count == plan.columns.count })
        let table = try CSVReader.table(text)
        #expect(table[0]["notes"] == "line one\nline \"two\", end")
        #expect(table[0]["record_id"] == records[0].id.uuidString.lowercased())
        #expect(table[0]["created_at"] == "2026-11-18T11:06:40.000Z" && table[0]["updated_at"] == "2026-11-18T11:21:40.500Z")
        #expect(table[0]["age_years"] == "36")
        #expect(!text.contains("Amina") && !text.contains("Haddad") && !text.contains("CASE-7") && !text.contains("1990-05-01"))
    }

    /// A repeat show-if hides (a draft can still hold its instances) has no cells in the wide CSV
    /// and no rows in its table: both files say "not asked" alike.
    @Test func aRepeatHiddenByShowIfHasNeitherCellsNorRows() throws {
        let questionnaire = try Fixtures.questionnaire(
            """
            @title Main
            Anyone living with you? | id: household | yesno
            Members | id: members | repeat 0..9 | show if: household = yes
            Member age | id: member_age | integer 0..120
            @end members
            """)
        let plan = try ExportPlan(questionnaires: [questionnaire])
        let table = try #require(plan.repeatTables.first)
        let wide = WideCSVFormatter(plan: plan), rows = RepeatTableFormatter(plan: plan, table: table)
        let instances = Answer.instances([[3: .integer(30)], [3: .integer(4)]])
        let shown = Fixtures.record(questionnaire, [1: .yesNo(true), 2: instances], status: .draft)
        let hidden = Fixtures.record(questionnaire, [1: .yesNo(false), 2: instances], status: .draft)
        let text = wide.header() + (try wide.row(Fixtures.item(shown))) + (try wide.row(Fixtures.item(hidden)))
        let cells = try CSVReader.table(text)
        #expect(cells[0]["member_age_1"] == "30" && cells[0]["member_age_2"] == "4")
        #expect(cells[1]["member_age_1"] == "" && cells[1]["member_age_2"] == "", "no cell for a hidden repeat's members")
        #expect(try CSVReader.rows(try rows.row(Fixtures.item(shown))).count == 2)
        #expect(try rows.row(Fixtures.item(hidden)).isEmpty, "no row for a hidden repeat's instances")
    }

    /// JSON strings are escaped byte by byte: quotes, backslashes, control characters, and the
    /// two line ends JavaScript sees in U+2028 and U+2029, but not their UTF-8 neighbours
    /// (U+2027, €) nor Arabic or emoji; what is written reads back as the text it was.
    @Test func jsonStringsAreEscapedWhereJSONAndJavaScriptNeedItOnly() throws {
        let texts = [
            "plain", "say \"hi\" \\ back", "line\nbreak\r\ttab", "\u{1}\u{1F}\u{7F}", "a\u{2028}b\u{2029}c", "\u{2027}€ مرحبا 👩🏽‍⚕️",
            "\u{2028}", "",
        ]
        let written = texts.map { OrderedJSON.string($0).text }
        #expect(
            written == [
                #""plain""#, #""say \"hi\" \\ back""#, #""line\nbreak\r\ttab""#, #""\u0001\u001f\#u{7F}""#, #""a\u2028b\u2029c""#,
                "\"\u{2027}€ مرحبا 👩🏽‍⚕️\"", #""\u2028""#, #""""#,
            ])
        for (text, json) in zip(texts, written) {
            let read = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String
            #expect(read == text)
        }
        let object = OrderedJSON.object([("b", .array([.integer(-3), .number(2.5), .bool(true), .string("x")])), ("a", .raw("{}"))])
        #expect(object.text == #"{"b":[-3,2.5,true,"x"],"a":{}}"#)
    }

    @Test func longCSVHasARowPerAnswerChosenCodeAndField() throws {
        let (v1, _) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1])
        let record = Fixtures.record(
            v1, [1: .yesNo(true), 3: .choices(["fever", "rash"]), 5: .dictionary(["name": .text("Aspirin"), "dose": .decimal(2.5)])])
        let formatter = LongCSVFormatter(plan: plan)
        let table = try CSVReader.table(formatter.header() + (try formatter.row(Fixtures.item(record))))
        #expect(table.map { $0["question_id"]! } == ["cough", "symptoms", "symptoms", "meds", "meds"])
        #expect(table.map { $0["value"]! } == ["1", "fever", "rash", "Aspirin", "2.5"], "fields in the questionnaire's order")
        #expect(
            table[4]["field"] == "dose" && table[4]["type"] == "decimal" && table[3]["field"] == "name" && table[1]["type"] == "multiple")
        #expect(table.allSatisfy { $0["section"] == "1" && $0["patient_key"]!.hasPrefix("pk-") })
        let hidden = Fixtures.record(v1, [1: .yesNo(false), 2: .integer(5)], status: .draft)
        #expect(!(try formatter.row(Fixtures.item(hidden))).contains("cough_days"), "an answer hidden by show-if is left out")
    }

    @Test func jsonLinesRoundTripAndLeaveIdentifiersOut() throws {
        let (v1, _) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1])
        let record = Fixtures.record(v1, [1: .yesNo(true), 3: .choices(["rash"]), 5: .dictionary(["name": .text("A \"b\"\n")])])
        let line = try JSONLinesFormatter(plan: plan).row(Fixtures.item(record))
        #expect(line.hasSuffix("\n") && !line.dropLast().contains("\n"))
        #expect(!line.contains("Amina") && !line.contains("Haddad") && !line.contains("CASE-7") && !line.contains("1990"))
        let back = try ExportRecord(jsonLine: Data(line.utf8))
        #expect(back.record.answers == record.answers && back.record.id == record.id && back.record.updatedAt == record.updatedAt)
        #expect(back.record.patient == PatientIdentification(sex: .female))
        #expect(back.patientKey == Fixtures.item(record).patientKey && back.ageYears == 36 && back.revision == 1)
        // With identifiers the line is a full record in the documented format.
        let full = try JSONLinesFormatter(plan: plan).row(Fixtures.item(record, includeIdentifiers: true))
        #expect(try ExportRecord(jsonLine: Data(full.utf8)).record == record)
    }

    @Test func patientKeysLinkOnePatientWithoutRevealingThem() throws {
        let keyer = try PatientKeyer(secret: Fixtures.secret)
        let a = PatientIdentification(givenName: "Amina", familyName: "Haddad", dateOfBirth: LocalDate(year: 1990, month: 5, day: 1))
        let b = PatientIdentification(givenName: " amína ", familyName: "HADDAD", dateOfBirth: LocalDate(year: 1990, month: 5, day: 1))
        let key = try #require(keyer.key(for: a))
        #expect(key == keyer.key(for: b), "case, accents and spaces do not matter")
        #expect(key.hasPrefix("pk-") && key.count == 27)
        #expect(keyer.key(for: PatientIdentification(givenName: "Amina", familyName: "Haddad")) != key, "the date of birth counts")
        #expect(try PatientKeyer(secret: Data(repeating: 7, count: 32)).key(for: a) != key, "another secret, another key")
        #expect(keyer.key(for: PatientIdentification()) == nil)
        #expect(throws: ExportError.self) { try PatientKeyer(secret: Data([1, 2, 3])) }
    }

    @Test func dataPackageDescribesEveryColumnWithTypesAndEnums() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1, v2])
        let text = DataPackageFormatter(plan: plan, files: ExportFormat.allCases).header()
        let package = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let resources = try #require(package["resources"] as? [[String: Any]])
        #expect(resources.map { $0["path"] as? String } == ["records.csv", "records_long.csv", "attachments.csv", "codebook.csv"])
        let schema = try #require(resources[0]["schema"] as? [String: Any])
        let fields = try #require(schema["fields"] as? [[String: Any]])
        #expect(fields.map { $0["name"] as? String } == plan.columns.map(\.name))
        let unit = try #require(fields.first { $0["name"] as? String == "meds_unit" })
        #expect((unit["constraints"] as? [String: Any])?["enum"] as? [String] == ["mg", "ml"])
        #expect(fields.first { $0["name"] as? String == "visits" }?["type"] as? String == "number")
        #expect(schema["missingValues"] as? [String] == ["", "."])
        let codebook = try CSVReader.table(CodebookCSVFormatter(plan: plan).header())
        #expect(codebook.map { $0["column"]! } == plan.columns.map(\.name))
        let weight = try #require(codebook.first { $0["column"] == "weight" })
        #expect(weight["versions"] == "\(v1.version)@1.4" && weight["range"] == "1 to 300" && weight["text_ar"] == "الوزن")
        let days = try #require(codebook.first { $0["column"] == "cough_days" })
        #expect(days["show_if"] == "cough = yes")
        #expect(codebook.first { $0["column"] == "symptoms_cough" }?["versions"] == "\(v2.version)@1.4")
    }

    @Test func spssSyntaxDeclaresEveryColumnWithLabels() throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1, v2])
        let syntax = SPSSSyntaxFormatter(plan: plan).header()
        #expect(syntax.contains("GET DATA\n  /TYPE=TXT\n  /FILE=\"records_escaped.csv\""))
        for column in plan.columns { #expect(syntax.contains("\n    \(column.name) "), "\(column.name) is declared") }
        #expect(syntax.contains("    visits F18.6\n") && syntax.contains("    cough F1.0\n") && syntax.contains("    notes A32767\n"))
        #expect(syntax.contains("  /meds_unit \"mg\" \"mg\" \"ml\" \"ml\""))
        #expect(syntax.contains("  /symptoms_cough 0 \"No\" 1 \"Yes\""))
        #expect(syntax.contains("  cough_days \"For how many days?\""))
        #expect(SPSSSyntaxFormatter.names(["to", "_x", "a", "A", "record_id"]) == ["to_", "v_x", "a", "A_2", "record_id"])
        #expect(SPSSSyntaxFormatter.quoted("say \"hi\"\nnow") == "\"say \"\"hi\"\" now\"")
        #expect(SPSSSyntaxFormatter.truncated("ééé", bytes: 5) == "éé")
    }

    @Test func rScriptReadsEveryColumnWithItsClassAndLabels() throws {
        let (v1, v2) = try Fixtures.versions()
        let script = RScriptFormatter(plan: try ExportPlan(questionnaires: [v1, v2])).header()
        #expect(script.contains("    \"visits\" = \"numeric\",\n") && script.contains("    \"cough\" = \"integer\",\n"))
        #expect(script.contains("    \"created_at\" = \"character\",\n") && script.contains("as.POSIXct(records[[\"created_at\"]]"))
        #expect(
            script.contains(
                "records[[\"meds_unit\"]] <- intake_factor(records[[\"meds_unit\"]], \"meds_unit\",\n  c(\"mg\", \"ml\"),\n  c(\"mg\", \"ml\"))"
            ))
        #expect(script.contains("attr(records[[\"cough_days\"]], \"label\") <- \"For how many days?\""))
        #expect(script.contains("na.strings = c(\"\", \".\")"))
        #expect(RScriptFormatter.quoted("a \"b\" \\ c\nd") == "\"a \\\"b\\\" \\\\ c\\nd\"")
    }

    @Test func codebookMarkdownExplainsMissingValues() throws {
        let (v1, v2) = try Fixtures.versions()
        let text = CodebookMarkdownFormatter(plan: try ExportPlan(questionnaires: [v1, v2])).header()
        #expect(text.contains("**Empty cell: not asked.**") && text.contains("**`.`: asked, no answer.**"))
        #expect(text.contains("| `symptoms_cough` | indicator (0/1) | Symptoms: Cough |"))
    }
}
