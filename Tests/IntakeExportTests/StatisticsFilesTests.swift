import Foundation
import IntakeCore
import Testing
import ZIPFoundation

@testable import IntakeExport

/// records.sav, records.dta and records.xlsx, read back here by small readers of their layouts
/// (scripts/stats-files.py reads them with pyreadstat and openpyxl, and the round-trip test too).
struct StatisticsFilesTests {
    static let section = """
        @title Main
        Pain level | id: pain | single: 1=None, 2=Mild, 3=Severe
        Housing | id: housing | single: shelter=Shelter, shared_flat_with_friends=Shared flat
        Symptoms | id: symptoms | multiple: fever=Fever, rash=Rash
        Weight | id: weight | decimal 0..300
        Date of visit | id: visit_date | date 1950-01-01..today
        ملاحظات المريض | id: notes | text
        Anything else | id: other | text
        A question with a very long identifier | id: a_very_long_question_identifier_that_goes_well_past_the_stata_limit_and_the_spss_one_too | integer
        Members | id: members | repeat 0..9
        Member age | id: member_age | integer 0..120
        @end members
        """

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-stats-\(UUID().uuidString)")

    /// An export folder of the statistics files (and codebook.csv) for `answers`, one record each.
    func export(_ answers: [[Int: Answer]], options: ExportOptions = ExportOptions()) async throws -> (URL, ExportPlan, [PatientResponse]) {
        let questionnaire = try Fixtures.questionnaire(Self.section)
        let plan = try ExportPlan(questionnaires: [questionnaire], options: options)
        let records = answers.map { Fixtures.record(questionnaire, $0) }
        var pages = [records.map { ExportInput(record: Fixtures.item($0)) }]
        let folder = directory.appendingPathComponent("out")
        _ = try await FolderExport(plan: plan, formats: [.codebookCSV, .sav, .dta, .xlsx], sideFiles: [], folder: folder).write(
            cursor: nil, since: nil
        ) { pages.isEmpty ? nil : pages.removeFirst() }
        return (folder, plan, records)
    }

    static let answers: [[Int: Answer]] = [
        [
            1: .choice("2"), 2: .choice("shared_flat_with_friends"), 3: .choices(["rash"]), 4: .decimal(72.5),
            5: .date(LocalDate(year: 2024, month: 2, day: 29)!), 6: .text("مرحبا بالعالم"), 7: .text("=SUM(A1:A2)"), 8: .integer(7),
            9: .instances([[10: .integer(30)], [10: .integer(4)]]),
        ],
        [1: .choice("3"), 7: .text(String(repeating: "long text ", count: 300)), 6: .text("+1 @x -")],
        [7: .text("ctrl\u{1}char _x0041_ cr\r\nlf")],
    ]

    @Test func theDefaultFolderHasTheStatisticsFilesAndTheServerRouteCannotStreamThem() {
        #expect(ExportFormat.allCases.contains(.sav) && ExportFormat.allCases.contains(.dta) && ExportFormat.allCases.contains(.xlsx))
        #expect(
            ExportFormat.sav.fileName == "records.sav" && ExportFormat.dta.fileName == "records.dta"
                && ExportFormat.xlsx.fileName == "records.xlsx")
        #expect(ExportFormat.allCases.filter(\.isBinary) == [.sav, .dta, .xlsx])
        #expect(!ExportFormat.streamable.contains { $0.isBinary } && ExportFormat.streamable.contains(.wideCSV))
        #expect(ExportFormat.sav.reads == .rows)
    }

    /// The rows wait on disk while the records pass: each cell comes back as it went in (texts
    /// of every length, across the spool's one-megabyte writes and reads), again on a second
    /// reading, and the facts say what the values allow.
    @Test func aSpoolGivesItsRowsBackAsTheyWentInAndKnowsWhatTheirValuesAllow() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let spool = try StatisticsSpool(url: directory.appendingPathComponent("rows.spool"), columns: 4, sentinel: -99)
        var rows: [[CellValue?]] = []
        for index in 0..<3_000 {
            // Lengths of one, two and three bytes, and one text longer than a buffer.
            let text =
                index == 1_000
                ? String(repeating: "x", count: StatisticsSpool.bufferSize + 20_000)
                : String(repeating: index % 2 == 0 ? "مرحبا " : "x", count: index == 1_001 ? 20_000 : index % 700)
            let row: [CellValue?] = [
                .plain(index == 9 ? "-99" : "\(index)"), index % 3 == 0 ? nil : .text(text),
                index == 7 ? .unanswered : .text("2024-02-\(10 + index % 19)"), .text(index == 5 ? "-99" : "1.25"),
            ]
            rows.append(row)
            try spool.append(row)
        }
        try spool.finish()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: spool.url.path)[.size] as? Int)
        #expect(size > 3 * StatisticsSpool.bufferSize, "the rows crossed the buffer's size: \(size)")
        for _ in 0..<2 {
            var read = 0
            try spool.forEachRow { cells in
                let expected = rows[read].map { cell -> CellValue? in if case .plain(let text)? = cell { .text(text) } else { cell } }
                #expect(cells == expected, "row \(read)")
                read += 1
            }
            #expect(read == rows.count)
        }
        let facts = spool.facts
        #expect(facts[0].integers && facts[0].wholeCodes && !facts[0].dates && facts[0].longest == 4)
        #expect(facts[0].sentinelAsCode && facts[0].sentinelAsNumber, "-99 is the sentinel as a whole code and as a number")
        #expect(!facts[1].numbers && facts[1].longest == StatisticsSpool.bufferSize + 20_000)
        #expect(facts[1].longestInSPSS == SAVWriter.maxWidth && !facts[1].sentinelAsCode)
        #expect(facts[2].dates && facts[2].unanswered && !facts[2].numbers)
        #expect(facts[3].numbers && facts[3].integers && facts[3].decimals == 2 && facts[3].sentinelAsNumber)
        spool.remove()
        #expect(!FileManager.default.fileExists(atPath: spool.url.path))
    }

    /// The files' bytes, pinned: the same records and date give the same files (the .sav, .dta
    /// and .xlsx of the fixture, and the repeat's .sav and .dta). When a change means to alter
    /// them, check the new files with pyreadstat, PSPP and openpyxl (scripts/stats-files.py)
    /// before updating the digests.
    @Test func theFilesKeepTheirBytes() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let questionnaire = try Fixtures.questionnaire(Self.section)
        let plan = try ExportPlan(questionnaires: [questionnaire], options: ExportOptions())
        let collector = try StatisticsCollector(plan: plan, folder: directory)
        for (number, answers) in Self.answers.enumerated() {
            var record = Fixtures.record(questionnaire, answers)
            record.id = try #require(UUID(uuidString: "00000000-0000-4000-8000-00000000000\(number)"))
            _ = try collector.row(Fixtures.item(record))
        }
        try StatisticsFiles.write([.sav, .dta, .xlsx], from: collector, into: directory, date: Date(timeIntervalSince1970: 1_795_000_000))
        /// FNV-1a, 64 bits.
        func digest(_ name: String) throws -> String {
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            let hash = bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
            return String(hash, radix: 16)
        }
        let digests = try ["records.sav", "records.dta", "records.xlsx", "repeat_members.sav", "repeat_members.dta"].map(digest)
        #expect(digests == ["b806abce62f6d788", "5e6eb6de6a4539a9", "6aadcb592075f30f", "693114e68fe948c7", "70dc6d62148f6a71"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasPrefix(".") }, "no spool is left")
    }

    /// Thousands of records, so every file is written in many flushes (and the .dta's map is
    /// put back over bytes already on disk): the last record's values are where they belong,
    /// and nothing the files were made from is left in the folder.
    @Test func manyRecordsAreWrittenARowAtATimeAndLeaveNoSpool() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let many = (0..<4_000).map { index -> [Int: Answer] in
            [
                1: .choice("\(1 + index % 3)"), 4: .decimal(Double(index % 1000) / 4),
                7: .text(String(repeating: "long text \(index) ", count: 200)),
                9: .instances([[10: .integer(index % 100)]]),
            ]
        }
        let (folder, plan, records) = try await export(many)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains { $0.hasPrefix(".") }, "\(names)")
        let sav = try SAVReader(try [UInt8](Data(contentsOf: folder.appendingPathComponent("records.sav"))))
        #expect(sav.cases == records.count)
        #expect(sav.number("weight", row: 3_999) == 249.75 && sav.number("pain", row: 3_998) == 3)
        #expect(sav.text("other", row: 3_999) == String(repeating: "long text 3999 ", count: 200).trimmingTrailingSpaces)
        let dta = try DTAReader(try [UInt8](Data(contentsOf: folder.appendingPathComponent("records.dta"))))
        #expect(dta.count == records.count && dta.type("other") == DTAWriter.strL)
        #expect(
            dta.double("weight", row: 3_999) == 249.75 && dta.text("other", row: 3_999) == String(repeating: "long text 3999 ", count: 200))
        let repeatDTA = try DTAReader(try [UInt8](Data(contentsOf: folder.appendingPathComponent("repeat_members.dta"))))
        #expect(repeatDTA.count == records.count && repeatDTA.double("member_age", row: 3_999) == 99)
        let archive = try Archive(url: folder.appendingPathComponent("records.xlsx"), accessMode: .read)
        var sheet = Data()
        _ = try archive.extract(try #require(archive["xl/worksheets/sheet1.xml"])) { sheet.append($0) }
        let xml = String(decoding: sheet, as: UTF8.self)
        let dimension = #"<dimension ref="A1:\#(XLSXBook.columnLetters(plan.columns.count - 1))4001"/>"#
        #expect(xml.contains(dimension) && xml.contains(#"<row r="4001">"#) && xml.hasSuffix("</sheetData></worksheet>"))
        #expect(xml.contains("long text 3999 "))
        let mode = try #require(
            try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("records.xlsx").path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    /// The case files' .sav, .dta and sheets are read from cases.csv's and case_history.csv's
    /// bytes as they are written, in whatever chunks: a property is a number only when every
    /// value is one written plainly (a leading zero keeps it text), the CSV's `'` guard is not
    /// part of a value, and no spool is left.
    @Test func theCaseFilesHaveTheirOwnStatisticsFilesAndSheets() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let questionnaire = try Fixtures.questionnaire(Self.section)
        let plan = try ExportPlan(questionnaires: [questionnaire], options: ExportOptions())
        var pages = [[ExportInput(record: Fixtures.item(Fixtures.record(questionnaire, Self.answers[0])))]]
        let columns = ExportCaseColumns(lists: ["follow-up"], properties: ["phq2", "phone", "seen", "note"])
        let header = CSV.line(columns.caseColumns(includeIdentifiers: false))
        let rows = [
            [
                "c1", "follow-up", "", "", "2026-11-01T10:00:00Z", "field", "", "open", "2026-12-01", "2", "1", "", "", "3", "0791",
                "2026-10-30", "'=not a formula",
            ],
            [
                "c2", "follow-up", "", "", "2026-11-02T10:00:00Z", "field", "'amal", "closed", "", "1", "0", "", "phq2", "12", "12",
                "2026-10-31", "two\r\nlines, \"quoted\"",
            ],
        ].map(CSV.line)
        let history =
            CSV.line(ExportCaseColumns.historyColumns)
            + CSV.line(["c1", "follow-up", "2026-11-01T10:00:00Z", "opened", "", "field", "phq2", "3"])
        let source = ExportCaseSource(columns: columns) { file, write in
            // Bytes in chunks of 7, cutting quotes, line ends and UTF-8 alike.
            let bytes = Array((file == .cases ? header + rows.joined() : history).utf8)
            for start in stride(from: 0, to: bytes.count, by: 7) { try await write(Array(bytes[start..<min(start + 7, bytes.count)])) }
            return file == .cases ? rows.count : 1
        }
        let folder = directory.appendingPathComponent("out")
        let summary = try await FolderExport(
            plan: plan, formats: [.codebookMarkdown, .sav, .dta, .xlsx], sideFiles: [.cases, .caseHistory], folder: folder
        )
        .write(cursor: nil, since: nil, side: ExportSideSources(cases: source)) { pages.isEmpty ? nil : pages.removeFirst() }
        #expect(summary.cases == 2)
        for name in ["cases.sav", "cases.dta", "case_history.sav", "case_history.dta"] { #expect(summary.files.contains(name), "\(name)") }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains { $0.hasPrefix(".") }, "\(names)")
        let sav = try SAVReader(try [UInt8](Data(contentsOf: folder.appendingPathComponent("cases.sav"))))
        #expect(sav.cases == 2 && sav.label("prop_phq2") == "The case property phq2")
        #expect(sav.number("prop_phq2", row: 1) == 12 && sav.number("revision", row: 0) == 2)
        #expect(sav.text("prop_phone", row: 0) == "0791" && sav.text("prop_phone", row: 1) == "12", "a leading zero keeps the column text")
        #expect(sav.text("prop_note", row: 0) == "=not a formula" && sav.text("prop_note", row: 1) == "two\r\nlines, \"quoted\"")
        #expect(sav.text("assignee", row: 1) == "'amal" && sav.text("conflicts", row: 1) == "phq2", "only values the CSV guards lose a '")
        let dta = try DTAReader(try [UInt8](Data(contentsOf: folder.appendingPathComponent("cases.dta"))))
        #expect(dta.count == 2 && dta.format("prop_seen") == "%td" && dta.format("due") == "%td")
        #expect(dta.text("prop_note", row: 0) == "=not a formula" && dta.text("case_id", row: 1) == "c2")
        let changes = try SAVReader(try [UInt8](Data(contentsOf: folder.appendingPathComponent("case_history.sav"))))
        #expect(changes.cases == 1 && changes.text("source", row: 0) == "opened" && changes.text("value", row: 0) == "3")
        let archive = try Archive(url: folder.appendingPathComponent("records.xlsx"), accessMode: .read)
        var book = Data()
        _ = try archive.extract(try #require(archive["xl/workbook.xml"])) { book.append($0) }
        let workbook = String(decoding: book, as: UTF8.self)
        #expect(workbook.contains(#"name="cases""#) && workbook.contains(#"name="case_history""#))
        let codebook = try String(contentsOf: folder.appendingPathComponent("codebook.md"), encoding: .utf8)
        #expect(codebook.contains("## Case files") && codebook.contains("`prop_phone`") && codebook.contains("case_history.csv"))

        // With raw cells the CSV guards nothing, and a value's own leading ' is kept.
        var raw = ExportOptions()
        raw.rawCells = true
        let rawPlan = try ExportPlan(questionnaires: [questionnaire], options: raw)
        var rawPages = [[ExportInput(record: Fixtures.item(Fixtures.record(questionnaire, Self.answers[0])))]]
        let rawFolder = directory.appendingPathComponent("raw")
        _ = try await FolderExport(plan: rawPlan, formats: [.sav], sideFiles: [.cases], folder: rawFolder)
            .write(cursor: nil, since: nil, side: ExportSideSources(cases: source)) { rawPages.isEmpty ? nil : rawPages.removeFirst() }
        let rawSAV = try SAVReader(try [UInt8](Data(contentsOf: rawFolder.appendingPathComponent("cases.sav"))))
        #expect(rawSAV.text("prop_note", row: 0) == "'=not a formula")
    }

    /// The splitter gives the records CSVReader reads, whatever the chunks.
    @Test func theLineSplitterReadsRecordsAcrossAnyChunks() throws {
        let lines = [["a", "b,c", "d\"e"], ["", "two\r\nlines", "\"\""], ["مرحبا", "x"], ["'=1", ""]]
        let text = lines.map(CSV.line).joined()
        let expected = try IntakeCore.CSVReader.records(text).map(\.fields)
        let bytes = Array(text.utf8)
        for size in 1...bytes.count {
            var splitter = CSVLineSplitter()
            var records: [[String]] = []
            for start in stride(from: 0, to: bytes.count, by: size) {
                records += splitter.feed(Array(bytes[start..<min(start + size, bytes.count)]))
            }
            let last = splitter.finish()
            #expect(last == .some(nil) && records == expected, "chunks of \(size)")
        }
        var open = CSVLineSplitter()
        _ = open.feed(Array("a,\"unfinished".utf8))
        #expect(open.finish() == nil, "a file that ends inside quotes")
    }

    @Test func savHasItsHeaderDictionaryLabelsAndData() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (folder, plan, records) = try await export(Self.answers)
        let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent("records.sav")))
        let sav = try SAVReader(bytes)
        #expect(sav.cases == records.count)
        #expect(sav.encoding == "UTF-8" && sav.characterCode == 65001)
        #expect(sav.fileLabel.hasPrefix("Intake export: clinic"))
        // One variable per column, long names as the SPSS syntax names them, short names unique.
        #expect(sav.longNames == SPSSSyntaxFormatter.names(plan.columns.map(\.name)))
        #expect(Set(sav.shortNames.map { $0.uppercased() }).count == sav.shortNames.count)
        #expect(sav.shortNames.allSatisfy { $0.utf8.count <= 8 })
        let longName = try #require(sav.longNames.first { $0.hasPrefix("a_very_long") })
        #expect(longName.utf8.count <= 64)
        #expect(sav.label("notes") == "ملاحظات المريض", "UTF-8 Arabic labels survive")
        #expect(sav.label("pain") == "Pain level")
        // Whole-number codes are a labelled number; text codes a labelled string (longer than 8 bytes: record 7/21).
        #expect(sav.width("pain") == 0 && sav.numberLabels("pain")?[2] == "Mild")
        #expect(sav.width("housing") == "shared_flat_with_friends".utf8.count)
        #expect(sav.longStringLabels["housing"]?["shared_flat_with_friends"] == "Shared flat")
        #expect(sav.numberLabels("symptoms_rash")?[1] == "Yes" && sav.numberLabels("symptoms_rash")?[0] == "No")
        // Asked, not answered: a declared user-missing number, labelled.
        #expect(sav.missing("weight") == [-999_999_999])
        #expect(sav.numberLabels("symptoms_fever")?[-999_999_999] == "asked, not answered")
        // The data.
        #expect(sav.number("pain", row: 0) == 2 && sav.number("pain", row: 1) == 3)
        #expect(sav.number("weight", row: 0) == 72.5 && sav.number("weight", row: 1) == -999_999_999)
        #expect(sav.number("symptoms_rash", row: 0) == 1)
        // 2024-02-29 as seconds since 14 October 1582.
        #expect(sav.number("visit_date", row: 0) == Double(141_428 + 19_782) * 86_400)
        #expect(sav.number("member_age_2", row: 0) == 4 && sav.number("member_age_3", row: 0) == -Double.greatestFiniteMagnitude)
        #expect(sav.text("other", row: 0) == "=SUM(A1:A2)", "text a spreadsheet would run is kept as it is")
        #expect(sav.text("notes", row: 0) == "مرحبا بالعالم")
        // A very long string (3,000 bytes) in 255-byte segments.
        #expect(sav.width("other") == 3000 && sav.veryLong["other"] == 3000)
        #expect(sav.text("other", row: 1) == String(repeating: "long text ", count: 300).trimmingTrailingSpaces)
        #expect(sav.text("other", row: 2) == "ctrl\u{1}char _x0041_ cr\r\nlf")
        #expect(sav.text("housing", row: 1) == ".", "the unanswered code in a text variable")
    }

    @Test func dtaMapPointsAtItsSectionsAndHoldsLabelsAndData() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (folder, plan, records) = try await export(Self.answers)
        let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent("records.dta")))
        let dta = try DTAReader(bytes)
        #expect(dta.count == records.count && dta.names.count == plan.columns.count)
        #expect(
            dta.names.allSatisfy { $0.utf8.count <= 32 && $0.range(of: "^[A-Za-z_][A-Za-z0-9_]*$", options: .regularExpression) != nil })
        #expect(Set(dta.names.map { $0.lowercased() }).count == dta.names.count)
        #expect(dta.names.contains("a_very_long_question_identifier_"))
        #expect(dta.label("notes") == "ملاحظات المريض")
        #expect(dta.type("pain") == DTAWriter.long && dta.valueLabels["pain"]?[3] == "Severe")
        #expect(dta.type("housing") == 24 && dta.valueLabels["housing"] == nil, "Stata labels only whole numbers")
        #expect(dta.type("weight") == DTAWriter.double && dta.type("other") == DTAWriter.strL)
        #expect(dta.format("visit_date") == "%td")
        #expect(dta.long("pain", row: 0) == 2 && dta.long("visit_date", row: 0) == 19_782 + 3653)
        #expect(dta.double("weight", row: 0) == 72.5)
        #expect(dta.raw("weight", row: 1) == DTAWriter.doubleUnanswered, "asked, not answered is .a")
        #expect(dta.long("symptoms_fever", row: 1) == DTAWriter.longUnanswered)
        #expect(dta.long("member_age_3", row: 0) == DTAWriter.longMissing || dta.raw("member_age_3", row: 0) == DTAWriter.doubleMissing)
        #expect(dta.text("other", row: 0) == "=SUM(A1:A2)" && dta.text("notes", row: 0) == "مرحبا بالعالم")
        #expect(dta.text("other", row: 1) == String(repeating: "long text ", count: 300), "a strL keeps the whole text")
        #expect(dta.text("housing", row: 1) == ".")
    }

    @Test func xlsxHasASheetPerTableAndTheCodebookAndNoFormula() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (folder, plan, _) = try await export(Self.answers)
        let archive = try Archive(url: folder.appendingPathComponent("records.xlsx"), accessMode: .read)
        func part(_ path: String) throws -> String {
            let entry = try #require(archive[path])
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            return String(decoding: data, as: UTF8.self)
        }
        let workbook = try part("xl/workbook.xml")
        #expect(workbook.contains(#"<sheet name="records""#) && workbook.contains(#"<sheet name="repeat_members""#))
        #expect(workbook.contains(#"<sheet name="codebook""#))
        let records = try part("xl/worksheets/sheet1.xml")
        let repeats = try part("xl/worksheets/sheet2.xml")
        let codebook = try part("xl/worksheets/sheet3.xml")
        for sheet in [records, repeats, codebook] { #expect(!sheet.contains("<f>") && !sheet.contains("<f ")) }
        #expect(records.contains(#"t="inlineStr"><is><t xml:space="preserve">=SUM(A1:A2)</t>"#), "formula-like text is an inline string")
        #expect(records.contains(">+1 @x -</t>") && records.contains("مرحبا بالعالم"))
        #expect(records.contains("ctrl_x0001_char _x005F_x0041_ cr&#13;\nlf"), "control characters and _x escapes as Excel reads them")
        // Numbers are numbers, dates date cells (days since 1899-12-30, style 1), the unanswered code text.
        #expect(records.contains("<v>72.5</v>") && records.contains(#"s="1"><v>45351</v>"#))
        #expect(records.contains(#"<t xml:space="preserve">.</t>"#))
        #expect(try part("xl/styles.xml").contains("yyyy"))
        // The repeat's sheet has every instance, keyed by record and instance.
        #expect(repeats.contains(">member_age<") && repeats.contains("<v>30</v>") && repeats.contains("<v>4</v>"))
        // The codebook sheet: codebook.csv's rows, and each column's names in the .sav and .dta.
        #expect(
            codebook.contains(">sav_name<") && codebook.contains(">dta_name<") && codebook.contains(">a_very_long_question_identifier_<"))
        #expect(codebook.contains("ملاحظات المريض"))
        #expect(plan.repeatTables.count == 1)
    }

    @Test func namesFollowEachProgramsRules() {
        let long = String(repeating: "abcdefghij", count: 8)
        let stata = StatisticsNames.stata(["byte", "1st", long, long + "x", "str12", "Pain", "pain", "_n"])
        #expect(stata[0] == "byte_" && stata[1] == "v1st" && stata[4] == "str12_" && stata[7] == "_n_")
        #expect(stata[2].count == 32 && stata[3].count == 32 && stata[2] != stata[3])
        #expect(stata[5] == "Pain" && stata[6] != "pain", "unique ignoring case")
        let spss = StatisticsNames.spss(["to", "_x", long, long])
        #expect(spss[0] == "to_" && spss[1] == "v_x" && spss[2] != spss[3] && spss.allSatisfy { $0.utf8.count <= 64 })
        let short = StatisticsNames.spssShort(["symptoms_fever", "symptoms_rash", "AND", "x"], extraSegments: [0, 0, 0, 2])
        #expect(short[0] == ["SYMPTOMS"] && short[1][0].count <= 8 && short[1][0] != "SYMPTOMS" && short[2] != ["AND"])
        #expect(Set(short.flatMap { $0 }).count == 6)
        #expect(
            SAVWriter.segments(width: 255) == [255] && SAVWriter.segments(width: 256) == [255, 4]
                && SAVWriter.segments(width: 600) == [255, 255, 96])
    }

    @Test func typesFollowTheValues() {
        let column = ExportColumn(name: "code", type: .string, source: .answer(questionKey: "code", path: []))
        func facts(_ cells: [CellValue?]) -> ColumnFacts { ColumnFacts(cells, sentinel: -999_999_999) }
        let cells: [CellValue?] = [.text("1"), nil, .unanswered]
        let numeric = StatisticsVariable(column: column, label: "", codes: ["1", "2"], choices: nil, facts: facts(cells))
        #expect(numeric.kind == .code && cells.map(numeric.value) == [.number(1), .empty, .unanswered])
        let padded = StatisticsVariable(column: column, label: "", codes: ["01", "2"], choices: nil, facts: facts([.text("01")]))
        #expect(padded.kind == .text && padded.textLabels.map(\.value) == ["01", "2"], "a code such as 01 stays text")
        let number = ExportColumn(name: "n", type: .number, source: .answer(questionKey: "n", path: []))
        #expect(
            StatisticsVariable(column: number, label: "", codes: [], choices: nil, facts: facts([.text("2.5e-05"), .text("-3")])).kind
                == .number)
        #expect(StatisticsVariable(column: number, label: "", codes: [], choices: nil, facts: facts([.text("inf")])).kind == .text)
        #expect(StatisticsVariable.plainNumber("0x10") == nil && StatisticsVariable.plainNumber("nan") == nil)
    }

    /// Excel's limits refuse the workbook as soon as the export outgrows them (as the records are
    /// gathered, not after the last), saying what to do.
    @Test func aWorkbookExcelWouldNotOpenIsRefusedAtItsLimits() {
        #expect(throws: Never.self) { try StatisticsFiles.checkWorkbook(records: 1_048_575, columns: 16_384, longestRepeat: 1_048_575) }
        for (records, columns, longest) in [(1_048_576, 10, 0), (10, 16_385, 0), (10, 10, 1_048_576)] {
            do {
                try StatisticsFiles.checkWorkbook(records: records, columns: columns, longestRepeat: longest)
                Issue.record("not refused: \(records) records, \(columns) columns, a repeat of \(longest)")
            } catch {
                #expect(error.description.contains("records.xlsx cannot hold this export") && error.description.contains("--format"))
            }
        }
    }

    /// The readings of numbers and codes, made in place for speed, agree with the plain
    /// definitions (strtod on a checked form; `Int` written back the same) on every text of
    /// digits, signs, points, exponents and spaces up to six characters, and on long ones.
    @Test func numbersAndCodesAreReadAsTheirDefinitionsSay() {
        func plain(_ text: String) -> Double? {
            guard text.range(of: #"^[+-]?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$"#, options: .regularExpression) != nil,
                let value = Double(text), value.isFinite
            else { return nil }
            return value
        }
        func code(_ text: String) -> Int? {
            guard let value = Int(text), String(value) == text, (-2_147_483_647...2_147_483_620).contains(value) else { return nil }
            return value
        }
        let alphabet = ["0", "1", "9", "-", "+", ".", "e", "E", " ", "x"]
        var texts = [""]
        var layer = [""]
        for _ in 0..<5 {
            layer = layer.flatMap { prefix in alphabet.map { prefix + $0 } }
            texts += layer
        }
        texts += [
            "999999999999999", "9999999999999999", "-999999999999999", "123456789012345678901234567890", "2147483620", "2147483621",
            "-2147483647", "-2147483648", "00000000000000000000007", "1e308", "1e309", "-0", "0.1", "3.14159265358979323846",
        ]
        var mismatches: [String] = []
        for text in texts {
            let mine = StatisticsVariable.plainNumber(text), theirs = plain(text)
            if mine?.bitPattern != theirs?.bitPattern { mismatches.append("plainNumber(\(text))") }
            if StatisticsVariable.wholeCode(text) != code(text) { mismatches.append("wholeCode(\(text))") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
        #expect(texts.count > 100_000)
    }

    @Test func aNumericUnansweredCodeIsTheUserMissingValueUnlessAnAnswerHasIt() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (folder, _, _) = try await export([[4: .decimal(-99)], [1: .choice("1")]], options: ExportOptions(unansweredCode: "-99"))
        let sav = try SAVReader(try [UInt8](Data(contentsOf: folder.appendingPathComponent("records.sav"))))
        #expect(sav.missing("weight") == [], "an answer of -99 is not made missing: unanswered is system-missing there")
        #expect(sav.number("weight", row: 1) == -Double.greatestFiniteMagnitude)
        #expect(sav.missing("pain") == [-99])
    }

    @Test func xlsxTextIsEscapedForXMLAndSheetNamesAreValid() throws {
        #expect(XLSXBook.escaped("a<b>&\"c\"\r\n\t\u{0}_x00FF_ _xZZ_") == "a&lt;b&gt;&amp;&quot;c&quot;&#13;\n\t_x0000__x005F_x00FF_ _xZZ_")
        #expect(
            XLSXBook.sheetNames(["records", "Records", "a/b:c", String(repeating: "x", count: 40), "", "History"]) == [
                "records", "Records_2", "a_b_c", String(repeating: "x", count: 31), "Sheet", "SheetHistory",
            ])
        #expect(XLSXBook.columnLetters(0) == "A" && XLSXBook.columnLetters(26) == "AA" && XLSXBook.columnLetters(701) == "ZZ")
        let book = XLSXBook(sheets: [.init(name: "s", cells: [[.text("=1+1"), .number(3), .date(daysSince1970: -30_000)]])])
        let data = try book.data()
        let archive = try Archive(data: data, accessMode: .read)
        #expect(archive["xl/styles.xml"] != nil)
        #expect(LocalDateText.iso(daysSince1970: -30_000) == "1887-11-12" && LocalDateText.iso(daysSince1970: 19_782) == "2024-02-29")
    }
}

/// Reads the dictionary and data of an uncompressed little-endian .sav, for the checks above.
struct SAVReader {
    struct Failure: Error, CustomStringConvertible { var description: String }

    var cases = 0
    var fileLabel = ""
    var encoding = ""
    var characterCode = 0
    /// Per variable (not continuation records): short name, width, label, missing values, first slot.
    var shortNames: [String] = []
    var widths: [Int] = []
    var labels: [String] = []
    var missingValues: [[Double]] = []
    var slots: [Int] = []
    var longNames: [String] = []
    var veryLong: [String: Int] = [:]
    var longStringLabels: [String: [String: String]] = [:]
    var valueLabels: [Int: [Double: String]] = [:]  // by dictionary index (1-based slot)
    var caseSize = 0
    var data: [UInt8] = []

    init(_ bytes: [UInt8]) throws {
        var at = 0
        func take(_ count: Int) throws -> [UInt8] {
            guard at + count <= bytes.count else { throw Failure(description: "the file ends at \(at), inside a record") }
            defer { at += count }
            return Array(bytes[at..<at + count])
        }
        func int32() throws -> Int {
            Int(Int32(bitPattern: UInt32(littleEndian: try take(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })))
        }
        func double() throws -> Double {
            Double(bitPattern: UInt64(littleEndian: try take(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
        }
        func text(_ count: Int) throws -> String { String(decoding: try take(count), as: UTF8.self) }
        guard try text(4) == "$FL2" else { throw Failure(description: "no $FL2") }
        _ = try take(60)
        guard try int32() == 2 else { throw Failure(description: "layout code") }
        caseSize = try int32()
        guard try int32() == 0, try int32() == 0 else { throw Failure(description: "compressed or weighted") }
        cases = try int32()
        guard try double() == 100 else { throw Failure(description: "bias") }
        _ = try take(17)
        fileLabel = try text(64)
        _ = try take(3)
        var slot = 0
        var longByShort: [String: String] = [:]
        records: while true {
            switch try int32() {
            case 2:
                let type = try int32()
                let hasLabel = try int32()
                let missing = try int32()
                _ = try take(8)
                let name = try text(8).trimmingCharacters(in: .whitespaces)
                var label = ""
                if hasLabel == 1 {
                    let count = try int32()
                    label = try text(count)
                    _ = try take((4 - count % 4) % 4)
                }
                var values: [Double] = []
                for _ in 0..<abs(missing) { values.append(try double()) }
                slot += 1
                if type == -1 { continue }
                shortNames.append(name)
                widths.append(type)
                labels.append(label)
                missingValues.append(values)
                slots.append(slot)
            case 3:
                var labels: [Double: String] = [:]
                for _ in 0..<(try int32()) {
                    let value = try double()
                    let count = Int(try take(1)[0])
                    labels[value] = try text(count)
                    _ = try take((8 - (1 + count) % 8) % 8)
                }
                guard try int32() == 4 else { throw Failure(description: "a value label record without its variables") }
                for _ in 0..<(try int32()) { valueLabels[try int32()] = labels }
            case 7:
                let subtype = try int32()
                let size = try int32()
                let count = try int32()
                let body = try take(size * count)
                switch subtype {
                case 3:
                    characterCode = Int(
                        Int32(bitPattern: UInt32(littleEndian: Array(body[28..<32]).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })))
                case 20: encoding = String(decoding: body, as: UTF8.self)
                case 13:
                    for pair in String(decoding: body, as: UTF8.self).split(separator: "\t") {
                        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                        if parts.count == 2 { longByShort[parts[0]] = parts[1] }
                    }
                case 14:
                    for entry in String(decoding: body, as: UTF8.self).split(separator: "\t") {
                        let parts = entry.replacingOccurrences(of: "\0", with: "").split(separator: "=")
                        if parts.count == 2, let index = shortNames.firstIndex(of: String(parts[0])), let width = Int(parts[1]) {
                            veryLong[longByShort[String(parts[0])] ?? String(parts[0])] = width
                            widths[index] = width
                        }
                    }
                case 21:
                    var index = 0
                    func int() -> Int {
                        defer { index += 4 }
                        return Int(
                            Int32(
                                bitPattern: UInt32(
                                    littleEndian: Array(body[index..<index + 4]).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })))
                    }
                    func string(_ count: Int) -> String {
                        defer { index += count }
                        return String(decoding: body[index..<index + count], as: UTF8.self)
                    }
                    while index < body.count {
                        let name = string(int())
                        _ = int()
                        var labels: [String: String] = [:]
                        for _ in 0..<int() {
                            let value = string(int()).trimmingCharacters(in: .whitespaces)
                            labels[value] = string(int())
                        }
                        longStringLabels[name] = labels
                    }
                default: break
                }
            case 999:
                _ = try int32()
                break records
            case let other: throw Failure(description: "record type \(other) at \(at - 4)")
            }
        }
        guard slot == caseSize else { throw Failure(description: "\(slot) slots, the header says \(caseSize)") }
        data = Array(bytes[at...])
        guard data.count == cases * caseSize * 8 else { throw Failure(description: "\(data.count) bytes of data for \(cases) cases") }
        // Fold very long strings' segments (listed as variables until record 14 named them) into their variable.
        var index = 0
        while index < shortNames.count {
            if let width = veryLong[longByShort[shortNames[index]] ?? shortNames[index]] {
                let segments = SAVWriter.segments(width: width).count
                for _ in 1..<segments where index + 1 < shortNames.count {
                    shortNames.remove(at: index + 1)
                    widths.remove(at: index + 1)
                    labels.remove(at: index + 1)
                    missingValues.remove(at: index + 1)
                    slots.remove(at: index + 1)
                }
            }
            index += 1
        }
        longNames = shortNames.map { longByShort[$0] ?? $0 }
    }

    private func variable(_ name: String) -> Int? { longNames.firstIndex(of: name) }
    func label(_ name: String) -> String? { variable(name).map { labels[$0] } }
    func width(_ name: String) -> Int? { variable(name).map { widths[$0] } }
    func missing(_ name: String) -> [Double]? { variable(name).map { missingValues[$0] } }
    func numberLabels(_ name: String) -> [Double: String]? { variable(name).flatMap { valueLabels[slots[$0]] } }

    func number(_ name: String, row: Int) -> Double? {
        guard let index = variable(name) else { return nil }
        let at = (row * caseSize + slots[index] - 1) * 8
        return Double(bitPattern: UInt64(littleEndian: Array(data[at..<at + 8]).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
    }

    func text(_ name: String, row: Int) -> String? {
        guard let index = variable(name) else { return nil }
        var at = (row * caseSize + slots[index] - 1) * 8
        var bytes: [UInt8] = []
        for width in SAVWriter.segments(width: widths[index]) {
            let slots = (width + 7) / 8
            bytes += data[at..<at + min(width, 255)]
            at += slots * 8
        }
        return String(decoding: bytes, as: UTF8.self).trimmingTrailingSpaces
    }
}

/// Reads a Stata 118 file through its map, for the checks above.
struct DTAReader {
    struct Failure: Error, CustomStringConvertible { var description: String }

    let bytes: [UInt8]
    var count = 0
    var names: [String] = []
    var types: [UInt16] = []
    var formats: [String] = []
    var labels: [String] = []
    var valueLabels: [String: [Int32: String]] = [:]
    var labelSets: [String] = []
    var dataStart = 0
    var strls: [UInt64: String] = [:]

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
        func cString(_ at: Int, _ length: Int) -> String { String(decoding: bytes[at..<at + length].prefix { $0 != 0 }, as: UTF8.self) }
        func starts(_ tag: String, at: Int) -> Bool {
            bytes.count >= at + tag.utf8.count && Array(bytes[at..<at + tag.utf8.count]) == Array(tag.utf8)
        }
        let head = "<stata_dta><header><release>118</release><byteorder>LSF</byteorder><K>"
        guard starts(head, at: 0) else { throw Failure(description: "not a dta 118 LSF file") }
        let k = Int(u16(head.utf8.count))
        count = Int(u64(head.utf8.count + 2 + "</K><N>".utf8.count))
        guard let mapAt = (0..<min(bytes.count, 2000)).first(where: { starts("<map>", at: $0) }) else {
            throw Failure(description: "no <map>")
        }
        let map = (0..<14).map { Int(u64(mapAt + 5 + 8 * $0)) }
        let tags = [
            "<stata_dta>", "<map>", "<variable_types>", "<varnames>", "<sortlist>", "<formats>", "<value_label_names>", "<variable_labels>",
            "<characteristics>", "<data>", "<strls>", "<value_labels>", "</stata_dta>",
        ]
        for (offset, tag) in zip(map, tags) where !starts(tag, at: offset) {
            throw Failure(description: "the map's \(tag) offset is wrong")
        }
        guard map[13] == bytes.count else { throw Failure(description: "the map's end is not the file's") }
        types = (0..<k).map { u16(map[2] + 16 + 2 * $0) }
        names = (0..<k).map { cString(map[3] + 10 + 129 * $0, 129) }
        formats = (0..<k).map { cString(map[5] + 9 + 57 * $0, 57) }
        labelSets = (0..<k).map { cString(map[6] + 19 + 129 * $0, 129) }
        labels = (0..<k).map { cString(map[7] + 17 + 321 * $0, 321) }
        dataStart = map[9] + 6
        var at = map[10] + 7
        while starts("GSO", at: at) {
            let v = u32(at + 3)
            let o = u64(at + 7)
            let length = Int(u32(at + 16))
            strls[UInt64(v) | o << 16] = String(decoding: bytes[(at + 20)..<(at + 20 + length)].prefix { $0 != 0 }, as: UTF8.self)
            at += 20 + length
        }
        at = map[11] + 14
        while starts("<lbl>", at: at) {
            let name = cString(at + 9, 129)
            let n = Int(u32(at + 9 + 132))
            let table = at + 9 + 132 + 8
            let text = table + 8 * n
            var set: [Int32: String] = [:]
            for index in 0..<n {
                let offset = Int(u32(table + 4 * index))
                set[Int32(bitPattern: u32(table + 4 * n + 4 * index))] = cString(text + offset, bytes.count - text - offset)
            }
            valueLabels[name] = set
            at += 9 + Int(u32(at + 5)) + 132 + 6
        }
    }

    private func index(_ name: String) -> Int? { names.firstIndex(of: name) }
    func label(_ name: String) -> String? { index(name).map { labels[$0] } }
    func type(_ name: String) -> UInt16? { index(name).map { types[$0] } }
    func format(_ name: String) -> String? { index(name).map { formats[$0] } }

    private func width(_ type: UInt16) -> Int {
        switch type {
        case DTAWriter.double, DTAWriter.strL: 8
        case DTAWriter.long: 4
        default: Int(type)
        }
    }

    private func offset(_ name: String, row: Int) -> Int? {
        guard let column = index(name) else { return nil }
        let rowWidth = types.reduce(0) { $0 + width($1) }
        return dataStart + row * rowWidth + types[..<column].reduce(0) { $0 + width($1) }
    }

    func raw(_ name: String, row: Int) -> UInt64? {
        guard let at = offset(name, row: row) else { return nil }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
    }

    func double(_ name: String, row: Int) -> Double? { raw(name, row: row).map(Double.init(bitPattern:)) }

    func long(_ name: String, row: Int) -> Int32? {
        guard let at = offset(name, row: row) else { return nil }
        return Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) })
    }

    func text(_ name: String, row: Int) -> String? {
        guard let at = offset(name, row: row), let type = type(name) else { return nil }
        if type == DTAWriter.strL { return raw(name, row: row).flatMap { strls[$0] } }
        return String(decoding: bytes[at..<at + Int(type)].prefix { $0 != 0 }, as: UTF8.self)
    }
}
