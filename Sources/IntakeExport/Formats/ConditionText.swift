import IntakeCore

/// A show-if condition written back as the questionnaire format spells it, with question keys:
/// `cough = yes and cough_days > 14`.
enum ConditionText {
    static func text(_ condition: Condition, in questionnaire: Questionnaire) -> String {
        func key(_ position: QuestionPosition) -> String {
            questionnaire.question(at: position)?.key ?? "s\(position.section)_q\(position.index)"
        }
        func value(_ value: ConditionValue) -> String {
            switch value {
            case .yesNo(let flag): flag ? "yes" : "no"
            case .code(let code): code
            case .integer(let number): String(number)
            case .decimal(let number): ExportPlan.number(number)
            case .date(let date): date.description
            case .text(let text): "\"\(text)\""
            }
        }
        func text(_ condition: Condition, nested: Bool) -> String {
            switch condition {
            case .compare(let position, let op, let literal): return "\(key(position)) \(op.rawValue) \(value(literal))"
            case .anyOf(let position, let values): return "\(key(position)) any of \(values.map(value).joined(separator: ", "))"
            case .answered(let position, let expected): return "\(key(position)) is \(expected ? "" : "not ")answered"
            case .and(let parts):
                let joined = parts.map { text($0, nested: true) }.joined(separator: " and ")
                return nested ? "(\(joined))" : joined
            case .or(let parts):
                let joined = parts.map { text($0, nested: true) }.joined(separator: " or ")
                return nested ? "(\(joined))" : joined
            case .not(let inner): return "not \(text(inner, nested: true))"
            case .expression(let bound): return nested ? "(\(bound))" : bound.description
            }
        }
        return text(condition, nested: false)
    }
}
