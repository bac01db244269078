import Foundation
import ZIPFoundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the cells of an .xlsx file (Office Open XML): the workbook's sheet list, its shared
/// strings and each sheet's cells, as text. Only what an XLSForm needs; a formula's cell is read
/// as the value Excel saved with it, as pyxform reads it.
enum XLSXReader {
    static func read(_ data: Data) throws(WorkbookError) -> Workbook {
        guard data.count <= WorkbookLimits.fileBytes else {
            throw WorkbookError(
                "the file is \(data.count) bytes; an XLSForm may be at most \(WorkbookLimits.fileBytes)",
                hint: "an XLSForm is a few hundred rows; check that this is the right file")
        }
        guard data.starts(with: [0x50, 0x4B]) else {
            throw WorkbookError(
                "the file is not an .xlsx workbook (it is not a zip archive)",
                hint:
                    "save the form from Excel or LibreOffice as 'Excel 2007-365 (.xlsx)', or give the file its own extension (.xls, .csv, .md)"
            )
        }
        // The zip is read here, entry by entry from its central directory, each entry's bytes
        // bounded by the file: ZIPFoundation's own reader inflates until the stream says it ends,
        // and loops for ever on a damaged file whose stream runs past its end.
        let archive = try ZipEntries(data)
        let workbookPart = try part("xl/workbook.xml", in: archive, required: true)!
        let sheets = try SheetListParser.parse(workbookPart)
        guard !sheets.isEmpty else {
            throw WorkbookError("the workbook has no sheets", hint: "an XLSForm has a 'survey' sheet, and usually 'choices' and 'settings'")
        }
        let relations = try part("xl/_rels/workbook.xml.rels", in: archive, required: true).map(RelationsParser.parse) ?? [:]
        let shared = try part("xl/sharedStrings.xml", in: archive, required: false).map(SharedStringsParser.parse) ?? []
        guard sheets.count <= 64 else {
            throw WorkbookError(
                "the workbook has \(sheets.count) sheets",
                hint: "an XLSForm has a survey, a choices and a settings sheet; remove the others")
        }
        var result: [Sheet] = []
        var read: Set<String> = []
        for (name, relation) in sheets {
            // Only the sheets an XLSForm has are read (once each); the others are named, not parsed.
            guard Workbook.formSheets.contains(name.lowercased()), read.insert(name.lowercased()).inserted else {
                result.append(Sheet(name: name, rows: []))
                continue
            }
            guard let target = relations[relation] else {
                throw WorkbookError(
                    "the workbook lists sheet '\(name)' but not where it is",
                    hint: "open it in Excel or LibreOffice and save it again as .xlsx")
            }
            let path = target.hasPrefix("/") ? String(target.dropFirst()) : "xl/" + target
            guard let bytes = try part(path, in: archive, required: false) else {
                throw WorkbookError(
                    "the workbook's sheet '\(name)' is missing from the file",
                    hint: "open it in Excel or LibreOffice and save it again as .xlsx")
            }
            result.append(try SheetParser.parse(bytes, sheet: name, shared: shared))
        }
        return Workbook(sheets: result)
    }

    /// A part's bytes, inflated at most to ``WorkbookLimits/partBytes``, refusing DTDs (no xlsx
    /// part has one; entities are how XML is made to expand).
    private static func part(_ path: String, in archive: ZipEntries, required: Bool) throws(WorkbookError) -> Data? {
        guard let data = try archive.read(path) else {
            if required {
                throw WorkbookError(
                    "the file has no \(path), so it is not an .xlsx workbook", hint: "save the form from Excel or LibreOffice as .xlsx")
            }
            return nil
        }
        // Foundation's XML parser traps on some bytes that are not UTF-8 (in a namespace), and
        // every spreadsheet writes its parts in UTF-8: anything else is refused before parsing.
        // (No NUL either: UTF-16 written without a mark would pass for UTF-8 and hide a DTD.)
        guard String(data: data, encoding: .utf8) != nil, !data.contains(0) else {
            throw WorkbookError(
                "\(path) is not UTF-8 text, as every spreadsheet writes it",
                hint: "open the file in Excel or LibreOffice and save it again as .xlsx")
        }
        if data.range(of: Data("<!DOCTYPE".utf8)) != nil || data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw WorkbookError(
                "\(path) declares a DTD, which no spreadsheet writes", hint: "save the form from Excel or LibreOffice as .xlsx")
        }
        return data
    }

}

/// Runs a delegate over a part and turns a parse failure into a ``WorkbookError``.
private func parsePart(_ data: Data, with delegate: PartParser, part: String) throws(WorkbookError) {
    let parser = XMLParser(data: data)
    parser.shouldResolveExternalEntities = false
    parser.delegate = delegate
    let ok = parser.parse()
    if let failure = delegate.failure { throw failure }
    guard ok, !delegate.malformed else {
        throw WorkbookError(
            "\(part) is not well-formed XML (line \(parser.lineNumber))",
            hint: "open the file in Excel or LibreOffice and save it again as .xlsx")
    }
}

/// What every part's reader has: the failure it stopped at, and whether the XML was broken
/// (some XML parsers report that only to the delegate).
private class PartParser: NSObject, XMLParserDelegate {
    var failure: WorkbookError?
    var malformed = false

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        malformed = true
    }

    // Subclasses override these: on Linux the protocol's defaults would otherwise be the ones
    // called (a subclass's own methods are not the class's witnesses).
    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
    ) {}
    func parser(_ parser: XMLParser, foundCharacters string: String) {}
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {}
}

/// `xl/workbook.xml`: the sheets in order, each with its relation id.
private final class SheetListParser: PartParser {
    var sheets: [(String, String)] = []

    static func parse(_ data: Data) throws(WorkbookError) -> [(String, String)] {
        let delegate = SheetListParser()
        try parsePart(data, with: delegate, part: "xl/workbook.xml")
        return delegate.sheets
    }

    override func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
    ) {
        guard local(name) == "sheet", let sheet = attributes["name"] else { return }
        let relation = attributes.first { local($0.key) == "id" && $0.key != "sheetId" }?.value ?? ""
        sheets.append((sheet, relation))
    }
}

/// `xl/_rels/workbook.xml.rels`: relation id → part path.
private final class RelationsParser: PartParser {
    var targets: [String: String] = [:]

    static func parse(_ data: Data) throws(WorkbookError) -> [String: String] {
        let delegate = RelationsParser()
        try parsePart(data, with: delegate, part: "xl/_rels/workbook.xml.rels")
        return delegate.targets
    }

    override func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
    ) {
        guard local(name) == "Relationship", let id = attributes["Id"], let target = attributes["Target"] else { return }
        targets[id] = target
    }
}

/// `xl/sharedStrings.xml`: the strings cells of type `s` point at (rich runs joined; phonetic
/// runs left out).
private final class SharedStringsParser: PartParser {
    var strings: [String] = []
    private var current: String?
    private var inText = false
    private var inPhonetic = false

    static func parse(_ data: Data) throws(WorkbookError) -> [String] {
        let delegate = SharedStringsParser()
        try parsePart(data, with: delegate, part: "xl/sharedStrings.xml")
        return delegate.strings
    }

    override func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
    ) {
        switch local(name) {
        case "si":
            current = ""
            currentLength = 0
        case "t": inText = !inPhonetic
        case "rPh": inPhonetic = true
        default: break
        }
    }

    private var currentLength = 0

    override func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard inText, current != nil else { return }
        current!.append(string)
        currentLength += string.count
        if currentLength > WorkbookLimits.cellCharacters {
            failure = WorkbookError(
                "a text in the workbook is longer than \(WorkbookLimits.cellCharacters) characters, Excel's own limit for a cell",
                hint: "shorten it: a label or a hint is a sentence or two")
            parser.abortParsing()
        }
    }

    override func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch local(name) {
        case "si":
            strings.append(current ?? "")
            current = nil
        case "t": inText = false
        case "rPh": inPhonetic = false
        default: break
        }
    }
}

/// One worksheet's cells.
private final class SheetParser: PartParser {
    let sheet: String
    let shared: [String]
    var rows: [Sheet.Row] = []
    private var rowNumber = 0
    private var cells: [String] = []
    private var cellColumn = 0
    private var cellType = ""
    private var cellReference = ""
    private var value: String?
    private var valueLength = 0
    private var totalCells = 0
    private var inValue = false
    private var inText = false
    private var inPhonetic = false
    private var isFormula = false
    /// The cells that hold a formula, whose saved values were read.
    var formulas: [String] = []

    init(sheet: String, shared: [String]) {
        self.sheet = sheet
        self.shared = shared
    }

    static func parse(_ data: Data, sheet: String, shared: [String]) throws(WorkbookError) -> Sheet {
        let delegate = SheetParser(sheet: sheet, shared: shared)
        try parsePart(data, with: delegate, part: "the sheet '\(sheet)'")
        return Sheet(name: sheet, rows: delegate.rows, formulas: delegate.formulas)
    }

    private func fail(_ message: String, hint: String, _ parser: XMLParser) {
        guard failure == nil else { return }
        failure = WorkbookError(message, hint: hint)
        parser.abortParsing()
    }

    override func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String]
    ) {
        switch local(name) {
        case "row":
            let number = attributes["r"].flatMap(Int.init) ?? rowNumber + 1
            guard number > rowNumber else {
                fail(
                    "the sheet '\(sheet)' lists row \(number) twice or out of order",
                    hint: "open the file in Excel or LibreOffice and save it again", parser)
                return
            }
            rowNumber = number
            cells = []
        case "c":
            cellReference = attributes["r"] ?? ""
            cellColumn = ColumnName.index(ofReference: cellReference) ?? cells.count
            cellType = attributes["t"] ?? "n"
            value = nil
            valueLength = 0
            isFormula = false
        case "f":
            // The value Excel saved beside the formula is read, as pyxform does; the import says so.
            isFormula = true
        case "v": inValue = true; if value == nil { value = "" }
        case "t": inText = !inPhonetic; if value == nil { value = "" }
        case "rPh": inPhonetic = true
        default: break
        }
    }

    override func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard inValue || inText, value != nil else { return }
        value!.append(string)
        valueLength += string.count
        if valueLength > WorkbookLimits.cellCharacters {
            fail(
                "cell \(cellReference) of the sheet '\(sheet)' is longer than \(WorkbookLimits.cellCharacters) characters, Excel's own limit",
                hint: "shorten it: a label or a hint is a sentence or two", parser)
        }
    }

    override func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch local(name) {
        case "v": inValue = false
        case "t": inText = false
        case "rPh": inPhonetic = false
        case "c":
            guard failure == nil else { return }
            var text = value ?? ""
            switch cellType {
            case "s":
                guard let index = Int(text), shared.indices.contains(index) else {
                    fail(
                        "cell \(cellReference) of the sheet '\(sheet)' points at a shared string the file does not have",
                        hint: "open the file in Excel or LibreOffice and save it again", parser)
                    return
                }
                text = shared[index]
            case "b": text = text == "1" ? "TRUE" : "FALSE"
            case "n": text = Self.number(text)
            default: break
            }
            // Styled but empty cells far to the right are common (a whole row formatted); only a
            // cell holding something beyond the columns an XLSForm may use is refused.
            guard cellColumn < WorkbookLimits.columnsPerSheet else {
                if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    fail(
                        "the sheet '\(sheet)' has a cell in column \(ColumnName.letters(cellColumn)), beyond the \(WorkbookLimits.columnsPerSheet) columns an XLSForm may use",
                        hint: "delete the columns on the right that hold nothing of the form", parser)
                }
                return
            }
            if isFormula { formulas.append(cellReference.isEmpty ? "\(ColumnName.letters(cellColumn))\(rowNumber)" : cellReference) }
            if cells.count <= cellColumn { cells.append(contentsOf: repeatElement("", count: cellColumn - cells.count + 1)) }
            cells[cellColumn] = text
        case "row":
            guard failure == nil else { return }
            // Spreadsheets write empty, styled rows far below the form (LibreOffice writes row
            // 1,048,576); only a row holding something beyond the limit is refused.
            guard rowNumber <= WorkbookLimits.rowsPerSheet else {
                if cells.contains(where: { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) {
                    fail(
                        "the sheet '\(sheet)' has more than \(WorkbookLimits.rowsPerSheet) rows",
                        hint: "an XLSForm is a few hundred rows; check that this is the right file", parser)
                }
                return
            }
            totalCells += cells.count
            guard totalCells <= WorkbookLimits.cells else {
                fail(
                    "the sheet '\(sheet)' has more than \(WorkbookLimits.cells) cells",
                    hint: "an XLSForm is a few hundred rows; delete the rows and columns that hold nothing of the form", parser)
                return
            }
            rows.append(Sheet.Row(number: rowNumber, cells: cells))
        default: break
        }
    }

    /// A number as a person typed it: `7` for a stored `7.0`, the text as stored otherwise.
    private static func number(_ text: String) -> String {
        guard let value = Double(text), value.isFinite, value == value.rounded(), abs(value) < 1e15 else { return text }
        return String(Int64(value))
    }
}

/// An element or attribute name without its namespace prefix.
private func local(_ name: String) -> Substring {
    name.split(separator: ":").last ?? Substring(name)
}

/// A zip archive's entries, read from its central directory: each entry's compressed bytes are
/// the slice its local header and central record give, checked to lie inside the file, inflated
/// from that slice alone (a stream that runs past it is damaged, not read on) up to
/// ``WorkbookLimits/partBytes``, and its CRC-32 checked.
struct ZipEntries {
    struct Entry {
        var method: Int
        var crc: UInt32
        var compressed: Range<Int>
        var size: Int
    }

    let data: Data
    var entries: [String: Entry] = [:]

    static let damaged = WorkbookError(
        "the file is not a readable .xlsx workbook (its zip archive is damaged)",
        hint: "open it in Excel or LibreOffice and save it again as .xlsx")

    init(_ data: Data) throws(WorkbookError) {
        self.data = data
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int? { at >= 0 && at + 2 <= bytes.count ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : nil }
        func u32(_ at: Int) -> Int? {
            guard let low = u16(at), let high = u16(at + 2) else { return nil }
            return low | high << 16
        }
        // The end record, found from the end (after it, at most a 65,535-byte comment).
        var end: Int?
        var at = bytes.count - 22
        while at >= max(0, bytes.count - 22 - 0xFFFF) {
            if u32(at) == 0x0605_4B50 {
                end = at
                break
            }
            at -= 1
        }
        guard let end, let count = u16(end + 10), var entry = u32(end + 16) else { throw Self.damaged }
        for _ in 0..<count {
            guard u32(entry) == 0x0201_4B50, let method = u16(entry + 10), let crc = u32(entry + 16), let compressed = u32(entry + 20),
                let size = u32(entry + 24), let nameLength = u16(entry + 28), let extra = u16(entry + 30), let comment = u16(entry + 32),
                let local = u32(entry + 42), entry + 46 + nameLength <= bytes.count,
                u32(local) == 0x0403_4B50, let localName = u16(local + 26), let localExtra = u16(local + 28)
            else { throw Self.damaged }
            let start = local + 30 + localName + localExtra
            // ZIP64 sizes (0xFFFFFFFF) belong to files of gigabytes, which no XLSForm is.
            guard compressed != 0xFFFF_FFFF, size != 0xFFFF_FFFF, start + compressed <= bytes.count, method == 0 || method == 8 else {
                throw Self.damaged
            }
            let name = String(decoding: bytes[(entry + 46)..<(entry + 46 + nameLength)], as: UTF8.self)
            if entries[name] == nil {
                entries[name] = Entry(method: method, crc: UInt32(crc), compressed: start..<(start + compressed), size: size)
            }
            entry += 46 + nameLength + extra + comment
        }
    }

    /// The entry's bytes; nil when the archive has no such entry.
    func read(_ path: String) throws(WorkbookError) -> Data? {
        guard let entry = entries[path] else { return nil }
        guard entry.size <= WorkbookLimits.partBytes else {
            throw WorkbookError(
                "\(path) expands to more than \(WorkbookLimits.partBytes) bytes",
                hint: "an XLSForm is a few hundred rows; check that this is the right file")
        }
        let slice = data[(data.startIndex + entry.compressed.lowerBound)..<(data.startIndex + entry.compressed.upperBound)]
        if entry.method == 0 {
            guard slice.count == entry.size else { throw Self.damaged }
            return Data(slice)
        }
        var out = Data()
        do {
            let crc = try Data.decompress(
                size: Int64(slice.count), bufferSize: 16_384, skipCRC32: false,
                provider: { position, chunk in
                    // Only the entry's own bytes: a stream that wants more is damaged.
                    guard position < Int64(slice.count) else { throw PartTooLarge() }
                    let from = slice.startIndex + Int(position)
                    return Data(slice[from..<min(from + chunk, slice.endIndex)])
                },
                consumer: { chunk in
                    guard out.count + chunk.count <= WorkbookLimits.partBytes else { throw PartTooLarge() }
                    out.append(chunk)
                })
            guard crc == entry.crc else { throw Self.damaged }
        } catch let error as WorkbookError {
            throw error
        } catch {
            if out.count >= WorkbookLimits.partBytes - 16_384 {
                throw WorkbookError(
                    "\(path) expands to more than \(WorkbookLimits.partBytes) bytes",
                    hint: "an XLSForm is a few hundred rows; check that this is the right file")
            }
            throw WorkbookError(
                "\(path) cannot be read from the file (its compressed data is damaged)",
                hint: "open it in Excel or LibreOffice and save it again as .xlsx")
        }
        return out
    }

    private struct PartTooLarge: Error {}
}
