/// One row per record, one column per question (see ``ExportPlan``): `records.csv`, and, with
/// `lineBreaksEscaped`, `records_escaped.csv` for `records.sps` and `records.R`.
///
/// SPSS and PSPP cannot read a line break inside a quoted CSV field (a case ends at the end of a
/// line, and the columns after the break shift silently), and R's `read.csv` turns a carriage
/// return inside one into a line feed. So the escaped file writes a cell's line feeds, carriage
/// returns and backslashes as `\n`, `\r` and `\b` (``CSV/escapingLineBreaks(_:)``), and the two
/// scripts turn them back. Every other byte is as in `records.csv`.
public final class WideCSVFormatter: RowFormatter {
    let plan: ExportPlan
    let lineBreaksEscaped: Bool

    public init(plan: ExportPlan, lineBreaksEscaped: Bool = false) {
        self.plan = plan
        self.lineBreaksEscaped = lineBreaksEscaped
    }

    public func header() -> String { CSV.line(plan.columns.map(\.name)) }

    public func row(_ record: ExportRecord) throws(ExportError) -> String {
        var out: [UInt8] = []
        write(try ExportRow(record, plan: plan), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func write(_ row: ExportRow, into out: inout [UInt8]) { plan.writeLine(row, into: &out, lineBreaksEscaped: lineBreaksEscaped) }

    public func footer() -> String { "" }
}
