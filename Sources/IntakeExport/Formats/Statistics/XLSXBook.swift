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
        func add(_ path: String, _ text: String) throws {
            let bytes = Data(text.utf8)
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(bytes.count), modificationDate: Self.fixedDate, compressionMethod: .deflate
            ) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let names = Self.sheetNames(sheets.map(\.name))
        let styled = sheets.contains { $0.rows.contains { $0.cells.contains { if case .date? = $0 { true } else { false } } } }
        let numbers = 1...sheets.count
        try add(
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
                + "</Types>")
        try add(
            "_rels/.rels",
            Self.declaration
                + #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#
        )
        try add(
            "xl/workbook.xml",
            Self.declaration
                + #"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>"#
                + zip(numbers, names).map { #"<sheet name="\#(Self.escaped($1))" sheetId="\#($0)" r:id="rId\#($0)"/>"# }.joined()
                + "</sheets></workbook>")
        try add(
            "xl/_rels/workbook.xml.rels",
            Self.declaration + #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
                + numbers.map {
                    #"<Relationship Id="rId\#($0)" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet\#($0).xml"/>"#
                }.joined()
                + (styled
                    ? #"<Relationship Id="rId\#(sheets.count + 1)" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>"#
                    : "")
                + "</Relationships>")
        if styled { try add("xl/styles.xml", Self.styles) }
        for (number, sheet) in zip(numbers, sheets) {
            try add("xl/worksheets/sheet\(number).xml", Self.worksheet(sheet))
        }
        guard let data = archive.data else { throw ExportError("the .xlsx could not be made in memory; try again") }
        return data
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

    static func worksheet(_ sheet: Sheet) -> String {
        var xml = #"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">"#
        let width = sheet.rows.map(\.cells.count).max() ?? 0
        if let last = sheet.rows.last?.number, width > 0 { xml += #"<dimension ref="A1:\#(columnLetters(width - 1))\#(last)"/>"# }
        if sheet.freezesFirstRow {
            xml +=
                #"<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>"#
        }
        xml += "<sheetData>"
        for row in sheet.rows {
            xml += #"<row r="\#(row.number)">"#
            for (column, cell) in row.cells.enumerated() {
                guard let cell else { continue }
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
        }
        return xml + "</sheetData></worksheet>"
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
