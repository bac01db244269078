import Foundation
import IntakeCore

/// Writes `records.sav`, `records.dta` and `records.xlsx` from what a ``StatisticsCollector``
/// gathered during an export's run.
///
/// - `records.sav` (``SAVWriter``) and `records.dta` (``DTAWriter``) hold the wide table, typed
///   (see ``StatisticsTable``), with variable labels and value labels.
/// - `records.xlsx` (``XLSXBook``) has a sheet `records` (the wide table), one per repeat
///   (`repeat_<id>`, as the CSV files beside records.csv) and `codebook` (codebook.csv's rows,
///   with the names each column has in the .sav and .dta). Numbers are number cells and dates
///   date cells; text, choice codes and the unanswered code are text, exactly as collected: an
///   inline string is never a formula, so the CSV's leading `'` is not needed (nor added).
public enum StatisticsFiles {
    /// The formats this writes.
    public static let formats: [ExportFormat] = [.sav, .dta, .xlsx]

    /// Writes each of `formats` this type writes into `folder`, readable by its owner only, and
    /// beside `records.sav` and `records.dta` each repeat's own table (`repeat_<id>.sav`,
    /// `repeat_<id>.dta`, as `repeat_<id>.csv`); returns the names of those repeat files.
    @discardableResult
    static func write(_ formats: [ExportFormat], from collector: StatisticsCollector, into folder: URL, date: Date = Date()) throws
        -> [String]
    {
        let chosen = Self.formats.filter(formats.contains)
        guard !chosen.isEmpty else { return [] }
        func save(_ bytes: some DataProtocol, as name: String) throws {
            let path = folder.appendingPathComponent(name).path
            // Written from the writer's bytes where they are: a copy would add the file's size to the peak.
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
                let handle = FileHandle(forWritingAtPath: path)
            else { throw ExportError("cannot write \(path); check the disk has room") }
            do {
                try handle.write(contentsOf: bytes)
                try handle.close()
            } catch {
                try? handle.close()
                throw ExportError("cannot write \(path); check the disk has room")
            }
        }
        let table = StatisticsTable(collector)
        var repeatFiles: [String] = []
        for format in chosen {
            try save(try data(format, table: table, collector: collector, date: date), as: format.fileName)
            guard format == .sav || format == .dta else { continue }
            for number in collector.repeatTables.indices {
                let name = String(collector.repeatTables[number].table.fileName.dropLast(4)) + (format == .sav ? ".sav" : ".dta")
                try save(
                    try data(format, table: StatisticsTable(repeat: number, of: collector), collector: collector, date: date), as: name)
                repeatFiles.append(name)
            }
        }
        return repeatFiles
    }

    /// The bytes of `format`'s file, as its writer made them (written without a copy).
    static func data(_ format: ExportFormat, table: StatisticsTable, collector: StatisticsCollector, date: Date = Date()) throws
        -> any DataProtocol
    {
        switch format {
        case .sav: return SAVWriter(table: table, date: date).data()
        case .dta: return try DTAWriter(table: table, date: date).data()
        default: return try workbookData(collector, table: table)
        }
    }

    /// The bytes of records.xlsx, refused beyond what Excel opens.
    static func workbookData(_ collector: StatisticsCollector, table: StatisticsTable) throws -> Data {
        // Excel opens at most 1,048,576 rows and 16,384 columns.
        let longestRepeat = collector.repeatRows.map(\.count).max() ?? 0
        guard table.rowCount < 1_048_576, longestRepeat < 1_048_576, table.variables.count <= 16_384 else {
            throw ExportError(
                "records.xlsx cannot hold \(table.rowCount) records of \(table.variables.count) columns, or a repeat of \(longestRepeat) instances (Excel's limits are "
                    + "1,048,575 rows and 16,384 columns); leave it out with --format, or export fewer records (--since)")
        }
        return try workbook(collector, table: table).data()
    }

    /// The sheets of records.xlsx: cells typed as in the .sav and .dta (``StatisticsTable``).
    static func workbook(_ collector: StatisticsCollector, table: StatisticsTable) -> XLSXBook {
        let plan = collector.plan
        let code = plan.options.unansweredCode
        func cell(_ value: StatisticsValue, _ kind: StatisticsVariable.Kind) -> XLSXBook.Cell? {
            switch value {
            case .empty: nil
            case .unanswered: .text(code)
            case .number(let number): kind == .date ? .date(daysSince1970: Int(number)) : .number(number)
            case .text(let text): .text(text)
            }
        }
        func sheet(_ name: String, header: [String], keys: [[String]], variables: [StatisticsVariable], rows: Int) -> XLSXBook.Sheet {
            var cells: [[XLSXBook.Cell?]] = [header.map { .text($0) }]
            cells.reserveCapacity(rows + 1)
            for row in 0..<rows {
                let keyCells: [XLSXBook.Cell?] =
                    keys.isEmpty
                    ? []
                    : keys[row].enumerated().map { index, key in
                        index == 0 ? .text(key) : StatisticsVariable.plainNumber(key).map(XLSXBook.Cell.number) ?? .text(key)
                    }
                cells.append(keyCells + variables.map { cell($0.values[row], $0.kind) })
            }
            return XLSXBook.Sheet(name: name, cells: cells, freezesFirstRow: true)
        }
        var sheets = [sheet("records", header: table.variables.map(\.column), keys: [], variables: table.variables, rows: table.rowCount)]
        for (formatter, rows) in zip(collector.repeatTables, collector.repeatRows) {
            let repeatTable = formatter.table
            let variables = repeatTable.columns.enumerated().map { index, column in
                StatisticsVariable(
                    column: column, label: "", codes: plan.codes(of: column), choices: nil, cells: rows.map { $0.values[index] })
            }
            sheets.append(
                sheet(
                    String(repeatTable.fileName.dropLast(4)), header: repeatTable.keyColumnNames + repeatTable.columns.map(\.name),
                    keys: rows.map(\.keys), variables: variables, rows: rows.count))
        }
        // The codebook, with the names the .sav and .dta give each column.
        let codebook = CodebookCSVFormatter(plan: plan)
        let savNames = StatisticsNames.spss(table.variables.map(\.column))
        let dtaNames = StatisticsNames.stata(table.variables.map(\.column))
        var rows: [[XLSXBook.Cell?]] = [(codebook.columnNames + ["sav_name", "dta_name"]).map { .text($0) }]
        for (index, row) in codebook.rows().enumerated() {
            rows.append((row + [savNames[index], dtaNames[index]]).map { $0.isEmpty ? nil : .text($0) })
        }
        sheets.append(XLSXBook.Sheet(name: "codebook", cells: rows, freezesFirstRow: true))
        return XLSXBook(sheets: sheets)
    }
}
