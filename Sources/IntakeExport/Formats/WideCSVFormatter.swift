/// One row per record, one column per question (see ``ExportPlan``).
public final class WideCSVFormatter: ExportFormatter {
    let plan: ExportPlan

    public init(plan: ExportPlan) {
        self.plan = plan
    }

    public func header() -> String { CSV.line(plan.columns.map(\.name)) }

    public func row(_ record: ExportRecord) throws(ExportError) -> String { CSV.line(try plan.cells(for: record)) }

    public func footer() -> String { "" }
}
