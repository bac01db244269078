/// One row per record, one column per question (see ``ExportPlan``).
public final class WideCSVFormatter: RowFormatter {
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

    func write(_ row: ExportRow, into out: inout [UInt8]) { plan.writeLine(row, into: &out) }

    public func footer() -> String { "" }
}
