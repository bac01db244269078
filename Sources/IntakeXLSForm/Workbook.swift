import Foundation
import IntakeExport

/// A spreadsheet as an XLSForm is read: named sheets of text cells, each row with its number in
/// the file (the header is row 1), so a problem can name the row a person finds in Excel.
public struct Workbook: Sendable, Equatable {
    public var sheets: [Sheet]

    public init(sheets: [Sheet]) {
        self.sheets = sheets
    }

    /// The sheets of an XLSForm Intake reads (lower-cased); a workbook's other sheets are named, not read.
    static let formSheets: Set<String> = ["survey", "choices", "settings", "external_choices", "entities"]

    /// The sheet of that name, compared ignoring case (pyxform does).
    public func sheet(_ name: String) -> Sheet? {
        sheets.first { $0.name.lowercased() == name.lowercased() }
    }
}

/// One sheet: rows of cells; row `n` of ``rows`` is the sheet's row `rows[n].number`.
public struct Sheet: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        /// The row's number in the file, 1-based.
        public var number: Int
        /// Cells by column, `A` being 0; missing cells are empty.
        public var cells: [String]

        public init(number: Int, cells: [String]) {
            self.number = number
            self.cells = cells
        }

        public subscript(column: Int) -> String {
            column < cells.count ? cells[column] : ""
        }

        public var isEmpty: Bool { cells.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }
    }

    public var name: String
    public var rows: [Row]
    /// Cells (`B7`) that held a formula; each was read as the value saved with it.
    public var formulas: [String]

    public init(name: String, rows: [Row], formulas: [String] = []) {
        self.name = name
        self.rows = rows
        self.formulas = formulas
    }

    /// Builds a sheet from rows of cells numbered from 1.
    public init(name: String, cells: [[String]]) {
        self.init(name: name, rows: cells.enumerated().map { Row(number: $0.offset + 1, cells: $0.element) })
    }
}

/// Spreadsheet columns by letter: 0 is `A`, 26 is `AA`.
enum ColumnName {
    static func letters(_ index: Int) -> String { XLSXBook.columnLetters(index) }

    /// The column index of a cell reference such as `AB12`, or nil when it is not one.
    static func index(ofReference reference: String) -> Int? {
        var index = 0
        var count = 0
        for scalar in reference.unicodeScalars {
            guard scalar.value >= 65, scalar.value <= 90 else { break }
            index = index * 26 + Int(scalar.value - 64)
            count += 1
            guard count <= 3 else { return nil }
        }
        return count == 0 ? nil : index - 1
    }
}

/// Why a spreadsheet could not be read at all (a problem in a cell is an ``XLSFormProblem``).
public struct WorkbookError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var hint: String

    public init(_ message: String, hint: String) {
        self.message = message
        self.hint = hint
    }

    public var description: String { "\(message)\nhint: \(hint)" }
}

/// What a workbook may hold before reading it is refused: an XLSForm is small, and a file that
/// says otherwise is a mistake or an attack (a zip that expands to gigabytes).
public enum WorkbookLimits {
    /// Excel's own limit for one cell.
    public static let cellCharacters = 32_767
    public static let rowsPerSheet = 50_000
    public static let columnsPerSheet = 500
    /// Cells of one sheet, counting the empty ones a row holds before its last value.
    public static let cells = 1_000_000
    /// Bytes of one part of an .xlsx once inflated.
    public static let partBytes = 64 << 20
    /// Bytes of a whole file read (xlsx, csv or md).
    public static let fileBytes = 32 << 20
}
