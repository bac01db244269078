import Foundation
import IntakeCore

/// The case files' tables for the statistics files: `cases.sav` and `cases.dta`,
/// `case_history.sav` and `case_history.dta`, and the sheets `cases` and `case_history` of
/// `records.xlsx`.
///
/// They are read from the bytes of `cases.csv` and `case_history.csv` as those are written (from
/// the local store or downloaded from a server alike), so the statistics files hold exactly
/// what the CSV files hold: each row goes to a spool in the staging folder as soon as its line
/// is complete, as the records' rows do (``StatisticsSpool``).
///
/// Types: the fixed columns are typed by what they are (``ExportCaseColumns/fixedColumnTypes``);
/// a property column (`prop_<name>`) is a number when every value is a number written plainly
/// (`12`, `1.5`; not `0791`, which keeps its zero as text), a date when every value is a date,
/// and text otherwise. Yes/no properties are 1 and 0, unlabelled.
final class StatisticsCaseTables {
    /// One case file's table as it is read.
    final class Table {
        let file: ExportSideFile
        let url: URL
        let sentinel: Double
        let rawCells: Bool
        var columns: [String] = []
        var spool: StatisticsSpool?
        /// Per column: whether every value is a number written as the export writes numbers.
        var plainNumbers: [Bool] = []
        /// Per column: whether it holds values the CSV guards with a leading `'` (the properties'
        /// and the history's values, unless the cells are raw).
        var guarded: [Bool] = []
        var splitter = CSVLineSplitter()

        init(file: ExportSideFile, url: URL, sentinel: Double, rawCells: Bool) {
            self.file = file
            self.url = url
            self.sentinel = sentinel
            self.rawCells = rawCells
        }

        func add(_ fields: [String]) throws(ExportError) {
            guard let spool else {
                columns = fields
                plainNumbers = Array(repeating: true, count: fields.count)
                guarded = fields.map { !rawCells && ($0.hasPrefix("prop_") || (file == .caseHistory && $0 == "value")) }
                spool = try StatisticsSpool(url: url, columns: fields.count, sentinel: sentinel)
                return
            }
            guard fields.count == columns.count else {
                throw ExportError(
                    "\(file.fileName) has a row of \(fields.count) fields under a header of \(columns.count); export again")
            }
            var cells = [CellValue?](repeating: nil, count: fields.count)
            for (index, field) in fields.enumerated() where !field.isEmpty {
                // The CSV's one leading `'` (a guard against formulas) is not part of the value.
                let value = guarded[index] && field.utf8.first == UInt8(ascii: "'") ? String(field.dropFirst()) : field
                if plainNumbers[index] {
                    plainNumbers[index] = StatisticsVariable.plainNumber(value).map { ExportPlan.number($0) == value } ?? false
                }
                cells[index] = .plain(value)
            }
            try spool.append(cells)
        }

        /// The table, once every byte was read.
        func table(questionnaireId: String, unansweredCode: String) -> StatisticsTable? {
            guard let spool else { return nil }
            let fixed = ExportCaseColumns.fixedColumnTypes
            let variables = columns.enumerated().map { index, name in
                let facts = spool.facts[index]
                var type = fixed[name] ?? .string
                if name.hasPrefix("prop_") {
                    type =
                        plainNumbers[index] && facts.texts > 0
                        ? (facts.integers ? .integer : .number) : (facts.dates && facts.texts > 0 ? .date : .string)
                }
                let column = ExportColumn(name: name, type: type, source: .meta(.recordId))
                var variable = StatisticsVariable(column: column, label: "", codes: [], choices: nil, facts: facts)
                variable.label = ExportCaseColumns.description(of: name, in: file)
                return variable
            }
            return StatisticsTable(variables: variables, rows: spool, questionnaireId: questionnaireId, unansweredCode: unansweredCode)
        }
    }

    private(set) var tables: [Table] = []

    /// Tables for `files`' case files, spooled in `folder`.
    init(files: [ExportSideFile], folder: URL, options: ExportOptions) {
        let sentinel = SAVWriter.unansweredNumber(code: options.unansweredCode)
        tables = files.filter(\.readsCases).map { file in
            Table(file: file, url: folder.appendingPathComponent(".\(file.rawValue).spool"), sentinel: sentinel, rawCells: options.rawCells)
        }
    }

    /// Reads on in `file`'s bytes.
    func feed(_ file: ExportSideFile, _ bytes: [UInt8]) throws(ExportError) {
        guard let table = tables.first(where: { $0.file == file }) else { return }
        for fields in table.splitter.feed(bytes) { try table.add(fields) }
    }

    /// Ends each file's reading; a file that ends inside a quoted field is refused.
    func finish() throws(ExportError) {
        for table in tables {
            guard let last = table.splitter.finish() else {
                throw ExportError("\(table.file.fileName) ends inside a quoted field; export again")
            }
            if let last { try table.add(last) }
            try table.spool?.finish()
        }
    }

    func remove() {
        for table in tables { table.spool?.remove() }
    }
}

/// Splits CSV bytes (RFC 4180, as ``CSV/line(_:)`` writes them) into records as they arrive,
/// whatever the chunks: a record is handed on once its line ends outside quotes.
struct CSVLineSplitter {
    private var fields: [String] = []
    private var field: [UInt8] = []
    private var quoted = false
    /// Just after a quoted field's closing quote: a quote now is a doubled one, inside it.
    private var afterQuote = false
    private var afterCarriageReturn = false

    /// The records `bytes` completes.
    mutating func feed(_ bytes: [UInt8]) -> [[String]] {
        var records: [[String]] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    quoted = false
                    afterQuote = true
                    continue
                }
                field.append(byte)
                continue
            }
            let closedQuote = afterQuote
            afterQuote = false
            switch byte {
            case UInt8(ascii: "\""):
                // An opening quote, or the second of a doubled one inside a quoted field.
                if closedQuote { field.append(byte) }
                quoted = true
            case UInt8(ascii: ","):
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                afterCarriageReturn = byte == UInt8(ascii: "\r")
                fields.append(String(decoding: field, as: UTF8.self))
                field.removeAll(keepingCapacity: true)
                if !(fields.count == 1 && fields[0].isEmpty) { records.append(fields) }
                fields.removeAll()
            default:
                field.append(byte)
            }
        }
        return records
    }

    /// The last record, when the bytes did not end with a line break; nil (outer) when they
    /// ended inside quotes.
    mutating func finish() -> [String]?? {
        guard !quoted else { return nil }
        guard !fields.isEmpty || !field.isEmpty else { return .some(nil) }
        fields.append(String(decoding: field, as: UTF8.self))
        field.removeAll()
        defer { fields.removeAll() }
        return .some(fields)
    }
}
