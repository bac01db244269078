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
    /// is, so an export that reads only rows writes this table too: straight into `out`, a line
    /// per instance.
    func write(_ row: ExportRow, into out: inout [UInt8]) {
        let code = plan.options.unansweredCode
        let raw = plan.options.rawCells
        var recordId: String?
        eachInstance(of: row) { outer, number, instance, cells in
            let id = recordId ?? row.item.record.id.uuidString.lowercased()
            recordId = id
            out.append(contentsOf: id.utf8)
            if let outer {
                out.append(UInt8(ascii: ","))
                out.append(contentsOf: String(outer).utf8)
            }
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: String(number).utf8)
            for cell in cells {
                out.append(UInt8(ascii: ","))
                switch Self.value(cell, in: instance) {
                case .text(let text)?: CSV.append(raw ? text : CSV.escape(text, marker: code), to: &out)
                case .plain(let text)?: CSV.append(text, to: &out)
                case .unanswered?: CSV.append(code, to: &out)
                case nil: break
                }
            }
            out.append(13)
            out.append(10)
        }
    }

    private func text(of row: ExportRow) -> String {
        var out: [UInt8] = []
        write(row, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Hands `body` each row this table has for one record: its key cells (record id, the outer
    /// instance's number for a repeat inside a repeat, the instance's number) and a value per
    /// column (nil for an empty cell), as collected: what the statistics files write.
    func eachRow(of row: ExportRow, _ body: (_ keys: [String], _ values: [CellValue?]) -> Void) {
        let recordId = row.item.record.id.uuidString.lowercased()
        eachInstance(of: row) { outer, number, instance, cells in
            body(
                [recordId] + (outer.map { [String($0)] } ?? []) + [String(number)], cells.map { Self.value($0, in: instance) })
        }
    }

    /// Hands `body` each instance this table has a row for: the outer instance's number (for a
    /// repeat inside a repeat), the instance's number, its answers by index, and where each
    /// column's answer is in this record's version (``VersionLayout/repeatCells``).
    private func eachInstance(
        of row: ExportRow, _ body: (_ outer: Int?, _ number: Int, _ instance: [Int: Answer], _ cells: [VersionLayout.RepeatCell?]) -> Void
    ) {
        let layout = row.layout
        guard let cells = layout.repeatCells[table.key] else { return }
        let group = cells.group
        func answer(_ question: Question) -> Answer? {
            guard let ordinal = layout.questionnaire.ordinal(of: question.position), !row.hidden[ordinal] else { return nil }
            return row.answers[ordinal]
        }
        if let parentKey = table.parentKey {
            guard let parent = layout.byKey[parentKey], case .instances(let outer)? = answer(parent) else { return }
            for (outerNumber, instance) in zip(1..., outer) {
                guard case .instances(let list)? = instance[group.position.index] else { continue }
                for (number, inner) in zip(1..., list) { body(outerNumber, number, inner, cells.columns) }
            }
        } else {
            guard case .instances(let list)? = answer(group) else { return }
            for (number, instance) in zip(1..., list) { body(nil, number, instance, cells.columns) }
        }
    }

    /// One cell of an instance: its answer at the column's part, the unanswered mark where the
    /// question was asked and left unanswered, or nil (empty).
    private static func value(_ cell: VersionLayout.RepeatCell?, in instance: [Int: Answer]) -> CellValue? {
        guard let cell else { return nil }
        guard let answer = instance[cell.index], let text = ExportPlan.cell(answer, cell.path[...], type: cell.type) else {
            return cell.unansweredWhenMissing ? .unanswered : nil
        }
        return text.isEmpty ? nil : .text(text)
    }

    public func footer() -> String { "" }
}
