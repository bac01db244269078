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
        let code = plan.options.unansweredCode
        let raw = plan.options.rawCells
        var out = ""
        eachRow(of: row) { keys, values in
            let cells = values.map { value -> String in
                switch value {
                case .text(let text)?: raw ? text : CSV.escape(text, marker: code)
                case .plain(let text)?: text
                case .unanswered?: code
                case nil: ""
                }
            }
            out += CSV.line(keys + cells)
        }
        return out
    }

    /// Hands `body` each row this table has for one record: its key cells (record id, the outer
    /// instance's number for a repeat inside a repeat, the instance's number) and a value per
    /// column (nil for an empty cell), as collected: what this table's CSV and the statistics
    /// files write.
    func eachRow(of row: ExportRow, _ body: (_ keys: [String], _ values: [CellValue?]) -> Void) {
        let layout = row.layout
        guard let group = layout.byKey[table.key], group.isRepeat else { return }
        func answer(_ question: Question) -> Answer? {
            guard let ordinal = layout.questionnaire.ordinal(of: question.position), !row.hidden[ordinal] else { return nil }
            return row.answers[ordinal]
        }
        let recordId = row.item.record.id.uuidString.lowercased()
        if let parentKey = table.parentKey {
            guard let parent = layout.byKey[parentKey], case .instances(let outer)? = answer(parent) else { return }
            for (number, instance) in zip(1..., outer) {
                guard case .instances(let list)? = instance[group.position.index] else { continue }
                eachRow(list, of: group, layout: layout, keys: [recordId, String(number)], body)
            }
        } else {
            guard case .instances(let list)? = answer(group) else { return }
            eachRow(list, of: group, layout: layout, keys: [recordId], body)
        }
    }

    private func eachRow(
        _ list: [[Int: Answer]], of group: Question, layout: VersionLayout, keys: [String], _ body: ([String], [CellValue?]) -> Void
    ) {
        for (number, instance) in zip(1..., list) {
            var values: [CellValue?] = []
            values.reserveCapacity(table.columns.count)
            for column in table.columns {
                guard case .answer(let key, let path) = column.source, let member = layout.byKey[key], member.group == group.position,
                    member.type.part(at: path[...]) != nil
                else {
                    values.append(nil)
                    continue
                }
                guard let answer = instance[member.position.index], let text = ExportPlan.cell(answer, path[...], type: member.type) else {
                    values.append(member.showIf == nil ? .unanswered : nil)
                    continue
                }
                values.append(text.isEmpty ? nil : .text(text))
            }
            body(keys + [String(number)], values)
        }
    }

    public func footer() -> String { "" }
}
