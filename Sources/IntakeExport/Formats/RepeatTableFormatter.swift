import IntakeCore

/// A repeat's own table, `repeat_<id>.csv`: one row per instance with the record's id (and, for a
/// repeat inside a repeat, the outer instance's number), the instance's number, and a column per
/// part of each question asked in it — every instance, however many the wide CSV has columns for.
/// Cells are written as in `records.csv`: the unanswered code for a question asked and not
/// answered, empty where show-if may have hidden it.
public final class RepeatTableFormatter: RowFormatter {
    let plan: ExportPlan
    let table: RepeatTable

    public init(plan: ExportPlan, table: RepeatTable) {
        self.plan = plan
        self.table = table
    }

    public func header() -> String { CSV.line(table.keyColumnNames + table.columns.map(\.name)) }

    public func row(_ item: ExportRecord) throws(ExportError) -> String {
        text(of: try ExportRow(item, plan: plan))
    }

    /// Written from the record's row (its answers by ordinal, show-if settled), as the wide CSV
    /// is, so an export that reads only rows writes this table too.
    func write(_ row: ExportRow, into out: inout [UInt8]) {
        out.append(contentsOf: text(of: row).utf8)
    }

    private func text(of row: ExportRow) -> String {
        let layout = row.layout
        guard let group = layout.byKey[table.key], group.isRepeat else { return "" }
        func answer(_ question: Question) -> Answer? {
            guard let ordinal = layout.questionnaire.ordinal(of: question.position), !row.hidden[ordinal] else { return nil }
            return row.answers[ordinal]
        }
        let recordId = row.item.record.id.uuidString.lowercased()
        var out = ""
        if let parentKey = table.parentKey {
            guard let parent = layout.byKey[parentKey], case .instances(let outer)? = answer(parent) else { return "" }
            for (number, instance) in zip(1..., outer) {
                guard case .instances(let list)? = instance[group.position.index] else { continue }
                write(list, of: group, layout: layout, keys: [recordId, String(number)], into: &out)
            }
        } else {
            guard case .instances(let list)? = answer(group) else { return "" }
            write(list, of: group, layout: layout, keys: [recordId], into: &out)
        }
        return out
    }

    private func write(_ list: [[Int: Answer]], of group: Question, layout: VersionLayout, keys: [String], into out: inout String) {
        let code = plan.options.unansweredCode
        for (number, instance) in zip(1..., list) {
            var cells = keys + [String(number)]
            for column in table.columns {
                guard case .answer(let key, let path) = column.source, let member = layout.byKey[key], member.group == group.position,
                    member.type.part(at: path[...]) != nil
                else {
                    cells.append("")
                    continue
                }
                guard let answer = instance[member.position.index], let text = ExportPlan.cell(answer, path[...], type: member.type) else {
                    cells.append(member.showIf == nil ? code : "")
                    continue
                }
                cells.append(plan.options.rawCells ? text : CSV.escape(text, marker: code))
            }
            out += CSV.line(cells)
        }
    }

    public func footer() -> String { "" }
}
