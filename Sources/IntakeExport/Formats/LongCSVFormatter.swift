import IntakeCore

/// One row per answer (and per chosen code, per compound field): record, section, index,
/// question id, field, type, value. Suits analyses across versions, where positions moved.
/// Like the wide CSV, it leaves out answers to questions hidden by show-if (drafts can hold them).
/// A repeat gives a row with its number of instances, then its instances' answers, each row with
/// the instance's number (`2`, or `2.1` in a repeat inside a repeat).
public final class LongCSVFormatter: ExportFormatter {
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
        let record = item.record
        let layout = try plan.layout(for: record.questionnaire)
        var out = ""
        let recordId = record.id.uuidString.lowercased()
        let hidden = layout.questionnaire.hiddenPositions(in: record)
        func write(_ question: Question, _ answer: Answer, instance: String) {
            if plan.options.dropFreeText, question.type == .text { return }
            if plan.leavesOut(question) { return }
            let position = question.position
            let base = [
                recordId, item.patientKey ?? "", record.questionnaire.version, String(position.section), String(position.index),
                question.key,
            ]
            func emit(field: String, type: QuestionType?, _ answer: Answer) {
                let keyword = type?.keyword ?? answer.kind
                if case .choices(let codes) = answer {
                    for code in codes { out += CSV.line(base + [field, keyword, escaped(code), instance]) }
                } else {
                    out += CSV.line(base + [field, keyword, escaped(ExportPlan.text(of: answer)), instance])
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
            let members = layout.questionnaire.members(of: question.position)
            for (number, answers) in zip(1..., list) {
                let path = instance.isEmpty ? String(number) : "\(instance).\(number)"
                for member in members {
                    if let inner = answers[member.position.index] { write(member, inner, instance: path) }
                }
            }
        }
        for (position, answer) in record.allAnswers where !hidden.contains(position) {
            guard let question = layout.questionnaire.question(at: position), question.group == nil else { continue }
            write(question, answer, instance: "")
        }
        return out
    }

    public func footer() -> String { "" }
}
