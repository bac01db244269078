import Foundation
import IntakeCore
import Testing

@testable import IntakeExport

struct FolderExportTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-export-\(UUID().uuidString)")

    @Test func jsonLinesFilesSpanningTwoVersionsBecomeOneFolder() async throws {
        let (v1, v2) = try Fixtures.versions()
        let a = try write("a.jsonl", (0..<30).map { _ in Fixtures.record(v1, [1: .yesNo(true), 2: .integer(3)]) })
        let b = try write("b.jsonl", (0..<20).map { _ in Fixtures.record(v2, [1: .yesNo(false), 3: .yesNo(true)]) })
        let export = try JSONLinesExport(
            inputs: [a, b], available: [v1, v2], options: ExportOptions(), keyer: try PatientKeyer(secret: Fixtures.secret))
        let folder = directory.appendingPathComponent("out")
        let summary = try await export.write(to: folder, cursor: "42")
        #expect(summary.records == 50 && summary.versions == [v1.version, v2.version] && summary.cursor == "42")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(Set(files) == Set(ExportFormat.allCases.map(\.fileName) + ["export.json"]))
        #expect(try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int == 0o700)
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(file).path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file) is readable by its owner only")
        }
        let table = try CSVReader.table(try String(contentsOf: folder.appendingPathComponent("records.csv"), encoding: .utf8))
        #expect(table.count == 50)
        #expect(Set(table.map { $0["questionnaire_version"]! }) == [v1.version, v2.version])
        #expect(table.allSatisfy { $0["patient_key"] == table[0]["patient_key"] }, "one patient, one key")
        let siblings = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!siblings.contains { $0.contains("partial") }, "the staging folder is renamed into place")
    }

    @Test func aFailedExportLeavesNoFolderBehind() async throws {
        let (v1, v2) = try Fixtures.versions()
        let plan = try ExportPlan(questionnaires: [v1])
        let folder = directory.appendingPathComponent("out")
        var pages = [v1, v2].map { [ExportInput(record: Fixtures.item(Fixtures.record($0, [1: .yesNo(true)])))] }
        await #expect(throws: ExportError.self) {
            _ = try await FolderExport(plan: plan, folder: folder).write(cursor: nil, since: nil) {
                pages.isEmpty ? nil : pages.removeFirst()
            }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty ?? true)
    }

    @Test func aKilledExportsLeftoversAreRemovedByTheNextExport() async throws {
        let (v1, _) = try Fixtures.versions()
        let stale = directory.appendingPathComponent(".out.partial-dead1234")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)
        try Data("half an export".utf8).write(to: stale.appendingPathComponent("records.csv"))
        let other = directory.appendingPathComponent(".other.partial-alive")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        _ = try await FolderExport(plan: try ExportPlan(questionnaires: [v1]), folder: directory.appendingPathComponent("out")).write(
            cursor: nil, since: nil
        ) { nil }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == [".other.partial-alive", "out"])
    }

    @Test func anExistingFolderIsNeverOverwritten() async throws {
        let (v1, _) = try Fixtures.versions()
        let folder = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: folder.appendingPathComponent("mine.txt"))
        await #expect {
            _ = try await FolderExport(plan: try ExportPlan(questionnaires: [v1]), folder: folder).write(cursor: nil, since: nil) { nil }
        } throws: { "\($0)".contains("already exists and is not empty") }
        #expect(try String(contentsOf: folder.appendingPathComponent("mine.txt"), encoding: .utf8) == "keep")
    }

    @Test func aBadLineIsReportedByNumberWithoutItsContent() throws {
        let (v1, _) = try Fixtures.versions()
        let good = try Fixtures.record(v1, [1: .yesNo(true)]).jsonData()
        let url = directory.appendingPathComponent("bad.jsonl")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try (good + Data("\r\n\n".utf8) + Data("{\"secret\": \"Amina Haddad\"}\n".utf8)).write(to: url)
        let reader = try JSONLinesReader(url: url)
        #expect {
            _ = try reader.nextPage()
        } throws: { error in
            let text = "\(error)"
            return text.contains("bad.jsonl:3:") && !text.contains("Amina")
        }
        #expect(throws: ExportError.self) { try JSONLinesExport(inputs: [url], available: [v1], options: ExportOptions(), keyer: nil) }
    }

    @Test func recordsOfAnUnknownVersionNameTheVersionAndTheFix() throws {
        let (v1, v2) = try Fixtures.versions()
        let url = try write("v2.jsonl", [Fixtures.record(v2, [1: .yesNo(true)])])
        #expect {
            _ = try JSONLinesExport(inputs: [url], available: [v1], options: ExportOptions(), keyer: nil)
        } throws: { "\($0)".contains(v2.version) && "\($0)".contains("--questionnaire") }
    }

    @Test func theReaderHandlesALastLineWithoutNewlineAndLargeFiles() throws {
        let (v1, _) = try Fixtures.versions()
        let records = (0..<1200).map { _ in Fixtures.record(v1, [1: .yesNo(true), 7: .text(String(repeating: "x", count: 900))]) }
        let url = try write("many.jsonl", records, finalNewline: false)
        let reader = try JSONLinesReader(url: url)
        var count = 0
        while let page = try reader.nextPage(limit: 500) { count += page.count }
        #expect(count == 1200)
    }

    private func write(_ name: String, _ records: [PatientResponse], finalNewline: Bool = true) throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var data = Data()
        for (index, record) in records.enumerated() {
            data += try record.jsonData()
            if finalNewline || index < records.count - 1 { data += Data("\n".utf8) }
        }
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }
}
