/// `records_escaped.csv`: the wide CSV as SPSS, PSPP and R can read it exactly, for `records.sps`
/// and `records.R`.
///
/// SPSS and PSPP cannot read a line break inside a quoted CSV field (a case ends at the end of a
/// line, and the columns after the break shift silently), and R's `read.csv` turns a carriage
/// return inside one into a line feed. So here a cell's line feeds, carriage returns and
/// backslashes are written `\n`, `\r` and `\b`, and the two scripts turn them back. Every other
/// byte is as in `records.csv`, which keeps its line breaks for every other reader.
public final class EscapedCSVFormatter: RowFormatter {
    let plan: ExportPlan

    public init(plan: ExportPlan) {
        self.plan = plan
    }

    public func header() -> String { CSV.line(plan.columns.map(\.name)) }

    public func row(_ record: ExportRecord) throws(ExportError) -> String {
        var out: [UInt8] = []
        write(try ExportRow(record, plan: plan), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func write(_ row: ExportRow, into out: inout [UInt8]) { plan.writeLine(row, into: &out, lineBreaksEscaped: true) }

    public func footer() -> String { "" }

    /// `text` with `\` as `\b`, a line feed as `\n` and a carriage return as `\r`. Every `\` of
    /// the result starts one of these pairs, so undoing them one kind after another (`\n`, `\r`,
    /// then `\b`) gives `text` back exactly.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == UInt8(ascii: "\\") }) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            switch byte {
            case 10: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 13: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
