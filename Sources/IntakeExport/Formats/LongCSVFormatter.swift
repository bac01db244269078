import IntakeCore

/// One row per answer (and per chosen code, per compound field): record, section, index,
/// question id, field, type, value. Suits analyses across versions, where positions moved.
/// Like the wide CSV, it leaves out answers to questions hidden by show-if (drafts can hold them).
/// A repeat gives a row with its number of instances, then its instances' answers, each row with
/// the instance's number (`2`, or `2.1` in a repeat inside a repeat).
public final class LongCSVFormatter: RowFormatter {
    let plan: ExportPlan
    static let columns = [
        "record_id", "patient_key", "questionnaire_version", "section", "index", "question_id", "field", "type", "value", "instance",
    ]

    public init(plan: ExportPlan) {
        self.plan = plan
    }

    public func header() -> String { CSV.line(Self.columns) }

    /// A value as the CSV files write collected text (see ``CSV/escape(_:marker:)``).
    func escaped(_ value: String) -> String {
        plan.options.rawCells ? value : CSV.escape(value, marker: plan.options.unansweredCode)
    }

    public func row(_ item: ExportRecord) throws(ExportError) -> String {
        var out: [UInt8] = []
        write(try ExportRow(item, plan: plan), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Written from the record's row (its answers by ordinal, show-if settled), as the wide CSV
    /// is: straight into `out` as bytes, the fields every line of the record starts with escaped
    /// once, so an export that reads only rows writes this file too.
    func write(_ row: ExportRow, into out: inout [UInt8]) {
        let questionnaire = row.layout.questionnaire
        let comma = UInt8(ascii: ",")
        var start: [UInt8] = []
        CSV.append(row.item.record.id.uuidString.lowercased(), to: &start)
        start.append(comma)
        CSV.append(row.item.patientKey ?? "", to: &start)
        start.append(comma)
        CSV.append(row.item.record.questionnaire.version, to: &start)
        start.append(comma)
        func write(_ question: Question, _ answer: Answer, instance: String) {
            if plan.options.dropFreeText, question.type == .text { return }
            if plan.leavesOut(question) { return }
            let position = question.position
            var base = start
            base.append(contentsOf: String(position.section).utf8)
            base.append(comma)
            base.append(contentsOf: String(position.index).utf8)
            base.append(comma)
            CSV.append(question.key, to: &base)
            base.append(comma)
            func line(field: String, keyword: String, value: String) {
                out.append(contentsOf: base)
                CSV.append(field, to: &out)
                out.append(comma)
                CSV.append(keyword, to: &out)
                out.append(comma)
                CSV.append(escaped(value), to: &out)
                out.append(comma)
                CSV.append(instance, to: &out)
                out.append(13)
                out.append(10)
            }
            func emit(field: String, type: QuestionType?, _ answer: Answer) {
                let keyword = type?.keyword ?? answer.kind
                if case .choices(let codes) = answer {
                    for code in codes { line(field: field, keyword: keyword, value: code) }
                } else {
                    line(field: field, keyword: keyword, value: ExportPlan.text(of: answer))
                }
            }
            if let fields = answer.parts, let defined = question.type.parts {
                for field in defined {
                    guard let value = fields[field.key] else { continue }
                    if plan.options.dropFreeText, field.type == .text { continue }
                    emit(field: field.key, type: field.type, value)
                }
            } else {
                emit(field: "", type: question.type, answer)
            }
            guard question.isRepeat, case .instances(let list) = answer else { return }
            let members = questionnaire.members(of: question.position)
            for (number, answers) in zip(1..., list) {
                let path = instance.isEmpty ? String(number) : "\(instance).\(number)"
                for member in members {
                    if let inner = answers[member.position.index] { write(member, inner, instance: path) }
                }
            }
        }
        // In the questionnaire's order (by section and place); a repeat's questions are written
        // from its instances, never from the top.
        for ordinal in row.answers.indices where !row.hidden[ordinal] {
            guard let answer = row.answers[ordinal], questionnaire.allQuestions[ordinal].group == nil else { continue }
            write(questionnaire.allQuestions[ordinal], answer, instance: "")
        }
    }

    public func footer() -> String { "" }
}
