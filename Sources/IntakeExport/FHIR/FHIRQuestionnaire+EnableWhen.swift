import IntakeCore

extension FHIRQuestionnaire {
    /// `enableWhen` (+ `enableBehavior`) when the show-if condition is a single test, or tests all
    /// joined by `and` or all by `or`; otherwise an SDC enableWhenExpression in FHIRPath, which
    /// says the same thing.
    func enableWhen(_ condition: Condition) -> [(String, OrderedJSON)] {
        if let (tests, behavior) = flatten(condition) {
            var members: [(String, OrderedJSON)] = [("enableWhen", .array(tests))]
            if tests.count > 1 { members.append(("enableBehavior", .string(behavior))) }
            return members
        }
        // FHIRPath when the condition translates; otherwise Intake's own text, so a renderer that
        // cannot read it does not take it for "never shown".
        let path = fhirPath(condition)
        let value: [(String, OrderedJSON)] =
            path.map { [("language", .string("text/fhirpath")), ("expression", .string($0))] }
            ?? [("language", .string("text/x-intake")), ("expression", .string(questionnaire.describe(condition)))]
        let expression = OrderedJSON.object([("url", .string(Self.expressionURL)), ("valueExpression", .object(value))])
        return [("extension", .array([expression]))]
    }

    private func flatten(_ condition: Condition) -> ([OrderedJSON], String)? {
        switch condition {
        case .compare, .answered:
            return test(condition).map { ([$0], "all") }
        case .anyOf(let position, let values):
            let tests = values.compactMap { test(.compare(position, .equal, $0)) }
            return tests.count == values.count ? (tests, "any") : nil
        case .and(let parts):
            let tests = parts.compactMap(test)
            return tests.count == parts.count ? (tests, "all") : nil
        case .or(let parts):
            var tests: [OrderedJSON] = []
            for part in parts {
                switch part {
                case .anyOf(let position, let values):
                    for value in values {
                        guard let single = test(.compare(position, .equal, value)) else { return nil }
                        tests.append(single)
                    }
                default:
                    guard let single = test(part) else { return nil }
                    tests.append(single)
                }
            }
            return (tests, "any")
        case .not, .expression:
            return nil
        }
    }

    private func test(_ condition: Condition) -> OrderedJSON? {
        switch condition {
        case .compare(let position, let op, let value):
            guard let question = questionnaire.question(at: position), let answer = answer(value, for: question) else { return nil }
            return .object([("question", .string(question.key)), ("operator", .string(op.rawValue)), answer])
        case .answered(let position, let expected):
            guard let question = questionnaire.question(at: position) else { return nil }
            return .object([("question", .string(question.key)), ("operator", .string("exists")), ("answerBoolean", .bool(expected))])
        default:
            return nil
        }
    }

    /// The enableWhen answer, typed as the question's answers are.
    private func answer(_ value: ConditionValue, for question: Question) -> (String, OrderedJSON)? {
        switch (value, question.type) {
        case (.yesNo(let flag), _): return ("answerBoolean", .bool(flag))
        case (.code(let code), .singleChoice(let set)), (.code(let code), .multipleChoice(let set)):
            return (
                "answerCoding", .object([("system", .string(names.choiceSystem(question: question, set: set))), ("code", .string(code))])
            )
        case (.integer(let number), .decimal): return ("answerDecimal", .number(Double(number)))
        case (.integer(let number), _): return ("answerInteger", .integer(number))
        case (.decimal(let number), .decimal): return ("answerDecimal", .number(number))
        case (.decimal, _): return nil
        case (.date(let date), _): return ("answerDate", .string(date.description))
        case (.text(let text), _): return ("answerString", .string(text))
        case (.code, _): return nil
        }
    }

    /// The condition in FHIRPath over the response's items, or nil when a part has no FHIRPath form.
    func fhirPath(_ condition: Condition) -> String? {
        func item(_ position: QuestionPosition) -> String {
            let key = questionnaire.question(at: position)?.key ?? "\(position)"
            return "%resource.repeat(item).where(linkId = '\(key)').answer"
        }
        func literal(_ value: ConditionValue) -> (suffix: String, literal: String) {
            switch value {
            case .yesNo(let flag): ("", flag ? "true" : "false")
            case .code(let code): (".code", "'\(escaped(code))'")
            case .integer(let number): ("", String(number))
            case .decimal(let number): ("", "\(number)")
            case .date(let date): ("", "@\(date)")
            case .text(let text): ("", "'\(escaped(text))'")
            }
        }
        func escaped(_ text: String) -> String {
            text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        }
        switch condition {
        case .compare(let position, let op, let value):
            let (suffix, text) = literal(value)
            if case .code = value, op == .equal || op == .notEqual {
                // A multiple-choice answer holds several codes: "= x" means x is among them.
                let among = "(\(item(position)).value.code contains \(text))"
                return op == .equal ? among : "\(among).not()"
            }
            let comparison = op == .equal ? "=" : op.rawValue
            return "(\(item(position)).value\(suffix) \(comparison) \(text))"
        case .anyOf(let position, let values):
            let parts = values.compactMap { fhirPath(.compare(position, .equal, $0)) }
            return parts.count == values.count ? "(" + parts.joined(separator: " or ") + ")" : nil
        case .answered(let position, let expected):
            return expected ? "\(item(position)).exists()" : "\(item(position)).exists().not()"
        case .and(let parts), .or(let parts):
            let texts = parts.compactMap(fhirPath)
            guard texts.count == parts.count else { return nil }
            if case .and = condition { return "(" + texts.joined(separator: " and ") + ")" }
            return "(" + texts.joined(separator: " or ") + ")"
        case .not(let inner):
            return fhirPath(inner).map { "\($0).not()" }
        case .expression(let bound):
            return FHIRPathText(questionnaire: questionnaire).text(bound.expression)
        }
    }
}
