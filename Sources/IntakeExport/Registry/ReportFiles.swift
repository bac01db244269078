import Foundation

/// Writes `reports.jsonl` and `reports_long.csv` from pages of reports, in one pass.
public struct ReportFiles {
    var options: ExportOptions
    var files: [ExportSideFile]
    var folder: URL

    /// Returns how many reports were written.
    func write(nextPage: () async throws -> [ExportReport]?) async throws -> Int {
        let lines = files.contains(.reports) ? try FileSink(url: folder.appendingPathComponent(ExportSideFile.reports.fileName)) : nil
        let long =
            files.contains(.reportsLong) ? try FileSink(url: folder.appendingPathComponent(ExportSideFile.reportsLong.fileName)) : nil
        try long?.write(Array(CSV.line(ExportReport.longColumns).utf8))
        var count = 0
        while let page = try await nextPage() {
            for report in page {
                try lines?.write(report.jsonLine)
                try long?.write(Array(report.longLines(marker: options.unansweredCode, raw: options.rawCells).utf8))
            }
            count += page.count
        }
        try lines?.close()
        try long?.close()
        return count
    }
}

extension ReportFiles {
    /// One of the report files through `write` (an HTTP response body).
    public static func stream(
        _ file: ExportSideFile, options: ExportOptions, nextPage: () async throws -> [ExportReport]?, write: ([UInt8]) async throws -> Void
    ) async throws -> Int {
        var count = 0
        if file == .reportsLong { try await write(Array(CSV.line(ExportReport.longColumns).utf8)) }
        while let page = try await nextPage() {
            var chunk: [UInt8] = []
            for report in page {
                if file == .reportsLong {
                    chunk += Array(report.longLines(marker: options.unansweredCode, raw: options.rawCells).utf8)
                } else {
                    chunk += report.jsonLine
                }
            }
            try await write(chunk)
            count += page.count
        }
        return count
    }
}
