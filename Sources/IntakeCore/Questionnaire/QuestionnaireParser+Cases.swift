import Foundation

extension QuestionnaireParser {
    /// A `cases.txt` expression not yet checked against the questions.
    struct PendingCaseExpression {
        enum Slot {
            /// `if:` of the opening at this place in ``CaseRules/opens``.
            case openIf(Int)
            /// `set:` of the followed case (nil) or of an opening.
            case set(opening: Int?, property: String)
            case due(opening: Int?)
            case closeIf
        }

        var slot: Slot
        var expression: Expression
        var line: Int
        var column: Int
    }

    static let caseKeys = ["follows", "opens", "property", "if", "set", "due", "close if", "assign"]

    /// Reads `cases.txt`, when the folder has one: the lists, properties and assignments, with
    /// their expressions left to ``resolveCaseExpressions(in:)`` once every question is known.
    func parseCases() {
        guard let file = files.files[CaseRules.fileName] else { return }
        let text = textFile(file)
        let path = file.path
        /// The block the lines belong to: the followed case (nil) or an opening.
        var block: Int?? = .none
        var seenInBlock: Set<String> = []
        var setInBlock: Set<String> = []
        var followsLine = 0
        for line in text.lines {
            let trimmed = line.text.trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let leading = line.text.prefix { $0 == " " || $0 == "\t" }.count
            guard let colon = trimmed.firstIndex(of: ":") else {
                report(
                    path, line.number, leading + 1, "expected 'key: value'",
                    hint: "lines of cases.txt are like 'follows: follow-up', 'set: phq2 = phq2_score' or 'close if: outcome = resolved'")
                continue
            }
            let key = trimmed[..<colon].trimmingSpaces().lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" })
                .joined(separator: " ")
            let afterColon = trimmed[trimmed.index(after: colon)...]
            let value = afterColon.trimmingSpaces()
            let valueColumn =
                leading + trimmed.distance(from: trimmed.startIndex, to: colon) + 2
                + (afterColon.count - afterColon.drop { $0 == " " || $0 == "\t" }.count)
            func fail(_ message: String, _ hint: String? = nil, column: Int? = nil) {
                report(path, line.number, column ?? leading + 1, message, hint: hint)
            }
            guard Self.caseKeys.contains(key) else {
                let hint = Suggestion.nearest(to: key, in: Self.caseKeys).map { "did you mean '\($0)'?" }
                fail("unknown cases.txt key '\(key)'", hint ?? "the keys are \(Self.caseKeys.joined(separator: ", "))")
                continue
            }
            guard !value.isEmpty else {
                fail("'\(key)' needs a value", "see docs/questionnaire-format.md#cases", column: valueColumn)
                continue
            }
            if key == "follows" || key == "opens" {
                guard CaseListName.isValid(value) else {
                    // The block's lines are not read against another block's.
                    block = .some(-1)
                    fail(
                        "'\(value)' is not a case list's name",
                        "a list's name is lowercase letters, digits, '-' and '_', starting with a letter: 'follow-up'",
                        column: valueColumn)
                    continue
                }
                seenInBlock = []
                setInBlock = []
                if key == "follows" {
                    if caseRules.follows != nil {
                        fail(
                            "the questionnaire already follows '\(caseRules.follows!.list)' (line \(followsLine))",
                            "a questionnaire is filled for a case of one list; open cases of others with 'opens:'")
                        block = .some(-1)
                        continue
                    }
                    caseRules.follows = CaseRules.Follow(list: value)
                    followsLine = line.number
                    block = .some(nil)
                } else {
                    guard caseRules.opens.count < CaseRules.maxOpenings else {
                        block = .some(-1)
                        fail(
                            "a questionnaire opens at most \(CaseRules.maxOpenings) kinds of case",
                            "open fewer; a case's properties say more than a case per condition")
                        continue
                    }
                    caseRules.opens.append(CaseRules.Opening(list: value))
                    block = .some(caseRules.opens.count - 1)
                }
                continue
            }
            if case .some(.some(-1)) = block { continue }
            guard case .some(let current) = block else {
                fail(
                    "'\(key)' comes before any 'follows:' or 'opens:'",
                    "begin with 'follows: list' (the questionnaire is filled for a case of the list) or 'opens: list'")
                continue
            }
            let once = ["if", "due", "close if", "assign"]
            if once.contains(key), !seenInBlock.insert(key).inserted {
                fail("'\(key)' is given twice for this case", "keep one; join conditions with 'and' or 'or'")
                continue
            }
            switch key {
            case "property":
                guard current == nil else {
                    fail(
                        "'property' declares what a follow-up reads of its case, and this line belongs to 'opens:'",
                        "move it under 'follows:'; an opened case's properties are given with 'set:'")
                    continue
                }
                parseCaseProperty(value, path: path, line: line.number, column: valueColumn)
            case "if":
                guard let opening = current else {
                    fail(
                        "'if' says when a case is opened, and this line belongs to 'follows:'",
                        "to close the followed case, write 'close if:'")
                    continue
                }
                pendingCase(.openIf(opening), value, line.number, valueColumn)
            case "close if":
                guard current == nil else {
                    fail(
                        "'close if' closes the case the questionnaire follows, and this line belongs to 'opens:'",
                        "move it under 'follows:'")
                    continue
                }
                pendingCase(.closeIf, value, line.number, valueColumn)
            case "due":
                pendingCase(.due(opening: current), value, line.number, valueColumn)
            case "assign":
                guard let opening = current else {
                    fail(
                        "'assign' says who an opened case goes to, and this line belongs to 'follows:'",
                        "the followed case keeps its assignment")
                    continue
                }
                guard let assignment = CaseAssignment(rawValue: value.lowercased()) else {
                    fail(
                        "'\(value)' is not who a case goes to",
                        "write 'assign: collector' (who sent the record) or 'assign: team' (the coordinators assign it)",
                        column: valueColumn)
                    continue
                }
                caseRules.opens[opening].assignment = assignment
            default:  // set
                guard let equals = value.firstIndex(of: "=") else {
                    fail("'set' needs 'property = expression'", "for example 'set: phq2 = phq2_score'", column: valueColumn)
                    continue
                }
                let name = value[..<equals].trimmingSpaces()
                guard CaseListName.isPropertyName(name), !CaseRules.reservedPropertyNames.contains(name) else {
                    fail(
                        "'\(name)' is not a property name",
                        CaseRules.reservedPropertyNames.contains(name)
                            ? "'\(name)' is the case's own ('close if:' and 'due:' set it): name the property otherwise"
                            : "a property's name is letters, digits and '_', starting with a letter: 'last_visit'",
                        column: valueColumn)
                    continue
                }
                guard setInBlock.insert(name).inserted else {
                    fail("the property '\(name)' is set twice for this case", "keep one 'set: \(name) = …'", column: valueColumn)
                    continue
                }
                let rest = value[value.index(after: equals)...]
                let expressionText = rest.trimmingSpaces()
                guard !expressionText.isEmpty else {
                    fail("'set: \(name) =' needs an expression after '='", "for example 'set: \(name) = visit_date'", column: valueColumn)
                    continue
                }
                let column =
                    valueColumn + value.distance(from: value.startIndex, to: equals) + 1
                    + (rest.count - rest.drop { $0 == " " || $0 == "\t" }.count)
                pendingCase(.set(opening: current, property: name), expressionText, line.number, column)
            }
        }
    }

    /// `property: name type [| identifying]`.
    private func parseCaseProperty(_ value: String, path: String, line: Int, column: Int) {
        var parts = value.components(separatedBy: "|").map { $0.trimmingSpaces() }
        var identifying = false
        if parts.count > 1, parts.last?.lowercased() == "identifying" {
            identifying = true
            parts.removeLast()
        }
        guard parts.count == 1 else {
            report(
                path, line, column, "a property is 'name type', with at most '| identifying' after it",
                hint: "for example 'property: edd date' or 'property: phone text | identifying'")
            return
        }
        let spec = parts[0]
        let name = String(spec.prefix { !$0.isWhitespace })
        guard CaseListName.isPropertyName(name), !CaseRules.reservedPropertyNames.contains(name) else {
            report(
                path, line, column, "'\(name)' is not a property name",
                hint: CaseRules.reservedPropertyNames.contains(name)
                    ? "'\(name)' is the case's own ('close if:' and 'due:' set it): name the property otherwise"
                    : "a property's name is letters, digits and '_', starting with a letter: 'last_visit'")
            return
        }
        guard caseRules.follows?.properties.contains(where: { $0.name == name }) != true else {
            report(path, line, column, "the property '\(name)' is declared twice", hint: "keep one 'property: \(name) …'")
            return
        }
        let typeText = spec.dropFirst(name.count).trimmingSpaces()
        let typeColumn = column + spec.count - spec.dropFirst(name.count).drop { $0.isWhitespace }.count
        guard !typeText.isEmpty else {
            report(
                path, line, column, "the property '\(name)' has no type",
                hint: "give one of text, yesno, integer, decimal, date, single, multiple: 'property: \(name) date'")
            return
        }
        let keyword = String(typeText.lowercased().prefix { $0.isLetter })
        guard !["compound", "note", "geopoint", "repeat", "photo", "audio", "document", "signature"].contains(keyword) else {
            report(
                path, line, typeColumn, "a case property cannot be a \(keyword)",
                hint: "a property holds text, yesno, integer, decimal, date, single or multiple")
            return
        }
        let type: QuestionType
        do {
            let parsed = try Annotation.parseType(typeText, column: typeColumn, allowCompound: false)
            guard let resolved = resolve(parsed, path: path, line: line, column: typeColumn) else { return }
            type = resolved
        } catch {
            report(path, line, error.column, error.message, hint: error.hint)
            return
        }
        switch type {
        case .text, .yesNo, .integer, .decimal, .date, .singleChoice, .multipleChoice: break
        default:
            report(
                path, line, typeColumn, "a case property cannot be a \(type.keyword)",
                hint: "a property holds text, yesno, integer, decimal, date, single or multiple")
            return
        }
        caseRules.follows?.properties.append(CaseRules.Property(name: name, type: type, isIdentifying: identifying))
    }

    private func pendingCase(_ slot: PendingCaseExpression.Slot, _ text: String, _ line: Int, _ column: Int) {
        do {
            let expression = try Expression.parse(text, startColumn: column)
            pendingCaseExpressions.append(PendingCaseExpression(slot: slot, expression: expression, line: line, column: column))
        } catch {
            report(files.files[CaseRules.fileName]!.path, line, error.column, error.message, hint: error.hint)
        }
    }

    /// Whether `expression` may give a date: not a plain number, text or yes/no, nor a question
    /// of another type read alone (what else it gives is known only when it is computed).
    static func mayBeDate(_ expression: Expression, byId: [String: Question]) -> Bool {
        switch expression {
        case .number, .text, .bool, .compare, .answered, .and, .or, .not: return false
        case .name(let id, _):
            guard let question = byId[id] else { return true }
            if case .date = question.type { return true }
            return false
        default: return true
        }
    }

    /// Checks `cases.txt`'s expressions against the questions, as an alert's are: any question
    /// (a record is complete when they are read), a repeat's by `sum()` and `count()`, and the
    /// followed case's properties as `case.name`. `today()` is the day the record was made
    /// (``CaseEffects``), never the day the server reads it.
    func resolveCaseExpressions(in sections: [Section]) {
        guard let file = files.files[CaseRules.fileName] else { return }
        var byId: [String: Question] = [:]
        for question in sections.flatMap(\.questions) { if let id = question.id, byId[id] == nil { byId[id] = question } }
        let own = Question(
            position: QuestionPosition(section: Int.max, index: 0), id: nil, text: LocalizedText("cases.txt"), type: .text,
            isRequired: false, help: nil, showIf: nil, line: 0)
        for pending in pendingCaseExpressions {
            let role = ExpressionRole.caseRule
            let wrapped = PendingExpression(
                role: role, expression: pending.expression, position: own.position, path: file.path, line: pending.line,
                column: pending.column)
            guard let bound = bind(wrapped, own: own, byId: byId) else { continue }
            switch pending.slot {
            case .openIf(let opening): caseRules.opens[opening].condition = bound
            case .closeIf: caseRules.follows?.closeIf = bound
            case .due(let opening):
                if !Self.mayBeDate(bound.expression, byId: byId) {
                    report(
                        file.path, pending.line, pending.column, "'due' is a date, and \(bound) is not one",
                        hint: "give a date question, or a date and days: 'due: visit_date + 28', 'due: today() + 14'")
                    continue
                }
                if let opening { caseRules.opens[opening].due = bound } else { caseRules.follows?.due = bound }
            case .set(let opening, let property):
                if opening == nil, let declared = caseRules.property(named: property)?.property,
                    bound.positions.isEmpty, case let value = bound.value(answer: { _ in nil }), value != .missing,
                    Answer(value, for: declared.type) == nil
                {
                    report(
                        file.path, pending.line, pending.column,
                        "\(bound) is not a possible value of '\(property)', a \(declared.type.keyword) property",
                        hint: "give a value of the property's type")
                    continue
                }
                let assignment = CaseRules.Assignment(property: property, value: bound)
                if let opening {
                    caseRules.opens[opening].assignments.append(assignment)
                } else {
                    caseRules.follows?.assignments.append(assignment)
                }
            }
        }
    }
}
