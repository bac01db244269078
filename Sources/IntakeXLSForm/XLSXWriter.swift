import Foundation
import ZIPFoundation

/// Writes a workbook as an .xlsx file that Excel, LibreOffice and openpyxl (pyxform) open: the
/// parts a workbook needs, text cells written inline, with their references.
enum XLSXWriter {
    static func data(_ workbook: Workbook) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        func add(_ path: String, _ text: String) throws {
            let bytes = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), modificationDate: fixedDate, compressionMethod: .deflate) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let sheets = workbook.sheets.enumerated()
        try add("[Content_Types].xml", declaration + #"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">"#
            + #"<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>"#
            + #"<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>"#
            + sheets.map { #"<Override PartName="/xl/worksheets/sheet\#($0.offset + 1).xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>"# }.joined()
            + "</Types>")
        try add("_rels/.rels", declaration + #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#)
        try add("xl/workbook.xml", declaration + #"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>"#
            + sheets.map { #"<sheet name="\#(escaped($0.element.name))" sheetId="\#($0.offset + 1)" r:id="rId\#($0.offset + 1)"/>"# }.joined()
            + "</sheets></workbook>")
        try add("xl/_rels/workbook.xml.rels", declaration + #"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
            + sheets.map { #"<Relationship Id="rId\#($0.offset + 1)" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet\#($0.offset + 1).xml"/>"# }.joined()
            + "</Relationships>")
        for (offset, sheet) in sheets {
            try add("xl/worksheets/sheet\(offset + 1).xml", worksheet(sheet))
        }
        guard let data = archive.data else { throw WorkbookError("the workbook could not be written", hint: "try again") }
        return data
    }

    private static let declaration = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#
    /// Parts carry a fixed date, so the same questionnaire always gives the same bytes.
    private static let fixedDate = Date(timeIntervalSince1970: 1_577_836_800)

    private static func worksheet(_ sheet: Sheet) -> String {
        var xml = #"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#
        for row in sheet.rows {
            xml += #"<row r="\#(row.number)">"#
            for (column, text) in row.cells.enumerated() where !text.isEmpty {
                let reference = ColumnName.letters(column) + String(row.number)
                xml += #"<c r="\#(reference)" t="inlineStr"><is><t xml:space="preserve">\#(escaped(text))</t></is></c>"#
            }
            xml += "</row>"
        }
        return xml + "</sheetData></worksheet>"
    }

    /// Text as XML character data: markup escaped, and characters XML 1.0 cannot hold dropped.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
