import Foundation
import IntakeCore

/// One table's rows for the statistics files, kept on disk as the records pass, and what its
/// columns' values say about their types (``ColumnFacts``), gathered meanwhile.
///
/// A .sav or .dta header holds each variable's type and width and the number of cases, which
/// are known only once every record has been read; so the rows wait here, in the export's
/// staging folder (readable by its owner only, removed with it), and the files are written from
/// them afterwards, a row at a time: the export's memory does not grow with its records.
///
/// A row is a cell per column, each a byte (0: empty, 1: asked and not answered, 2: text)
/// and, for a text, its length (LEB128) and its UTF-8 bytes.
final class StatisticsSpool {
    let url: URL
    let columnCount: Int
    private(set) var rowCount = 0
    private(set) var facts: [ColumnFacts]
    /// The unanswered code as a number in a numeric variable (``SAVWriter/unansweredNumber(code:)``):
    /// the facts say which interpretation of the values meets it.
    let sentinel: Double
    /// The rows on their way to the file.
    private var out: ByteWriter
    /// Whether ``finish()`` (or ``remove()``) closed the file.
    private var closed = false
    static let bufferSize = ByteWriter.bufferSize

    init(url: URL, columns: Int, sentinel: Double) throws(ExportError) {
        self.url = url
        columnCount = columns
        self.sentinel = sentinel
        facts = Array(repeating: ColumnFacts(), count: columns)
        out = try ByteWriter(file: url)
    }

    deinit { remove() }

    /// Removes the file (before the staging folder becomes the export's).
    func remove() {
        out = ByteWriter()  // the file's handle closes with the writer that had it
        closed = true
        try? FileManager.default.removeItem(at: url)
    }

    /// Adds a row of `columnCount` cells (nil: empty).
    func append(_ cells: [CellValue?]) throws(ExportError) {
        guard cells.count == columnCount else {
            throw ExportError(
                "a row of \(cells.count) cells was given to a table of \(columnCount) columns (\(url.lastPathComponent)); this is a bug, please report it"
            )
        }
        guard !closed else {
            throw ExportError("\(url.lastPathComponent) takes no more rows once it is finished; this is a bug, please report it")
        }
        for (index, cell) in cells.enumerated() {
            facts[index].add(cell, sentinel: sentinel)
            switch cell {
            case nil: out.byte(0)
            case .unanswered?: out.byte(1)
            case .text(let text)?, .plain(let text)?:
                out.byte(2)
                var text = text
                text.withUTF8 { bytes in
                    var length = bytes.count
                    while length >= 0x80 {
                        out.byte(UInt8(length & 0x7F) | 0x80)
                        length >>= 7
                    }
                    out.byte(UInt8(length))
                    out.bytes.append(contentsOf: bytes)
                }
            }
        }
        rowCount += 1
        try out.flushIfFull()
    }

    /// Writes what is left; no row is added after.
    func finish() throws(ExportError) {
        guard !closed else { return }
        try out.close()
        closed = true
    }

    /// Calls `body` with each row's cells, in order (texts as ``CellValue/text(_:)``); may be
    /// called again, each time from the first row. After ``finish()``.
    func forEachRow(_ body: ([CellValue?]) throws -> Void) throws {
        guard let reader = FileHandle(forReadingAtPath: url.path) else {
            throw ExportError("cannot read \(url.path), the rows kept for the statistics files")
        }
        func unreadable(_ error: any Error) -> ExportError {
            ExportError("cannot read \(url.path), the rows kept for the statistics files: \((error as NSError).localizedDescription)")
        }
        defer { try? reader.close() }
        var chunk: [UInt8] = []
        var position = 0
        var atEnd = false
        /// Whether `count` bytes are there from `position`, reading on as needed.
        func have(_ count: Int) throws -> Bool {
            while chunk.count - position < count, !atEnd {
                chunk.removeSubrange(0..<position)
                position = 0
                let more: Data
                do { more = try reader.read(upToCount: max(Self.bufferSize, count)) ?? Data() } catch { throw unreadable(error) }
                if more.isEmpty { atEnd = true } else { chunk.append(contentsOf: more) }
            }
            return chunk.count - position >= count
        }
        func damaged() -> ExportError {
            ExportError("\(url.lastPathComponent), the rows kept for the statistics files, is damaged or ends early; export again")
        }
        var cells = [CellValue?](repeating: nil, count: columnCount)
        for _ in 0..<rowCount {
            for column in 0..<columnCount {
                guard try have(1) else { throw damaged() }
                let tag = chunk[position]
                position += 1
                switch tag {
                case 0: cells[column] = nil
                case 1: cells[column] = .unanswered
                default:
                    var length = 0
                    var shift = 0
                    while true {
                        guard try have(1) else { throw damaged() }
                        let byte = chunk[position]
                        position += 1
                        length |= Int(byte & 0x7F) << shift
                        shift += 7
                        if byte < 0x80 { break }
                        // No text is longer than 2^49 bytes: a longer length is a damaged file.
                        guard shift < 49 else { throw damaged() }
                    }
                    guard try have(length) else { throw damaged() }
                    cells[column] = .text(String(decoding: chunk[position..<position + length], as: UTF8.self))
                    position += length
                }
            }
            try body(cells)
        }
    }
}

/// What one column's values say about the type it can have (``StatisticsVariable/Kind``) and
/// the room it needs, gathered a value at a time so the values need not be held.
struct ColumnFacts {
    /// Texts seen (answers, codes, numbers as text: every cell neither empty nor unanswered).
    var texts = 0
    /// Whether every text is `0` or `1`.
    var indicators = true
    /// … a plain number within 10^15 (an integer Excel keeps exactly).
    var integers = true
    /// … a plain number short of what SPSS and Stata read as missing.
    var numbers = true
    /// … an ISO date.
    var dates = true
    /// … a whole-number choice code (``StatisticsVariable/wholeCode(_:)``).
    var wholeCodes = true
    var unanswered = false
    /// The UTF-8 bytes of the longest text, and of the longest once cut to what SPSS holds.
    var longest = 0
    var longestInSPSS = 0
    /// The most decimals a plain number's shortest text has (16 where it needs an exponent).
    var decimals = 0
    /// Whether a value, read as a plain number, a whole code or a date's day count, is the
    /// unanswered code's number (so that number cannot mean "asked, not answered" here).
    var sentinelAsNumber = false
    var sentinelAsCode = false
    var sentinelAsDate = false

    init() {}

    /// The facts of `cells`.
    init(_ cells: [CellValue?], sentinel: Double) {
        for cell in cells { add(cell, sentinel: sentinel) }
    }

    mutating func add(_ cell: CellValue?, sentinel: Double) {
        let text: String
        switch cell {
        case nil: return
        case .unanswered?:
            unanswered = true
            return
        case .text(let value)?, .plain(let value)?: text = value
        }
        texts += 1
        let bytes = text.utf8.count
        longest = max(longest, bytes)
        longestInSPSS = max(longestInSPSS, bytes > SAVWriter.maxWidth ? text.truncated(bytes: SAVWriter.maxWidth).utf8.count : bytes)
        if indicators, text != "0", text != "1" { indicators = false }
        if integers || numbers {
            if let value = StatisticsVariable.plainNumber(text) {
                if abs(value) >= 1e15 { integers = false }
                if abs(value) >= 8.9e307 { numbers = false }
                if value == sentinel { sentinelAsNumber = true }
                if decimals < 16, value != value.rounded() {
                    let shortest = "\(value)"
                    decimals = shortest.contains("e") ? 16 : max(decimals, min(16, shortest.split(separator: ".").last.map(\.count) ?? 0))
                }
            } else {
                integers = false
                numbers = false
            }
        }
        if wholeCodes {
            if let code = StatisticsVariable.wholeCode(text) {
                if Double(code) == sentinel { sentinelAsCode = true }
            } else {
                wholeCodes = false
            }
        }
        if dates {
            if let date = LocalDate(iso: text) {
                if Double(StatisticsVariable.daysSince1970(date)) == sentinel { sentinelAsDate = true }
            } else {
                dates = false
            }
        }
    }
}
