import Foundation

extension QuestionnaireParser {
    /// What an expression on a question line is for.
    enum ExpressionRole: String {
        case showIf = "show if", calculate, constraint, requiredIf = "required if", defaultValue = "default", alertIf = "alert if"
        case repeatCount = "count"
        /// An expression of `cases.txt`: read once the record is complete, like an alert's.
        case caseRule = "case rule"

        /// Whether `.` (the question's own answer) means something here.
        var readsOwnAnswer: Bool { self == .constraint || self == .alertIf }
    }

    /// An expression not yet checked against the other questions.
    struct PendingExpression {
        var role: ExpressionRole
        var expression: Expression
        var position: QuestionPosition
        var path: String
        var line: Int
        var column: Int
    }

    func pending(_ role: ExpressionRole, _ expression: Expression, _ position: QuestionPosition, _ path: String, _ line: Int, _ column: Int)
    {
        if pendingExpressions.contains(where: { $0.position == position && $0.role == role && role != .showIf }) {
            report(path, line, column, "the question has more than one '\(role.rawValue)'", hint: "join them with 'and', or keep one")
            return
        }
        pendingExpressions.append(
            PendingExpression(role: role, expression: expression, position: position, path: path, line: line, column: column))
    }

    /// Checks what a question's annotations say together, once the line is read.
    func checkRules(of question: inout Question, typeSeen: Bool, pending: ArraySlice<PendingExpression>, path: String) {
        let roles = Set(pending.map(\.role))
        let line = question.line
        if roles.contains(.calculate) {
            if !typeSeen { question.type = .decimal(.unbounded) }
            switch question.type {
            case .compound, .note, .multipleChoice, .geopoint, .repeatGroup, .attachment:
                report(
                    path, line, nil, "a calculated question cannot be a \(question.type.keyword) question",
                    hint: "calculate a number, a date, yes/no, text or a single choice's code")
            default: break
            }
            if roles.contains(.defaultValue) {
                report(path, line, nil, "a calculated question has no default", hint: "remove 'default'; its value is always computed")
            }
        }
        if question.isRepeat {
            let extra =
                roles.subtracting([.showIf, .repeatCount]).map(\.rawValue).sorted()
                + (question.constraint != nil ? ["pattern or message"] : []) + (question.isIdentifying ? ["identifying"] : [])
            if !extra.isEmpty {
                report(
                    path, line, nil, "a repeat holds questions and cannot have \(extra.joined(separator: ", "))",
                    hint: "give a repeat 'show if', 'count' and 'required'; put rules on the questions in it")
            }
        } else if roles.contains(.repeatCount) {
            report(
                path, line, nil, "'count' says how many instances a repeat has, and this is a \(question.type.keyword) question",
                hint: "write 'count' on a '| repeat' question")
        }
        if question.type == .note {
            let extra =
                roles.subtracting([.showIf]).map(\.rawValue).sorted() + (question.isRequired ? ["required"] : [])
                + (question.constraint != nil ? ["pattern or message"] : [])
            if !extra.isEmpty {
                report(
                    path, line, nil, "a note takes no answer, so it cannot have \(extra.joined(separator: ", "))",
                    hint: "a note only shows text (with '{id}' for an answer); give it at most 'show if'")
            }
        }
        if question.constraint?.pattern != nil, question.type != .text {
            report(
                path, line, nil, "a pattern applies to text answers; this is a \(question.type.keyword) question",
                hint: "use a constraint instead")
        }
        if question.constraint?.message != nil, question.constraint?.pattern == nil, !roles.contains(.constraint) {
            report(
                path, line, nil, "'message' explains a constraint or a pattern, and the question has neither",
                hint: "add '| constraint: …' or remove the message")
        }
        if alertMessages[question.position] != nil, !roles.contains(.alertIf) {
            report(
                path, line, nil, "'alert' gives an alert's message, and the question has no 'alert if'",
                hint: "add '| alert if: . = yes' or remove it")
        }
        if roles.contains(.alertIf), alertMessages[question.position] == nil {
            report(
                path, line, nil, "'alert if' needs a message for the coordinators",
                hint: "add '| alert: Urgent: follow the referral protocol'")
        }
    }

    /// Checks every pending expression against the questions and attaches it to its question.
    func resolveExpressions(in sections: inout [Section]) {
        var byId: [String: Question] = [:]
        for question in sections.flatMap(\.questions) { if let id = question.id, byId[id] == nil { byId[id] = question } }
        checkNotePlaceholders(sections, byId: byId)
        guard !pendingExpressions.isEmpty || !pendingFilters.isEmpty else { return }
        for pending in pendingFilters {
            guard let s = sections.firstIndex(where: { $0.number == pending.position.section }),
                sections[s].questions.indices.contains(pending.position.index - 1)
            else { continue }
            let own = sections[s].questions[pending.position.index - 1]
            if let position = checkFilter(pending, own: own, byId: byId) {
                sections[s].questions[pending.position.index - 1].choiceFilter = position
            }
        }
        for pending in pendingExpressions {
            guard let s = sections.firstIndex(where: { $0.number == pending.position.section }),
                sections[s].questions.indices.contains(pending.position.index - 1)
            else { continue }
            let own = sections[s].questions[pending.position.index - 1]
            guard let bound = bind(pending, own: own, byId: byId) else { continue }
            var question = own
            switch pending.role {
            case .showIf: question.showIf = question.showIf.map { .and([$0, .expression(bound)]) } ?? .expression(bound)
            case .calculate: question.calculation = bound
            case .constraint:
                var constraint = question.constraint ?? AnswerConstraint()
                constraint.expression = bound
                question.constraint = constraint
            case .requiredIf: question.requiredIf = bound
            case .defaultValue:
                if bound.positions.isEmpty, case let value = bound.value(answer: { _ in nil }), value != .missing,
                    Answer(value, for: question.type) == nil
                {
                    report(
                        pending.path, pending.line, pending.column,
                        "the default \(bound) is not a possible answer to a \(question.type.keyword) question",
                        hint: question.type.choices != nil ? "give one of its choice codes" : "give a value of the question's type")
                    continue
                }
                question.defaultValue = bound
            case .alertIf:
                question.alert = QuestionAlert(condition: bound, message: alertMessages[own.position] ?? LocalizedText(""))
            case .repeatCount: question.repeatCount = bound
            case .caseRule: continue
            }
            sections[s].questions[pending.position.index - 1] = question
        }
    }

    /// The repeat groups a question is inside, innermost first.
    func enclosingGroups(of position: QuestionPosition) -> [QuestionPosition] {
        var chain: [QuestionPosition] = []
        var current = groupOf[position]
        while let group = current {
            chain.append(group)
            current = groupOf[group]
        }
        return chain
    }

    /// Why the question at `own` cannot read `target` by name, if it cannot: a question asked once
    /// per instance is read by name only within its instance, and a repeat only by `count()`.
    func scopeProblem(reading target: Question, from own: QuestionPosition) -> (message: String, hint: String)? {
        if target.isRepeat {
            return ("'\(target.key)' is a repeat, which has no single answer", "count its instances with count(\(target.key))")
        }
        guard let group = target.group, !enclosingGroups(of: own).contains(group) else { return nil }
        return (
            "'\(target.key)' is asked once per instance of a repeat, so it has no single answer here",
            "read it with sum(\(target.key)) or count(\(target.key)), or from a question inside the same repeat"
        )
    }

    /// A note's `{id}` must name an earlier question that has an answer to show.
    private func checkNotePlaceholders(_ sections: [Section], byId: [String: Question]) {
        for section in sections {
            for note in section.questions where note.type == .note {
                let text = note.text.base
                var rest = text[...]
                while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                    let id = String(rest[rest.index(after: open)..<close])
                    rest = rest[rest.index(after: close)...]
                    guard ConditionParser.isIdentifier(id) else { continue }
                    let path = section.path
                    guard let target = byId[id] else {
                        let hint = Suggestion.nearest(to: id, in: Array(byId.keys)).map { "did you mean '{\($0)}'?" }
                        report(
                            path, note.line, nil, "the note shows '{\(id)}', which is no question's id",
                            hint: hint ?? "write an earlier question's id in braces")
                        continue
                    }
                    if let problem = scopeProblem(reading: target, from: note.position) {
                        report(
                            path, note.line, nil, "the note shows '{\(id)}': " + problem.message,
                            hint: "a note shows answers it can reach by name")
                        continue
                    }
                    if target.position > note.position || !target.takesAnswer {
                        report(
                            path, note.line, nil, "the note shows '{\(id)}', which is not an earlier question with an answer",
                            hint: "a note shows answers given before it")
                    }
                }
            }
        }
    }

    /// The expression with number and yes/no literals compared with a choice question (`=`, `!=`,
    /// `selected()`) written as that choice's code when it has one, since choices are codes.
    static func literalsAsCodes(_ expression: Expression, choices: (Expression) -> ChoiceSet?) -> Expression {
        func code(_ literal: Expression, in set: ChoiceSet?) -> Expression {
            guard let set else { return literal }
            let candidates: [String]
            switch literal {
            case .number(let value): candidates = [ExpressionValue.number(value).text]
            case .bool(let flag): candidates = flag ? ["yes", "true", "1"] : ["no", "false", "0"]
            default: return literal
            }
            return candidates.first(where: set.contains(code:)).map { .text($0) } ?? literal
        }
        func rewrite(_ e: Expression) -> Expression { literalsAsCodes(e, choices: choices) }
        switch expression {
        case .number, .text, .date, .bool, .name: return expression
        case .negate(let inner): return .negate(rewrite(inner))
        case .answered(let inner, let expected): return .answered(rewrite(inner), expected)
        case .not(let inner): return .not(rewrite(inner))
        case .arithmetic(let op, let a, let b): return .arithmetic(op, rewrite(a), rewrite(b))
        case .compare(let op, let a, let b) where op == .equal || op == .notEqual:
            return .compare(op, code(rewrite(a), in: choices(b)), code(rewrite(b), in: choices(a)))
        case .compare(let op, let a, let b): return .compare(op, rewrite(a), rewrite(b))
        case .and(let parts): return .and(parts.map(rewrite))
        case .or(let parts): return .or(parts.map(rewrite))
        case .call("selected", let arguments, let column) where arguments.count == 2:
            return .call("selected", [arguments[0], code(arguments[1], in: choices(arguments[0]))], column: column)
        case .call(let name, let arguments, let column): return .call(name, arguments.map(rewrite), column: column)
        }
    }

    /// Where the question a `filter:` names stands, once it is found to fit: an earlier single
    /// choice, whose codes tag every choice of this one.
    private func checkFilter(
        _ pending: (position: QuestionPosition, id: String, path: String, line: Int, column: Int), own: Question, byId: [String: Question]
    ) -> QuestionPosition? {
        func fail(_ message: String, _ hint: String? = nil) -> QuestionPosition? {
            report(pending.path, pending.line, pending.column, message, hint: hint)
            return nil
        }
        guard let set = own.type.choices else {
            return fail("filter applies to single- and multiple-choice questions; this is a \(own.type.keyword) question")
        }
        guard let parent = byId[pending.id] else {
            let hint = Suggestion.nearest(to: pending.id, in: Array(byId.keys)).map { "did you mean '\($0)'?" }
            return fail(
                "filter refers to an unknown question id '\(pending.id)'",
                hint ?? "give the earlier question an id with '| id: \(pending.id)'")
        }
        guard parent.position < own.position else {
            return fail(
                "filter refers to '\(pending.id)' (question \(parent.position)), which does not come before this question",
                "the question that picks the choices is asked first; move it")
        }
        if let problem = scopeProblem(reading: parent, from: own.position) {
            return fail(
                "filter refers to '\(pending.id)': " + problem.message,
                "filter by a question the form has answered in this instance, or outside any repeat")
        }
        guard case .singleChoice(let parents) = parent.type else {
            return fail("filter needs a single-choice question; '\(pending.id)' is a \(parent.type.keyword) question")
        }
        if let untagged = set.choices.first(where: { $0.filter == nil }) {
            return fail(
                "the choice '\(untagged.code)' has no '\(pending.id)' code in front of it",
                "write each choice as '<\(pending.id) code>:\(untagged.code)=Label', e.g. '\(parents.choices.first?.code ?? "a"):\(untagged.code)=…'"
            )
        }
        if let stray = set.choices.first(where: { !parents.contains(code: $0.filter!) }) {
            return fail(
                "the choice '\(stray.code)' is tagged '\(stray.filter!)', which is not a choice of '\(pending.id)'",
                "tags are the codes of '\(pending.id)': \(parents.choices.prefix(8).map(\.code).joined(separator: ", "))")
        }
        // A required question must have something to offer for every answer before it.
        if own.isRequired, own.showIf == nil,
            let barren = parents.choices.first(where: { parent in !set.choices.contains { $0.filter == parent.code } })
        {
            return fail(
                "the question is required, but no choice is tagged for '\(barren.code)' of '\(pending.id)'",
                "add a choice '\(barren.code):…=…', make the question optional, or hide it with 'show if' for that answer")
        }
        return parent.position
    }

    /// The expression with the position of each question it reads, or nil after reporting why not.
    func bind(_ pending: PendingExpression, own: Question, byId: [String: Question]) -> BoundExpression? {
        let role = pending.role
        func fail(_ column: Int, _ message: String, _ hint: String? = nil) -> BoundExpression? {
            report(pending.path, pending.line, column, message, hint: hint)
            return nil
        }
        do {
            try pending.expression.check(questions: Set(byId.keys).union(["."]))
        } catch {
            return fail(error.column, error.message, error.hint)
        }
        var positions: [String: QuestionPosition] = [:]
        var repeatedReads: [String: BoundExpression.RepeatedRead] = [:]
        var problem: (column: Int, message: String, hint: String?)?
        if role == .alertIf, own.group != nil {
            return fail(
                pending.column, "an alert cannot be raised from inside a repeat",
                "put the alert on a question after the repeat, reading it with count() or sum()")
        }

        /// The question a name reads (`.` is the question itself).
        func target(_ name: String) -> Question? { name == "." ? own : byId[name] }

        func visit(_ expression: Expression, codeOf choiceQuestion: Question?) {
            guard problem == nil else { return }
            switch expression {
            case .number, .bool:
                // Left as a number or yes/no: the choice question has no such code.
                if let choiceQuestion, let set = choiceQuestion.type.choices {
                    problem = (
                        pending.column, "\(expression) is not a choice of '\(choiceQuestion.key)'",
                        "its codes are \(set.choices.prefix(8).map(\.code).joined(separator: ", "))\(set.choices.count > 8 ? ", …" : "")"
                    )
                }
                return
            case .text, .date: return
            case .name(let name, let column):
                if name == "." {
                    guard role.readsOwnAnswer else {
                        problem = (
                            column, "'.' stands for the answer itself, which a \(role.rawValue) cannot read", "name the question by its id"
                        )
                        return
                    }
                    guard own.takesAnswer else {
                        problem = (column, "'.' reads the answer, and a note has none", nil)
                        return
                    }
                    positions["."] = own.position
                    return
                }
                if name.hasPrefix("case.") {
                    let property = String(name.dropFirst("case.".count))
                    guard caseRules.follows != nil else {
                        problem = (
                            column, "'\(name)' reads the case a follow-up is filled for, and this questionnaire follows no case list",
                            "add 'follows: <list>' and 'property: \(property) <type>' to cases.txt"
                        )
                        return
                    }
                    guard let found = caseRules.property(named: property) else {
                        let declared = caseRules.follows!.properties.map(\.name)
                        let hint = Suggestion.nearest(to: property, in: declared).map { "did you mean 'case.\($0)'?" }
                        problem = (
                            column, "the case has no property '\(property)' declared in cases.txt",
                            hint ?? "declare it there: 'property: \(property) <type>'"
                        )
                        return
                    }
                    positions[name] = found.position
                    return
                }
                guard let question = byId[name] else {
                    if let field = PatientIdentification.expressionFields[name] {
                        guard role != .showIf else {
                            problem = (
                                column, "show-if cannot read the patient's \(name.replacingOccurrences(of: "_", with: " "))",
                                "show-if reads answers only (exports settle it from answers, without the date of birth); ask a question for it"
                            )
                            return
                        }
                        positions[name] = field
                        return
                    }
                    if let choiceQuestion, let set = choiceQuestion.type.choices {
                        if set.contains(code: name) { return }
                        let codes = set.choices.prefix(8).map(\.code).joined(separator: ", ")
                        problem = (
                            column, "'\(name)' is not a choice of '\(choiceQuestion.key)'",
                            "its codes are \(codes)\(set.choices.count > 8 ? ", …" : "")"
                        )
                        return
                    }
                    let hint = Suggestion.nearest(to: name, in: Array(byId.keys)).map { "did you mean '\($0)'?" }
                    problem = (
                        column, "\(role.rawValue) refers to an unknown question id '\(name)'",
                        hint ?? "give the question an id with '| id: \(name)', or quote text: \"\(name)\""
                    )
                    return
                }
                if question.position == own.position {
                    guard role.readsOwnAnswer else {
                        problem = (column, "a \(role.rawValue) cannot read the question's own answer", "read earlier questions only")
                        return
                    }
                } else if question.position > own.position, role != .alertIf {
                    problem = (
                        column,
                        "\(role.rawValue) refers to '\(name)' (question \(question.position)), which does not come before this question",
                        "an expression can only use answers given earlier; move the question or the expression"
                    )
                    return
                }
                if let scope = scopeProblem(reading: question, from: own.position) {
                    problem = (column, scope.message, scope.hint)
                    return
                }
                switch question.type {
                case .compound:
                    problem = (column, "an expression cannot read the compound question '\(name)'", "read a separate question instead")
                case .note:
                    problem = (column, "'\(name)' is a note and has no answer", nil)
                default:
                    positions[name] = question.position
                }
            case .negate(let inner), .answered(let inner, _), .not(let inner): visit(inner, codeOf: nil)
            case .arithmetic(_, let a, let b):
                visit(a, codeOf: nil)
                visit(b, codeOf: nil)
            case .compare(let op, let a, let b):
                let codes = op == .equal || op == .notEqual
                visit(a, codeOf: codes ? choiceSide(b) : nil)
                visit(b, codeOf: codes ? choiceSide(a) : nil)
            case .and(let parts), .or(let parts):
                for part in parts { visit(part, codeOf: nil) }
            case .call(let name, let arguments, let column) where name == "sum" || name == "count":
                guard case .name(let id, let idColumn) = arguments[0], let question = byId[id] else {
                    problem = (
                        column, "\(name)() reads a question asked in a repeat\(name == "count" ? ", or a repeat" : ""): give its id", nil
                    )
                    return
                }
                let enclosing = enclosingGroups(of: own.position)
                let read: BoundExpression.RepeatedRead
                if question.isRepeat, name == "count" {
                    read = .init(group: question.position, index: nil)
                } else if let group = question.group {
                    read = .init(group: group, index: question.position.index)
                } else {
                    problem = (idColumn, "\(name)() goes over a repeat's instances, and '\(id)' is asked once", "read it by name: \(id)")
                    return
                }
                if enclosing.contains(read.group) {
                    problem = (idColumn, "here '\(id)' is this instance's answer, not one per instance", "read it by name: \(id)")
                    return
                }
                if let outer = groupOf[read.group], !enclosing.contains(outer) {
                    problem = (
                        idColumn, "'\(id)' is in a repeat inside another repeat",
                        "add it up inside the outer repeat (a calculated question there), then sum() that question"
                    )
                    return
                }
                if question.position > own.position, role != .alertIf {
                    problem = (
                        idColumn,
                        "\(role.rawValue) refers to '\(id)' (question \(question.position)), which does not come before this question",
                        "an expression can only use answers given earlier; move the question or the expression"
                    )
                    return
                }
                if name == "sum" {
                    switch question.type {
                    case .integer, .decimal: break
                    default:
                        problem = (
                            idColumn, "sum() adds numbers, and '\(id)' is a \(question.type.keyword) question",
                            "count its answers with count(\(id))"
                        )
                        return
                    }
                }
                repeatedReads[id] = read
            case .call(let name, let arguments, let column):
                if name == "selected" || name == "count-selected" {
                    guard case .name(let id, _) = arguments[0], let question = target(id), question.type.choices != nil else {
                        problem = (column, "\(name)() reads a single- or multiple-choice question", nil)
                        return
                    }
                    visit(arguments[0], codeOf: nil)
                    if arguments.count > 1 { visit(arguments[1], codeOf: question) }
                } else {
                    for argument in arguments { visit(argument, codeOf: nil) }
                }
            }
        }

        /// The choice question a side of a comparison names, whose codes the other side may spell.
        func choiceSide(_ side: Expression) -> Question? {
            guard case .name(let name, _) = side else { return nil }
            if name.hasPrefix("case."), let found = caseRules.property(named: String(name.dropFirst("case.".count))) {
                // A case property compared with its codes: `case.reason = mood`.
                return Question(
                    position: found.position, id: name, text: LocalizedText(name), type: found.property.type, isRequired: false, help: nil,
                    showIf: nil, line: 0)
            }
            if name == "sex", byId[name] == nil {
                // The patient's sex, compared with its codes: `sex = female`.
                let codes = PatientIdentification.Sex.allCases.map { Choice(code: $0.rawValue, label: LocalizedText($0.rawValue)) }
                return Question(
                    position: PatientIdentification.expressionFields["sex"]!, id: "sex", text: LocalizedText("Sex"),
                    type: .singleChoice(ChoiceSet(choices: codes)), isRequired: false, help: nil, showIf: nil, line: 0)
            }
            guard let question = target(name), question.type.choices != nil else { return nil }
            return question
        }

        // A number or yes/no compared with a choice means its code: `phq_down = 3`, `answer = yes`.
        let written = Self.literalsAsCodes(pending.expression) { side in choiceSide(side)?.type.choices }
        if role == .showIf, let column = written.dayReadingColumn {
            // Exports and the server settle show-if long after the visit: the day would change what was shown.
            return fail(
                column, "show-if cannot read the day (today(), age())",
                "compare with a date question, or compute the value with 'calculate' and show by it")
        }
        visit(written, codeOf: nil)
        if let problem { return fail(problem.column, problem.message, problem.hint) }
        let expression = written.resolved(questions: Set(positions.keys).union(repeatedReads.keys))
        return BoundExpression(expression, positions: positions, repeated: repeatedReads)
    }
}
