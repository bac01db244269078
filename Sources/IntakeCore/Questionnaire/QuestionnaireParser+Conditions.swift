import Foundation

extension QuestionnaireParser {
    /// Checks each show-if condition against the questions before it and attaches it.
    func resolveConditions(in sections: [Section]) -> [QuestionPosition: Condition] {
        let questions = sections.flatMap(\.questions)
        var byId: [String: Question] = [:]
        for question in questions { if let id = question.id, byId[id] == nil { byId[id] = question } }
        var resolved: [QuestionPosition: Condition] = [:]
        for pending in pendingConditions {
            if let condition = resolve(pending.syntax, in: pending, byId: byId) {
                resolved[pending.position] = resolved[pending.position].map { .and([$0, condition]) } ?? condition
            }
        }
        return resolved
    }

    private func resolve(_ syntax: ConditionSyntax, in pending: PendingCondition, byId: [String: Question]) -> Condition? {
        switch syntax {
        case .and(let parts):
            let resolved = parts.compactMap { resolve($0, in: pending, byId: byId) }
            return resolved.count == parts.count ? .and(resolved) : nil
        case .or(let parts):
            let resolved = parts.compactMap { resolve($0, in: pending, byId: byId) }
            return resolved.count == parts.count ? .or(resolved) : nil
        case .not(let inner):
            return resolve(inner, in: pending, byId: byId).map(Condition.not)
        case .answered(let reference, let expected):
            return question(reference, in: pending, byId: byId).map { .answered($0.position, expected) }
        case .compare(let reference, let op, let literal):
            guard let target = question(reference, in: pending, byId: byId) else { return nil }
            if op.isOrdering {
                switch target.type {
                case .integer, .decimal, .date: break
                default:
                    report(
                        pending.path, pending.line, reference.column,
                        "'\(op.rawValue)' compares numbers or dates; '\(reference.id)' is a \(target.type.keyword) question",
                        hint: "use = or != here, or 'any of (…)' for choices")
                    return nil
                }
            }
            return value(literal, for: target, pending: pending).map { .compare(target.position, op, $0) }
        case .anyOf(let reference, let literals):
            guard let target = question(reference, in: pending, byId: byId) else { return nil }
            let values = literals.compactMap { value($0, for: target, pending: pending) }
            return values.count == literals.count ? .anyOf(target.position, values) : nil
        }
    }

    /// The referenced question, which must exist and come before the one with the condition.
    private func question(_ reference: ConditionSyntax.Reference, in pending: PendingCondition, byId: [String: Question]) -> Question? {
        guard let target = byId[reference.id] else {
            if PatientIdentification.expressionFields[reference.id] != nil {
                report(
                    pending.path, pending.line, reference.column,
                    "show-if cannot read the patient's \(reference.id.replacingOccurrences(of: "_", with: " "))",
                    hint: "show-if reads answers only (exports settle it from answers, without the date of birth); ask a question for it")
                return nil
            }
            let hint = Suggestion.nearest(to: reference.id, in: Array(byId.keys)).map { "did you mean '\($0)'?" }
            report(
                pending.path, pending.line, reference.column, "show-if refers to an unknown question id '\(reference.id)'",
                hint: hint ?? "give the earlier question an id with '| id: \(reference.id)'")
            return nil
        }
        guard target.position < pending.position else {
            report(
                pending.path, pending.line, reference.column,
                "show-if refers to '\(reference.id)' (question \(target.position)), which does not come before this question",
                hint: "a condition can only use answers given earlier; move the question or the condition")
            return nil
        }
        if let problem = scopeProblem(reading: target, from: pending.position) {
            report(pending.path, pending.line, reference.column, "show-if: " + problem.message, hint: problem.hint)
            return nil
        }
        if target.type == .note {
            report(
                pending.path, pending.line, reference.column, "show-if cannot test the note '\(reference.id)', which has no answer",
                hint: "test a question that takes an answer")
            return nil
        }
        if case .compound = target.type {
            report(
                pending.path, pending.line, reference.column, "show-if cannot test the compound question '\(reference.id)'",
                hint: "test a separate yes/no or choice question instead")
            return nil
        }
        return target
    }

    /// Types a condition's literal by the question it is compared with.
    private func value(_ literal: ConditionSyntax.Literal, for target: Question, pending: PendingCondition) -> ConditionValue? {
        let text = literal.text
        let value: ConditionValue?
        let expected: String
        switch target.type {
        case .yesNo:
            value =
                ["yes", "true"].contains(text.lowercased())
                ? .yesNo(true) : ["no", "false"].contains(text.lowercased()) ? .yesNo(false) : nil
            expected = "yes or no"
        case .singleChoice(let set), .multipleChoice(let set):
            let match = set.choice(code: text) ?? set.choices.first { $0.label.base.lowercased() == text.lowercased() }
            value = match.map { .code($0.code) }
            let codes = set.choices.prefix(8).map(\.code).joined(separator: ", ")
            expected = "one of its choice codes (\(codes)\(set.choices.count > 8 ? ", …" : ""))"
        case .integer:
            value = Int(text).map(ConditionValue.integer) ?? Double(text).map(ConditionValue.decimal)
            expected = "a whole number"
        case .decimal:
            value = Double(text).map(ConditionValue.decimal)
            expected = "a number"
        case .date:
            value = LocalDate(iso: text).map(ConditionValue.date)
            expected = "a date written YYYY-MM-DD"
        case .text:
            value = .text(text)
            expected = "text"
        case .compound, .note, .geopoint, .repeatGroup, .attachment:
            value = nil
            expected = "nothing"
        }
        if value == nil {
            report(
                pending.path, pending.line, literal.column, "'\(text)' is not a possible answer to '\(target.key)'",
                hint: "compare it with \(expected)")
        }
        return value
    }
}
