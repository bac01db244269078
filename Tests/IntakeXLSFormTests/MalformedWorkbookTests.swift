import Foundation
import IntakeCore
import Testing
import ZIPFoundation

@testable import IntakeXLSForm

/// Spreadsheets that are not what they claim get a clear error, never a crash: the importer is
/// fuzzed with mutated .xlsx bytes and text forms.
@Suite struct MalformedWorkbookTests {
    func refusal(_ data: Data, _ name: String = "form.xlsx") -> String? {
        do {
            _ = try XLSFormImporter.workbook(data: data, fileName: name)
            return nil
        } catch {
            return error.message
        }
    }

    /// An .xlsx made of these parts.
    func xlsx(_ parts: [String: String]) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (path, text) in parts.sorted(by: { $0.key < $1.key }) {
            let bytes = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) {
                position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return archive.data!
    }

    func parts(sheet: String) -> [String: String] {
        [
            "xl/workbook.xml": #"<workbook xmlns:r="r"><sheets><sheet name="survey" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
            "xl/_rels/workbook.xml.rels": #"<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>"#,
            "xl/worksheets/sheet1.xml": sheet,
        ]
    }

    @Test func whatIsNotAWorkbookIsSaidSo() throws {
        #expect(refusal(Data("type,name\n".utf8))?.contains("not a zip archive") == true)
        #expect(refusal(Data([0x50, 0x4B, 3, 4, 0, 0, 0]))?.contains("damaged") == true)
        #expect(refusal(Data(), "form.xls")?.contains("not an OLE compound file") == true)
        #expect(
            refusal(Data([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1] + [UInt8](repeating: 0, count: 504)), "form.xls")?.contains(
                "damaged") == true)
        #expect(refusal(Data(), "form.ods")?.contains("not an XLSForm file") == true)
        #expect(refusal(try xlsx(["hello.txt": "hi"]))?.contains("no xl/workbook.xml") == true)
        #expect(refusal(Data([0xFF, 0xFE, 0]), "form.csv")?.contains("not UTF-8") == true)
        #expect(refusal(Data("a,\"open\n".utf8), "form.csv")?.contains("never closed") == true)
    }

    @Test func aFormulaIsReadAsItsSavedValueAndSaidSo() throws {
        // As pyxform reads it: the value Excel saved (a number, or a string result t="str").
        let sheet =
            #"<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>type</t></is></c><c r="B1" t="inlineStr"><is><t>name</t></is></c><c r="C1" t="inlineStr"><is><t>label</t></is></c></row>"#
            + #"<row r="2"><c r="A2" t="str"><f>LOWER("TEXT")</f><v>text</v></c><c r="B2" t="inlineStr"><is><t>q</t></is></c><c r="C2"><f>1+1</f><v>2</v></c><c r="XFD2" s="3"/></row></sheetData></worksheet>"#
        let workbook = try XLSFormImporter.workbook(data: try xlsx(parts(sheet: sheet)), fileName: "form.xlsx")
        #expect(workbook.sheets[0].formulas == ["A2", "C2"])
        #expect(workbook.sheets[0].rows[1].cells == ["text", "q", "2"], "a styled empty cell beyond column 500 is no cell of the form")
        let result = XLSFormImporter.importForm(workbook, fallbackId: "f")
        #expect(result.isComplete, "\(result.problems)")
        #expect(result.leftOut.contains { $0.sheet == "survey" && $0.message.contains("2 cells hold formulas (A2, C2)") })
    }

    @Test func hugeCellsDTDsAndBrokenXMLAreRefused() throws {
        let huge =
            #"<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>"# + String(repeating: "x", count: 40_000)
            + "</t></is></c></row></sheetData></worksheet>"
        #expect(refusal(try xlsx(parts(sheet: huge)))?.contains("longer than 32767") == true)
        let bomb = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><worksheet><sheetData/></worksheet>"#
        #expect(refusal(try xlsx(parts(sheet: bomb)))?.contains("DTD") == true)
        let broken = refusal(try xlsx(parts(sheet: #"<worksheet><sheetData><row r="1"><c r="A1"></row></sheetData>"#)))
        #expect(broken?.contains("not well-formed") == true, "\(broken ?? "read")")
        let far = #"<worksheet><sheetData><row r="1"><c r="ZZZ1" t="inlineStr"><is><t>x</t></is></c></row></sheetData></worksheet>"#
        #expect(refusal(try xlsx(parts(sheet: far)))?.contains("beyond the 500 columns") == true)
        let shared = #"<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>7</v></c></row></sheetData></worksheet>"#
        #expect(refusal(try xlsx(parts(sheet: shared)))?.contains("shared string") == true)
        // A part that inflates past the limit is stopped while it inflates.
        let big = "<worksheet><sheetData>" + String(repeating: " ", count: WorkbookLimits.partBytes + 10) + "</sheetData></worksheet>"
        #expect(refusal(try xlsx(parts(sheet: big)))?.contains("expands to more than") == true)
    }

    /// Found by the fuzzer (seed 4242): a sheet whose deflate stream runs past its entry's bytes
    /// made ZIPFoundation's reader loop for ever at the end of the file; it is refused at once.
    @Test func aCompressedPartThatRunsPastItsEntryIsRefusedNotReadForEver() throws {
        let data = try Data(contentsOf: Fixtures.forms.appendingPathComponent("damaged/deflate-stream-past-its-entry.xlsx"))
        let started = ContinuousClock.now
        let said = refusal(data)
        #expect(said?.contains("compressed data is damaged") == true || said?.contains("is damaged") == true, "\(said ?? "read")")
        #expect(ContinuousClock.now - started < .seconds(30), "refused, not read until the test gives up")
    }

    @Test func aWorkbookWithoutASurveySheetNamesTheSheetsItHas() throws {
        let result = XLSFormImporter.importForm(Workbook(sheets: [Sheet(name: "Sheet1", cells: [["a"]])]), fallbackId: "x")
        #expect(
            result.problems.first?.message == "the workbook has no 'survey' sheet"
                && result.problems.first?.hint?.contains("Sheet1") == true)
        let noType = XLSFormImporter.importForm(
            Workbook(sheets: [Sheet(name: "survey", cells: [["name", "label"], ["q", "Q"]])]), fallbackId: "x")
        #expect(noType.problems.contains { $0.message == "the survey sheet has no 'type' column" })
    }

    @Test func mutatedFormsAreReadOrRefusedNeverACrash() throws {
        let seed = ProcessInfo.processInfo.environment["INTAKE_TEST_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64(UInt32.max))
        let count = ProcessInfo.processInfo.environment["INTAKE_FUZZ_COUNT"].flatMap(Int.init).map { max(100, $0 / 1000) } ?? 150
        print("xlsform fuzz: seed \(seed), \(count) inputs of each kind (re-run with INTAKE_TEST_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let xlsx = try XLSFormExporter.xlsx(try Fixtures.bundled())
        let markdown = try Data(contentsOf: Fixtures.forms.appendingPathComponent("household-visit.md"))
        let csv = try Data(contentsOf: Fixtures.forms.appendingPathComponent("clinic-intake.csv"))
        // An old binary workbook: sector chains, record lengths and string runs mutated.
        let xls = try Data(contentsOf: Fixtures.forms.appendingPathComponent("corpus/pyxform/forms/tests__example_xls__specify_other.xls"))
        var (read, refused) = (0, 0)
        for index in 0..<(count * 4) {
            let (original, name) = [(xlsx, "f.xlsx"), (markdown, "f.md"), (csv, "f.csv"), (xls, "f.xls")][index % 4]
            var bytes = [UInt8](original)
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(contentsOf: [UInt8]("|,<>\"'${}\n".utf8).shuffled(using: &random).prefix(3), at: at)
                default: bytes = Array(bytes.prefix(at))
                }
                if bytes.isEmpty { bytes = [0] }
            }
            if let trace = ProcessInfo.processInfo.environment["INTAKE_FUZZ_TRACE"] {
                // Each input written before it is read, to find one that stalls.
                try Data(bytes).write(to: URL(fileURLWithPath: "\(trace).\(name.split(separator: ".").last!)"))
            }
            do {
                let workbook = try XLSFormImporter.workbook(data: Data(bytes), fileName: name)
                let result = XLSFormImporter.importForm(workbook, fallbackId: "fuzz")
                #expect(result.questionnaire != nil || !result.problems.isEmpty, "an import that fails says why")
                read += 1
            } catch {
                #expect(!error.message.isEmpty && !error.hint.isEmpty)
                refused += 1
            }
        }
        print("xlsform fuzz: \(read) read, \(refused) refused")
    }
}
