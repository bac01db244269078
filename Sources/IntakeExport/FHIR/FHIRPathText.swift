import IntakeCore

/// An Intake expression in FHIRPath over a QuestionnaireResponse's items, for SDC's
/// enableWhenExpression and calculatedExpression; nil when a function has no FHIRPath equivalent.
struct FHIRPathText {
    let questionnaire: Questionnaire

    func text(_ expression: Expression) -> String? {
        switch expression {
        case .number(let value): return ExpressionValue.number(value).text
        case .text(let value):
            return "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        case .date(let value): return "@\(value)"
        case .bool(let value): return value ? "true" : "false"
        case .name(let name, _) where questionnaire.question(id: name) == nil && name != ".":
            // The patient's date of birth or sex: not an item of the response.
            return nil
        case .name(let name, _) where questionnaire.question(id: name)?.group != nil:
            // Asked once per instance: a path from the response's root reads every instance's
            // answer, so the expression is given in Intake's own language instead.
            return nil
        case .name(let name, _):
            // A choice answer compares by its code.
            let isChoice = questionnaire.question(id: name)?.type.choices != nil
            return "%resource.repeat(item).where(linkId = '\(name)').answer.value" + (isChoice ? ".code" : "")
        case .negate(let inner): return text(inner).map { "-(\($0))" }
        case .arithmetic(let op, let a, let b):
            guard let left = text(a), let right = text(b) else { return nil }
            return "(\(left) \(op == .modulo ? "mod" : op.rawValue) \(right))"
        case .compare(let op, let a, let b):
            guard let left = text(a), let right = text(b) else { return nil }
            if op == .equal || op == .notEqual, isMultiple(a) || isMultiple(b) {
                let (set, code) = isMultiple(a) ? (left, right) : (right, left)
                return op == .equal ? "(\(set) contains \(code))" : "(\(set) contains \(code)).not()"
            }
            return "(\(left) \(op.rawValue) \(right))"
        case .answered(let inner, let expected): return text(inner).map { expected ? "\($0).exists()" : "\($0).exists().not()" }
        case .and(let parts): return joined(parts, "and")
        case .or(let parts): return joined(parts, "or")
        case .not(let inner): return text(inner).map { "(\($0)).not()" }
        case .call(let name, let arguments, _):
            let values = arguments.compactMap(text)
            guard values.count == arguments.count else { return nil }
            switch (name, values.count) {
            case ("if", 3): return "iif(\(values[0]), \(values[1]), \(values[2]))"
            case ("today", 0): return "today()"
            case ("number", 1): return "(\(values[0])).toDecimal()"
            case ("int", 1): return "(\(values[0])).truncate()"
            case ("pow", 2): return "(\(values[0])).power(\(values[1]))"
            case ("length", 1): return "(\(values[0])).length()"
            case ("contains", 2): return "(\(values[0])).lower().contains((\(values[1])).lower())"
            case ("matches", 2): return "(\(values[0])).matches('^(?:' + \(values[1]) + ')$')"
            case ("lower", 1): return "(\(values[0])).lower()"
            case ("upper", 1): return "(\(values[0])).upper()"
            case ("substr", 2): return "(\(values[0])).substring(\(values[1]))"
            case ("substr", 3): return "(\(values[0])).substring(\(values[1]), \(values[2]))"
            case ("abs", 1): return "(\(values[0])).abs()"
            case ("round", 1): return "(\(values[0])).round()"
            case ("round", 2): return "(\(values[0])).round(\(values[1]))"
            case ("concat", _): return "(" + values.joined(separator: " & ") + ")"
            case ("coalesce", _): return "(" + values.joined(separator: " | ") + ").first()"
            case ("count-selected", 1): return "\(values[0]).count()"
            case ("selected", 2): return "(\(values[0]) contains \(values[1]))"
            default: return nil
            }
        }
    }

    private func joined(_ parts: [Expression], _ word: String) -> String? {
        let texts = parts.compactMap(text)
        return texts.count == parts.count ? "(" + texts.joined(separator: " \(word) ") + ")" : nil
    }

    private func isMultiple(_ expression: Expression) -> Bool {
        guard case .name(let name, _) = expression, case .multipleChoice = questionnaire.question(id: name)?.type else { return false }
        return true
    }
}
