import Foundation
import IntakeExport

/// Writes a workbook as an .xlsx file that Excel, LibreOffice and openpyxl (pyxform) open, through
/// the export's writer (``XLSXBook``): every cell a text cell, with its row's number.
enum XLSXWriter {
    static func data(_ workbook: Workbook) throws -> Data {
        let book = XLSXBook(
            sheets: workbook.sheets.map { sheet in
                XLSXBook.Sheet(
                    name: sheet.name, rows: sheet.rows.map { XLSXBook.Row(number: $0.number, cells: $0.cells.map(XLSXBook.Cell.text)) })
            })
        do {
            return try book.data()
        } catch {
            throw WorkbookError("the workbook could not be written", hint: "try again")
        }
    }

    /// Text as XML character data: markup escaped, and characters XML 1.0 cannot hold dropped
    /// (for the XForm, which has no escape for them).
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
