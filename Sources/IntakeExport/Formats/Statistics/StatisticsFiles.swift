import Foundation
import IntakeCore

/// Writes `records.sav`, `records.dta` and `records.xlsx` from what a ``StatisticsCollector``
/// gathered during an export's run.
///
/// - `records.sav` (``SAVWriter``) and `records.dta` (``DTAWriter``) hold the wide table, typed
///   (see ``StatisticsTable``), with variable labels and value labels.
/// - `records.xlsx` (``XLSXBook``) has a sheet `records` (the wide table), one per repeat
///   (`repeat_<id>`, as the CSV files beside records.csv), `cases` and `case_history` when the
///   export has those files (``StatisticsCaseTables``), and `codebook` (codebook.csv's rows,
///   with the names each column has in the .sav and .dta). Numbers are number cells and dates
///   date cells; text, choice codes and the unanswered code are text, exactly as collected: an
///   inline string is never a formula, so the CSV's leading `'` is not needed (nor added).
public enum StatisticsFiles {
    /// The formats this writes.
    public static let formats: [ExportFormat] = [.sav, .dta, .xlsx]

    /// Writes each of `formats` this type writes into `folder`, readable by its owner only, and
    /// beside `records.sav` and `records.dta` each repeat's own table (`repeat_<id>.sav`,
    /// `repeat_<id>.dta`, as `repeat_<id>.csv`); returns the names of those repeat files. Each
    /// file is written a row at a time from the collector's spools, which are removed after.
    ///
    /// With `cases` (read from `cases.csv` and `case_history.csv` as they were written), each case
    /// file has its own `.sav` and `.dta` beside them, and its sheet in records.xlsx.
    @discardableResult
    static func write(
        _ formats: [ExportFormat], from collector: StatisticsCollector, cases: StatisticsCaseTables? = nil, into folder: URL,
        date: Date = Date()
    ) throws -> [String] {
        defer {
            collector.remove()
            cases?.remove()
        }
        let chosen = Self.formats.filter(formats.contains)
        guard !chosen.isEmpty else { return [] }
        try collector.finish()
        try cases?.finish()
        let table = StatisticsTable(collector)
        let code = collector.plan.options.unansweredCode
        let caseTables: [(name: String, table: StatisticsTable)] = (cases?.tables ?? []).compactMap { found in
            found.table(questionnaireId: collector.plan.questionnaireId, unansweredCode: code).map {
                (String(found.file.fileName.dropLast(4)), $0)
            }
        }
        var sideFiles: [String] = []
        for format in chosen {
            try write(
                format, table: table, collector: collector, caseTables: caseTables, to: folder.appendingPathComponent(format.fileName),
                date: date)
            guard format == .sav || format == .dta else { continue }
            let suffix = format == .sav ? ".sav" : ".dta"
            for number in collector.repeatTables.indices {
                let name = String(collector.repeatTables[number].table.fileName.dropLast(4)) + suffix
                try write(
                    format, table: StatisticsTable(repeat: number, of: collector), collector: collector,
                    to: folder.appendingPathComponent(name), date: date)
                sideFiles.append(name)
            }
            for (name, caseTable) in caseTables {
                try write(format, table: caseTable, collector: collector, to: folder.appendingPathComponent(name + suffix), date: date)
                sideFiles.append(name + suffix)
            }
        }
        return sideFiles
    }

    /// Writes `format`'s file of `table` at `url`.
    static func write(
        _ format: ExportFormat, table: StatisticsTable, collector: StatisticsCollector,
        caseTables: [(name: String, table: StatisticsTable)] = [], to url: URL, date: Date
    ) throws {
        switch format {
        case .sav: try SAVWriter(table: table, date: date).write(to: url)
        case .dta: try DTAWriter(table: table, date: date).write(to: url)
        default:
            try checkWorkbook(
                records: table.rowCount, columns: table.variables.count, longestRepeat: collector.repeatRows.map(\.rowCount).max() ?? 0)
            // A case file longer than a sheet holds is left out of the workbook: its .sav and .dta (and CSV) hold it.
            let sheets = caseTables.filter { $0.table.rowCount < 1_048_576 && $0.table.variables.count <= 16_384 }
            try XLSXBook.write(workbook(collector, table: table, caseTables: sheets), to: url)
        }
    }

    /// Refuses a workbook Excel would not open: at most 1,048,576 rows (a header and 1,048,575
    /// records, or a repeat's instances) and 16,384 columns. Checked as the records are gathered,
    /// so an export too large for it stops there, and again before it is written.
    static func checkWorkbook(records: Int, columns: Int, longestRepeat: Int) throws(ExportError) {
        guard records >= 1_048_576 || longestRepeat >= 1_048_576 || columns > 16_384 else { return }
        throw ExportError(
            "records.xlsx cannot hold this export: Excel opens at most 1,048,575 rows of data and 16,384 columns, and it has "
                + "\(columns) columns and \(records) records and a repeat of \(longestRepeat) instances so far; leave the .xlsx out "
                + "with --format (the .sav, .dta and CSV files have no such limit), or export fewer records at a time (--since, "
                + "--data-group, --review-state)")
    }

    /// The sheets of records.xlsx, each read from its spool as it is written: cells typed as in
    /// the .sav and .dta (``StatisticsTable``).
    static func workbook(
        _ collector: StatisticsCollector, table: StatisticsTable, caseTables: [(name: String, table: StatisticsTable)] = []
    ) -> [XLSXBook.RowSource] {
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
        /// A sheet of `table` under a header row; its first `keys` columns are the repeat's keys:
        /// the record's id as text, the instances as numbers.
        func sheet(_ name: String, header: [String], table: StatisticsTable, keys: Int) -> XLSXBook.RowSource {
            XLSXBook.RowSource(name: name, width: header.count, rowCount: table.rowCount + 1, freezesFirstRow: true) { body in
                try body(XLSXBook.Row(number: 1, cells: header.map { .text($0) }))
                var number = 1
                try table.rows.forEachRow { cells in
                    number += 1
                    var row: [XLSXBook.Cell?] = []
                    row.reserveCapacity(cells.count)
                    for (index, (variable, value)) in zip(table.variables, cells).enumerated() {
                        guard index < keys else {
                            row.append(cell(variable.value(value), variable.kind))
                            continue
                        }
                        guard case .text(let key)? = value else {
                            row.append(nil)
                            continue
                        }
                        row.append(index == 0 ? .text(key) : StatisticsVariable.plainNumber(key).map(XLSXBook.Cell.number) ?? .text(key))
                    }
                    try body(XLSXBook.Row(number: number, cells: row))
                }
            }
        }
        var sheets = [sheet("records", header: table.variables.map(\.column), table: table, keys: 0)]
        for (number, formatter) in collector.repeatTables.enumerated() {
            let repeatTable = formatter.table
            sheets.append(
                sheet(
                    String(repeatTable.fileName.dropLast(4)), header: repeatTable.keyColumnNames + repeatTable.columns.map(\.name),
                    table: StatisticsTable(repeat: number, of: collector), keys: repeatTable.keyColumnNames.count))
        }
        for (name, caseTable) in caseTables {
            sheets.append(sheet(name, header: caseTable.variables.map(\.column), table: caseTable, keys: 0))
        }
        // The codebook, with the names the .sav and .dta give each column.
        let codebook = CodebookCSVFormatter(plan: plan)
        let savNames = StatisticsNames.spss(table.variables.map(\.column))
        let dtaNames = StatisticsNames.stata(table.variables.map(\.column))
        var rows: [[XLSXBook.Cell?]] = [(codebook.columnNames + ["sav_name", "dta_name"]).map { .text($0) }]
        for (index, row) in codebook.rows().enumerated() {
            rows.append((row + [savNames[index], dtaNames[index]]).map { $0.isEmpty ? nil : .text($0) })
        }
        sheets.append(
            XLSXBook.RowSource(name: "codebook", width: rows.map(\.count).max() ?? 0, rowCount: rows.count, freezesFirstRow: true) { body in
                for (index, cells) in rows.enumerated() { try body(XLSXBook.Row(number: index + 1, cells: cells)) }
            })
        return sheets
    }
}
