import Foundation

/// XLSForms written as text, as pyxform reads them: every sheet in one file, a row whose first
/// cell names a sheet starting it, and that sheet's rows (header first) with an empty first cell.
///
/// Markdown: `| survey |` then `| | type | name | label |` …; CSV: `survey,,` then `,type,name,label`.
enum TextSheets {
    static func markdown(_ data: Data) throws(WorkbookError) -> Workbook {
        let text = try decode(data, kind: "Markdown")
        var table: [[String]] = []
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("|") else { continue }
            var cells = Self.markdownCells(trimmed)
            // A separator row (`|---|---|`) carries nothing.
            if cells.allSatisfy({ $0.allSatisfy { $0 == "-" || $0 == ":" || $0 == " " } }) && cells.contains(where: { $0.contains("-") }) {
                continue
            }
            if cells.last == "" && trimmed.hasSuffix("|") { cells.removeLast() }
            table.append(cells)
        }
        return try sheets(from: table, kind: "Markdown")
    }

    static func csv(_ data: Data) throws(WorkbookError) -> Workbook {
        let text = try decode(data, kind: "CSV")
        return try sheets(from: try csvRows(text), kind: "CSV")
    }

    static func decode(_ data: Data, kind: String) throws(WorkbookError) -> String {
        guard data.count <= WorkbookLimits.fileBytes else {
            throw WorkbookError(
                "the file is \(data.count) bytes; an XLSForm may be at most \(WorkbookLimits.fileBytes)",
                hint: "an XLSForm is a few hundred rows; check that this is the right file")
        }
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(data: bytes, encoding: .utf8), !text.contains("\0") else {
            throw WorkbookError("the \(kind) XLSForm is not UTF-8 text", hint: "save it as UTF-8 (a spreadsheet's 'CSV UTF-8' option)")
        }
        return text
    }

    /// The cells of a Markdown table row; `\|` is a bar inside a cell.
    private static func markdownCells(_ line: String) -> [String] {
        splitAtBars(String(line.dropFirst()), keepingEscapes: false)
    }

    /// Text split at each `|` that is not written `\|` (kept as `\|`, or made a bar), trimmed.
    static func splitAtBars(_ text: String, keepingEscapes: Bool) -> [String] {
        var parts: [String] = []
        var current = ""
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            if c == "\\", chars.first == "|" {
                current += keepingEscapes ? "\\|" : "|"
                chars.removeFirst()
            } else if c == "|" {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts
    }

    /// RFC 4180 rows: quoted cells may hold commas, quotes (doubled) and line breaks.
    static func csvRows(_ text: String) throws(WorkbookError) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var cell = ""
        var cellLength = 0
        var quoted = false
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" {
                    if chars.first == "\"" {
                        cell.append("\"")
                        chars.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    cell.append(c)
                }
            } else if c == "\"" && cell.isEmpty {
                quoted = true
            } else if c == "," {
                row.append(cell)
                cell = ""
                cellLength = 0
            } else if c == "\n" || c == "\r" || c == "\r\n" {
                row.append(cell)
                rows.append(row)
                row = []
                cell = ""
                cellLength = 0
                if c == "\r", chars.first == "\n" { chars.removeFirst() }
            } else {
                cell.append(c)
            }
            cellLength += 1
            if cellLength > WorkbookLimits.cellCharacters {
                throw WorkbookError(
                    "row \(rows.count + 1) has a cell longer than \(WorkbookLimits.cellCharacters) characters",
                    hint: "shorten it, or close the quote that starts it")
            }
        }
        if quoted {
            throw WorkbookError(
                "a quoted cell starting on row \(rows.count + 1) is never closed",
                hint: "close it with a double quote, and write a quote inside a cell as two")
        }
        if !cell.isEmpty || !row.isEmpty {
            row.append(cell)
            rows.append(row)
        }
        return rows.map { $0.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Splits a table whose first column names sheets into sheets (their header is row 1).
    private static func sheets(from table: [[String]], kind: String) throws(WorkbookError) -> Workbook {
        var sheets: [Sheet] = []
        for cells in table {
            guard let first = cells.first else { continue }
            if !first.isEmpty {
                // The rest of the sheet's row, when written there, is its first row (pyxform reads
                // `| choices | list name | name | label |` so).
                let rest = Array(cells.dropFirst())
                sheets.append(Sheet(name: first, rows: rest.contains { !$0.isEmpty } ? [Sheet.Row(number: 1, cells: rest)] : []))
                continue
            }
            guard !sheets.isEmpty else {
                if cells.allSatisfy(\.isEmpty) { continue }
                throw WorkbookError(
                    "the \(kind) XLSForm has rows before any sheet's name",
                    hint: "begin with a row whose first cell is the sheet's name, 'survey', and give its rows an empty first cell")
            }
            let rest = Array(cells.dropFirst())
            var sheet = sheets.removeLast()
            guard sheet.rows.count < WorkbookLimits.rowsPerSheet, rest.count <= WorkbookLimits.columnsPerSheet else {
                throw WorkbookError(
                    "the sheet '\(sheet.name)' has more than \(WorkbookLimits.rowsPerSheet) rows or \(WorkbookLimits.columnsPerSheet) columns",
                    hint: "an XLSForm is a few hundred rows; check that this is the right file")
            }
            sheet.rows.append(Sheet.Row(number: sheet.rows.count + 1, cells: rest))
            sheets.append(sheet)
        }
        return Workbook(sheets: sheets)
    }
}
