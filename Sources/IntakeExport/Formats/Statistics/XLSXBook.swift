import Foundation
import IntakeCore
import ZIPFoundation

/// A workbook written as an .xlsx file that Excel, LibreOffice and openpyxl open: the parts a
/// workbook needs, zipped with ZIPFoundation, with sheets of text, number and date cells.
///
/// Text is always an inline string (`t="inlineStr"`), which a spreadsheet never runs as a
/// formula, however it starts (`=`, `+`, `-`, `@`); no cell is ever written as a formula. So text
/// is written exactly as given, with no leading `'` (unlike the CSV files). Characters XML cannot
/// hold (control characters other than tab, line feed and carriage return) are written as
/// Excel's `_xHHHH_` escapes, and a `_xHHHH_` already in the text gets its `_` escaped
/// (`_x005F_`), so Excel shows the text as given; a carriage return is written `&#13;` so that
/// XML readers keep it.
public struct XLSXBook: Sendable {
    public enum Cell: Sendable, Equatable {
        case text(String)
        case number(Double)
        /// A date, as days since 1970-01-01, shown `yyyy-mm-dd` (dates before 1 March 1900,
        /// which Excel cannot show as dates, are written as ISO text).
        case date(daysSince1970: Int)
    }

    public struct Row: Sendable, Equatable {
        /// 1-based.
        public var number: Int
        /// By column, `A` being 0; nil cells are empty.
        public var cells: [Cell?]

        public init(number: Int, cells: [Cell?]) {
            self.number = number
            self.cells = cells
        }
    }

    public struct Sheet: Sendable, Equatable {
        public var name: String
        public var rows: [Row]
        /// Keeps the first row in view when scrolling.
        public var freezesFirstRow: Bool

        public init(name: String, rows: [Row], freezesFirstRow: Bool = false) {
            self.name = name
            self.rows = rows
            self.freezesFirstRow = freezesFirstRow
        }

        /// A sheet of rows numbered from 1.
        public init(name: String, cells: [[Cell?]], freezesFirstRow: Bool = false) {
            self.init(
                name: name, rows: cells.enumerated().map { Row(number: $0.offset + 1, cells: $0.element) }, freezesFirstRow: freezesFirstRow
            )
        }
    }

    public var sheets: [Sheet]

    public init(sheets: [Sheet]) {
        self.sheets = sheets
    }

    /// The .xlsx file. Sheet names are made valid for Excel (see ``sheetNames(_:)``).
    public func data() throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        let styled = sheets.contains { $0.rows.contains { $0.cells.contains { if case .date? = $0 { true } else { false } } } }
        for (path, text) in Self.packageParts(sheetNames: sheets.map(\.name), styled: styled) {
            try Self.add(Data(text.utf8), as: path, to: archive)
        }
        for (number, sheet) in sheets.enumerated() {
            var xml = Self.worksheetStart(
                width: sheet.rows.map(\.cells.count).max() ?? 0, lastRow: sheet.rows.last?.number, freezesFirstRow: sheet.freezesFirstRow)
            for row in sheet.rows { Self.append(row, to: &xml) }
            try Self.add(Data((xml + Self.worksheetEnd).utf8), as: "xl/worksheets/sheet\(number + 1).xml", to: archive)
        }
        guard let data = archive.data else { throw ExportError("the .xlsx could not be made in memory; try again") }
        return data
    }

    /// A sheet given a row at a time, for a workbook too large to hold (``write(_:to:)``).
    struct RowSource {
        var name: String
        /// The most cells a row has.
        var width: Int
        /// The rows' count (they are numbered from 1).
        var rowCount: Int
        var freezesFirstRow: Bool
        /// Calls its argument with each row, in order.
        var rows: (_ body: (Row) throws -> Void) throws -> Void
    }

    /// Writes a workbook of `sheets` at `url`, readable by its owner only, holding a row at a
    /// time: each sheet's part is written to a file beside `url` first (removed after), then
    /// zipped from there.
    static func write(_ sheets: [RowSource], to url: URL) throws {
        let manager = FileManager.default
        var parts: [(path: String, file: URL, size: Int)] = []
        defer { for part in parts { try? manager.removeItem(at: part.file) } }
        var styled = false
        for (number, sheet) in sheets.enumerated() {
            let file = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).sheet\(number + 1).xml")
            var out = try ByteWriter(file: file)
            parts.append(("xl/worksheets/sheet\(number + 1).xml", file, 0))
            out.text(
                worksheetStart(
                    width: sheet.width, lastRow: sheet.rowCount > 0 ? sheet.rowCount : nil, freezesFirstRow: sheet.freezesFirstRow))
            try sheet.rows { row in
                var xml = ""
                if append(row, to: &xml) { styled = true }
                out.text(xml)
                try out.flushIfFull()
            }
            out.text(worksheetEnd)
            parts[parts.count - 1].size = out.position
            try out.close()
        }
        // An empty zip archive (its end record alone), made readable by its owner only, then filled.
        guard
            manager.createFile(
                atPath: url.path, contents: Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)),
                attributes: [.posixPermissions: 0o600])
        else { throw ExportError("cannot write \(url.path); check the disk has room") }
        do {
            let archive = try Archive(url: url, accessMode: .update)
            for (path, text) in packageParts(sheetNames: sheets.map(\.name), styled: styled) {
                try add(Data(text.utf8), as: path, to: archive)
            }
            for part in parts {
                guard let handle = FileHandle(forReadingAtPath: part.file.path) else {
                    throw ExportError("cannot read \(part.file.path), a part of \(url.lastPathComponent) being made")
                }
                defer { try? handle.close() }
                try archive.addEntry(
                    with: part.path, type: .file, uncompressedSize: Int64(part.size), modificationDate: fixedDate,
                    compressionMethod: .deflate
                ) { position, size in
                    try handle.seek(toOffset: UInt64(position))
                    return try handle.read(upToCount: size) ?? Data()
                }
            }
        } catch let error as ExportError {
            throw error
        } catch {
            // ZIPFoundation's errors (a write that failed, a part that could not be read) say little.
            throw ExportError("cannot write \(url.path): \((error as NSError).localizedDescription); check the disk has room")
        }
        // The archive is written out as it is closed, which says nothing of a failure: read it back.
        guard let written = try? Archive(url: url, accessMode: .read), Array(written).count == parts.count + 4 + (styled ? 1 : 0) else {
            throw ExportError("\(url.path) could not be written whole; check the disk has room")
        }
    }

    private static func add(_ bytes: Data, as path: String, to archive: Archive) throws {
        try archive.addEntry(
            with: path, type: .file, uncompressedSize: Int64(bytes.count), modificationDate: fixedDate, compressionMethod: .deflate
        ) { position, size in
            bytes.subdata(in: Int(position)..<Int(position) + size)
        }
    }

    /// The workbook's parts other than its sheets.
    static func packageParts(sheetNames: [String], styled: Bool) -> [(path: String, text: String)] {
        let names = Self.sheetNames(sheetNames)
        let numbers = names.indices.map { $0 + 1 }
        var parts: [(path: String, text: String)] = []
        parts.append(
            (
                "[Content_Types].xml",
                Self.declaration + #"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#
                    + #"<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>"#
                    + #"<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>"#
                    + numbers.map {
                        #"<Override PartName="/xl/worksheets/sheet\#($0).xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>"#
                    }.joined()
                    + (styled
                        ? #"<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>"#
                        : "")
                    + "</Types>"
            ))
        parts.append(
            (
                "_rels/.rels",
                Self.declaration
                    + #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#
            ))
        parts.append(
            (
                "xl/workbook.xml",
                Self.declaration
                    + #"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>"#
                    + zip(numbers, names).map { #"<sheet name="\#(Self.escaped($1))" sheetId="\#($0)" r:id="rId\#($0)"/>"# }.joined()
                    + "</sheets></workbook>"
            ))
        parts.append(
            (
                "xl/_rels/workbook.xml.rels",
                Self.declaration + #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
                    + numbers.map {
                        #"<Relationship Id="rId\#($0)" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet\#($0).xml"/>"#
                    }.joined()
                    + (styled
                        ? #"<Relationship Id="rId\#(names.count + 1)" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>"#
                        : "")
                    + "</Relationships>"
            ))
        if styled { parts.append(("xl/styles.xml", Self.styles)) }
        return parts
    }

    static let declaration = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#
    /// Parts carry a fixed date, so the same sheets always give the same bytes.
    static let fixedDate = Date(timeIntervalSince1970: 1_577_836_800)
    /// Style 1 shows a date as `yyyy-mm-dd`.
    static let styles =
        declaration + #"<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">"#
        + #"<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\-mm\-dd"/></numFmts>"#
        + #"<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>"#
        + #"<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>"#
        + #"<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>"#
        + #"<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>"#
        + #"<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>"#
        + #"<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>"#

    /// Excel's day number of 1970-01-01 (days since 1899-12-30), and of 1900-03-01, the first
    /// date it numbers as every other program does.
    static let excel1970 = 25_569
    static let first1900Date = -25_508

    /// A sheet's part up to its first row: `width` columns, `lastRow` its last row's number.
    static func worksheetStart(width: Int, lastRow: Int?, freezesFirstRow: Bool) -> String {
        var xml = #"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">"#
        if let lastRow, width > 0 { xml += #"<dimension ref="A1:\#(columnLetters(width - 1))\#(lastRow)"/>"# }
        if freezesFirstRow {
            xml +=
                #"<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>"#
        }
        return xml + "<sheetData>"
    }

    static let worksheetEnd = "</sheetData></worksheet>"

    /// Appends `row`'s XML to `xml`; returns whether it has a date cell (which needs the styles part).
    @discardableResult
    static func append(_ row: Row, to xml: inout String) -> Bool {
        var dated = false
        xml += #"<row r="\#(row.number)">"#
        for (column, cell) in row.cells.enumerated() {
            guard let cell else { continue }
            if case .date = cell { dated = true }
            let reference = columnLetters(column) + String(row.number)
            switch cell {
            case .text(let text) where text.isEmpty: continue
            case .text(let text):
                xml += #"<c r="\#(reference)" t="inlineStr"><is><t xml:space="preserve">\#(escaped(Self.fitting(text)))</t></is></c>"#
            case .number(let number) where number.isFinite:
                xml += #"<c r="\#(reference)"><v>\#(numberText(number))</v></c>"#
            case .number: continue
            case .date(let days) where days >= first1900Date:
                xml += #"<c r="\#(reference)" s="1"><v>\#(days + excel1970)</v></c>"#
            case .date(let days):
                let date = LocalDateText.iso(daysSince1970: days)
                xml += #"<c r="\#(reference)" t="inlineStr"><is><t>\#(date)</t></is></c>"#
            }
        }
        xml += "</row>"
        return dated
    }

    /// Excel's most characters in a cell (UTF-16 units): longer text is cut there, between
    /// characters (Excel would repair the file and cut it anyway); the CSV and JSON Lines files
    /// keep it whole.
    static let maxCellCharacters = 32_767

    static func fitting(_ text: String) -> String {
        guard text.utf16.count > maxCellCharacters else { return text }
        var out = ""
        var units = 0
        for character in text {
            units += character.utf16.count
            if units > maxCellCharacters { break }
            out.append(character)
        }
        return out
    }

    /// A number as a cell's value: whole numbers without a fraction, others as Swift writes
    /// them (the shortest text that reads back as the same double).
    static func numberText(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return "\(number)"
    }

    /// `A`, `B`, … `Z`, `AA`, … for a 0-based column.
    public static func columnLetters(_ index: Int) -> String {
        var index = index
        var letters = ""
        repeat {
            letters = String(UnicodeScalar(UInt8(65 + index % 26))) + letters
            index = index / 26 - 1
        } while index >= 0
        return letters
    }

    /// Names Excel accepts for `names`, in order: without `[ ] : * ? / \`, not starting or
    /// ending with `'`, at most 31 characters, not empty, unique ignoring case.
    public static func sheetNames(_ names: [String]) -> [String] {
        var used = Set<String>()
        return names.map { name in
            var base = String(name.map { "[]:*?/\\".contains($0) ? "_" : $0 })
            while base.hasPrefix("'") { base.removeFirst() }
            while base.hasSuffix("'") { base.removeLast() }
            if base.isEmpty || base.lowercased() == "history" { base = "Sheet" + base }
            base = String(base.prefix(31))
            var candidate = base
            var suffix = 2
            while used.contains(candidate.lowercased()) {
                let tail = "_\(suffix)"
                candidate = String(base.prefix(31 - tail.count)) + tail
                suffix += 1
            }
            used.insert(candidate.lowercased())
            return candidate
        }
    }

    /// Text as XML character data (see the type's note): markup escaped, a carriage return as
    /// `&#13;`, characters XML cannot hold as `_xHHHH_`, and a `_xHHHH_` in the text escaped.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            case "_" where looksLikeEscape(scalars, at: index): out += "_x005F_"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "_x" + String(format: "%04X", scalar.value) + "_"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Whether `_xHHHH_` starts at `index`.
    private static func looksLikeEscape(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        guard index + 6 < scalars.count, scalars[index + 1] == "x", scalars[index + 6] == "_" else { return false }
        return scalars[(index + 2)...(index + 5)].allSatisfy { $0.properties.isASCIIHexDigit }
    }
}

/// ISO dates from day counts, for cells Excel cannot hold as dates.
enum LocalDateText {
    static func iso(daysSince1970 days: Int) -> String {
        let (year, month, day) = CivilDays.date(fromDays: Int64(days))
        return String(format: "%04d-%02d-%02d", year, month, day)
    }
}
