extension Questionnaire {
    /// A condition as it would be written in a section file: `cough = yes and cough_days > 14`.
    public func describe(_ condition: Condition) -> String {
        func name(_ position: QuestionPosition) -> String {
            question(at: position)?.key ?? position.description
        }
        func value(_ value: ConditionValue) -> String {
            switch value {
            case .yesNo(let flag): flag ? "yes" : "no"
            case .code(let code): code
            case .integer(let number): String(number)
            case .decimal(let number): String(number)
            case .date(let date): date.description
            case .text(let text): "\"\(text)\""
            }
        }
        switch condition {
        case .compare(let position, let op, let literal): return "\(name(position)) \(op.rawValue) \(value(literal))"
        case .anyOf(let position, let values): return "\(name(position)) any of (\(values.map(value).joined(separator: ", ")))"
        case .answered(let position, let expected): return "\(name(position)) is \(expected ? "" : "not ")answered"
        case .and(let parts): return parts.map { group($0) }.joined(separator: " and ")
        case .or(let parts): return parts.map { group($0) }.joined(separator: " or ")
        case .not(let inner): return "not \(group(inner))"
        case .expression(let bound): return bound.description
        }
    }

    private func group(_ condition: Condition) -> String {
        switch condition {
        case .and, .or, .expression: "(\(describe(condition)))"
        default: describe(condition)
        }
    }
}
