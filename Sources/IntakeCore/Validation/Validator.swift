import Foundation

/// Checks a response against its questionnaire: required answers, types, ranges, known choices,
/// and show-if. The same rules run in the form, in `intake sample` and on the server.
public struct Validator: Sendable {
    public let questionnaire: Questionnaire
    /// The day that `today` in date ranges means.
    public var today: LocalDate

    public static let maxTextLength = 10_000

    public init(questionnaire: Questionnaire, today: LocalDate = .today()) {
        self.questionnaire = questionnaire
        self.today = today
    }

    /// Every issue with the response. Required answers and patient fields are checked only for
    /// complete records; drafts may be partial.
    public func validate(_ response: PatientResponse) -> [ValidationIssue] {
        validateAndClean(response).issues
    }

    /// The issues, and the response with its calculations recomputed and without answers to
    /// hidden or unknown questions or to notes, from one pass over show-if: what the server does
    /// with every record it receives. Calculations that read the day (`today()`, `age()`) keep
    /// the value computed when the record was filled.
    public func validateAndClean(_ response: PatientResponse) -> (issues: [ValidationIssue], cleaned: PatientResponse) {
        guard questionnaire.hasCalculations, response.questionnaire == questionnaire.reference else {
            let hidden = questionnaire.hiddenQuestions(in: response)
            return (validate(response, sheet: nil, hidden: hidden), dropping(response, hidden: hidden))
        }
        // The questions of each repeat's instances are checked as each instance settles.
        var instanceIssues: [ValidationIssue] = []
        let complete = response.status == .complete
        // Without repeats no visitor is made (this runs for every record the server receives).
        let visit: Questionnaire.InstanceVisitor? =
            questionnaire.hasRepeats
            ? { group, path, scoped, hidden in
                // Members read in place, by ordinal: a copy of a Question retains each of its parts.
                let questions = questionnaire.allQuestions
                // The instance as it was sent, for a top-level repeat: calculations it recomputed are said.
                var sent: [Int: Answer]?
                if questions[group].group == nil, path.count == 1, case .instances(let list)? = response[questions[group].position],
                    list.indices.contains(path[0] - 1)
                {
                    sent = list[path[0] - 1]
                }
                // One reader for the instance's questions (see ShownAnswers).
                let read = ShownAnswers(scoped, hidden: hidden).answer
                for ordinal in questionnaire.repeatMembers[questions[group].position] ?? [] {
                    let position = questions[ordinal].position
                    for var issue in self.issues(
                        of: questions[ordinal], answer: scoped.answers[ordinal], read: read, hidden: hidden, complete: complete)
                    {
                        issue.instance = path
                        instanceIssues.append(issue)
                    }
                    if let sent, let calculation = questions[ordinal].calculation, !calculation.usesToday,
                        !hidden.contains(ordinal: ordinal),
                        scoped.answers[ordinal] != sent[position.index]
                    {
                        var issue = ValidationIssue(
                            .recalculated, questions[ordinal], severity: .warning,
                            "the calculated value did not match its calculation (\(calculation)) and is recomputed")
                        issue.instance = path
                        instanceIssues.append(issue)
                    }
                }
            } : nil
        let (settled, sheet, hidden) = questionnaire.settledSheet(response, today: today, recomputingToday: false, visit: visit)
        var issues = validate(settled, sheet: sheet, hidden: hidden) + instanceIssues
        // By ordinal, the questions read in place (a loop over them copies each).
        let questions = questionnaire.allQuestions
        if questionnaire.hasRepeats {
            for ordinal in questions.indices where questions[ordinal].isRepeat && questions[ordinal].group == nil {
                if case .instances(let list)? = response[questions[ordinal].position] {
                    issues += strayAnswers(in: list, of: questions[ordinal], path: [])
                }
            }
        }
        for ordinal in questions.indices where questions[ordinal].calculation != nil && !hidden.contains(ordinal: ordinal) {
            if sheet.answers[ordinal] != response[questions[ordinal].position] {
                issues.append(
                    ValidationIssue(
                        .recalculated, questions[ordinal], severity: .warning,
                        "the calculated value did not match its calculation (\(questions[ordinal].calculation!)) and is recomputed"))
            }
        }
        return (issues, dropping(settled, hidden: hidden))
    }

    /// - Parameter sheet: the record's answers by ordinal, when settling laid them out already.
    private func validate(_ response: PatientResponse, sheet: AnswerSheet?, hidden: HiddenQuestions) -> [ValidationIssue] {
        guard response.questionnaire == questionnaire.reference else {
            return [
                ValidationIssue(
                    kind: .wrongQuestionnaire,
                    message: "the record answers \(response.questionnaire), not \(questionnaire.reference); validate it with that version")
            ]
        }
        let complete = response.status == .complete
        let sheet = sheet ?? AnswerSheet(response, for: questionnaire)
        let read = ShownAnswers(sheet, hidden: hidden).answer
        var issues = response.status == .complete ? patientIssues(response.patient) : []
        issues += caseIssues(response)
        // Whatever the status: a draft's names are shown on terminals too.
        for field in response.patient.fieldsWithControls {
            issues.append(
                ValidationIssue(
                    kind: .invalidValue, field: field.rawValue,
                    message: "the \(field.label.lowercased()) is refused: \(ControlCharacters.problem)"))
        }
        let answered = response.answerCount
        var known = 0
        for check in questionnaire.checks where sheet.answers[check.ordinal] != nil { known += 1 }
        if known < answered {
            for (position, _) in response.allAnswers where questionnaire.question(at: position) == nil {
                issues.append(
                    ValidationIssue(
                        kind: .unknownQuestion, position: position,
                        message: "there is no question \(position) in \(questionnaire.reference); remove the answer"))
            }
        }
        // Each step read in place: a copy of one retains its type's and condition's parts.
        let checks = questionnaire.checks
        for ordinal in checks.indices {
            let answer = sheet.answers[ordinal]
            if checks[ordinal].inRepeat {
                if answer != nil {
                    issues.append(
                        ValidationIssue(
                            .unknownQuestion, questionnaire.allQuestions[ordinal], severity: .warning,
                            "answered outside its repeat (its answers belong in the repeat's instances); the answer is dropped"))
                }
                continue
            }
            if checks[ordinal].hasRules, let problem = ruleIssue(questionnaire.allQuestions[ordinal], answer, read, hidden, complete) {
                issues.append(problem)
                continue
            }
            if hidden.contains(ordinal: ordinal) {
                if answer != nil {
                    issues.append(
                        ValidationIssue(
                            .hiddenAnswer, questionnaire.allQuestions[ordinal], severity: .warning,
                            "answered, but hidden by its show-if condition; the answer is dropped"))
                }
            } else if let answer {
                let problems = check(answer, type: checks[ordinal].type)
                if !problems.isEmpty { issues += check(answer, for: questionnaire.allQuestions[ordinal]) }
            } else if complete, checks[ordinal].isRequired {
                issues.append(
                    ValidationIssue(.missingRequired, questionnaire.allQuestions[ordinal], "a required question has no answer"))
            }
        }
        return issues
    }

    /// The issues with one question's answer as the loop above finds them, for a question asked in
    /// a repeat's instance (`read` gives the answers as the instance reads them, hidden ones as none).
    private func issues(
        of question: Question, answer: Answer?, read: (QuestionPosition) -> Answer?, hidden: HiddenQuestions, complete: Bool
    ) -> [ValidationIssue] {
        if let problem = ruleIssue(question, answer, read, hidden, complete) { return [problem] }
        if hidden.contains(question.position) {
            return answer == nil
                ? []
                : [
                    ValidationIssue(
                        .hiddenAnswer, question, severity: .warning, "answered, but hidden by its show-if condition; the answer is dropped")
                ]
        }
        if let answer { return check(answer, for: question) }
        return complete && question.isRequired ? [ValidationIssue(.missingRequired, question, "a required question has no answer")] : []
    }

    /// Answers in a repeat's instances to questions that are not asked in it (which settling
    /// would drop): refused, so no answer is lost without a word.
    private func strayAnswers(in list: [[Int: Answer]], of group: Question, path: [Int]) -> [ValidationIssue] {
        let questions = questionnaire.allQuestions
        let members = questionnaire.repeatMembers[group.position] ?? []
        func member(_ index: Int) -> Int? { members.first { questions[$0].position.index == index } }
        var issues: [ValidationIssue] = []
        for (number, instance) in zip(1..., list) {
            // Nearly every instance answers only its members and holds no repeat: nothing to say, nothing to sort.
            if instance.keys.allSatisfy({ index in member(index).map { !questions[$0].isRepeat } ?? false }) { continue }
            for (index, answer) in instance.sorted(by: { $0.key < $1.key }) {
                guard let member = member(index) else {
                    var issue = ValidationIssue(
                        .unknownQuestion, group,
                        "an instance answers question \(group.position.section).\(index), which is not asked in this repeat; remove the answer"
                    )
                    issue.instance = path + [number]
                    issues.append(issue)
                    continue
                }
                if questions[member].isRepeat, case .instances(let inner) = answer {
                    issues += strayAnswers(in: inner, of: questions[member], path: path + [number])
                }
            }
        }
        return issues
    }

    /// What a repeat's answer breaks: fewer or more instances than it allows or its `count` says,
    /// answers to questions that are not asked in it.
    private func repeatIssue(_ question: Question, _ list: [[Int: Answer]], _ read: (QuestionPosition) -> Answer?, _ complete: Bool)
        -> ValidationIssue?
    {
        guard case .repeatGroup(let bounds) = question.type else { return nil }
        if let upper = bounds.upper, list.count > upper {
            return ValidationIssue(.outOfRange, question, "the repeat has \(list.count) instances, more than its maximum \(upper)")
        }
        guard complete else { return nil }
        if let count = question.repeatCount, let expected = RepeatLimits.instances(for: count.value(today: today, answer: read)) {
            if list.count != expected {
                return ValidationIssue(
                    .invalidValue, question, "the repeat has \(list.count) instances where its count (\(count)) says \(expected)")
            }
        }
        if let lower = bounds.lower, list.count < lower {
            return ValidationIssue(.outOfRange, question, "the repeat has \(list.count) instances, fewer than its minimum \(lower)")
        }
        if question.isRequired, list.isEmpty {
            return ValidationIssue(.missingRequired, question, "a required repeat has no instance")
        }
        return nil
    }

    /// What a question's rules say of its answer: a note answered, a constraint or pattern broken,
    /// a `required if` or a required calculation without an answer. Nil lets the usual checks run.
    /// `read` gives the answers the question's rules read (nil for hidden ones), a
    /// ``ShownAnswers``'s.
    private func ruleIssue(
        _ question: Question, _ answer: Answer?, _ read: (QuestionPosition) -> Answer?, _ hidden: HiddenQuestions, _ complete: Bool
    ) -> ValidationIssue? {
        guard !hidden.contains(question.position) else { return nil }
        if question.isRepeat {
            if let answer, case .instances(let list) = answer {
                return repeatIssue(question, list, read, complete)
            }
            if let answer { return check(answer, for: question).first }
            return repeatIssue(question, [], read, complete)
        }
        if !question.takesAnswer {
            return answer == nil
                ? nil : ValidationIssue(.unknownQuestion, question, severity: .warning, "a note takes no answer; the answer is dropped")
        }
        guard let answer else {
            guard complete else { return nil }
            if let requiredIf = question.requiredIf, requiredIf.holds(today: today, answer: read) {
                return ValidationIssue(.missingRequired, question, "the question is required here (\(requiredIf)) and has no answer")
            }
            if question.calculation != nil, question.isRequired {
                return ValidationIssue(
                    .missingRequired, question, "a required calculation has no value; answer the questions it reads")
            }
            return nil
        }
        guard check(answer, type: question.type).isEmpty else { return nil }
        if let filter = question.choiceFilter, let set = question.type.choices, case .choice(let parent)? = read(filter) {
            let codes: [String]
            switch answer {
            case .choice(let code): codes = [code]
            case .choices(let picked): codes = picked
            default: codes = []
            }
            if codes.contains(where: { set.choice(code: $0)?.filter != parent }) {
                let parentKey = questionnaire.question(at: filter)?.key ?? filter.description
                return ValidationIssue(
                    .unknownChoice, question, "the answer is not one of the choices offered for the answer to '\(parentKey)'")
            }
        }
        guard let constraint = question.constraint else { return nil }
        let own = question.position
        return constraintIssue(question, constraint, answer: answer) { position in position == own ? answer : read(position) }
    }

    /// Why `answer` breaks the question's constraint or pattern, or nil when it keeps them. A
    /// constraint is checked only when every other answer it reads is given.
    public func constraintIssue(_ question: Question, _ constraint: AnswerConstraint, answer: Answer, read: (QuestionPosition) -> Answer?)
        -> ValidationIssue?
    {
        if case .text(let text) = answer, !constraint.matches(text) {
            return ValidationIssue(.invalidValue, question, constraint.message?.base ?? "the answer does not have the expected form")
        }
        if let expression = constraint.expression, expression.readsOnlyAnswered(read), !expression.holds(today: today, answer: read) {
            return ValidationIssue(.invalidValue, question, constraint.message?.base ?? "the answer breaks the rule \(expression)")
        }
        return nil
    }

    /// The questions shown for these answers: those without a condition and those whose
    /// condition holds, where hidden questions count as unanswered.
    public func visiblePositions(in response: PatientResponse) -> Set<QuestionPosition> {
        questionnaire.visiblePositions(in: response)
    }

    /// The response without answers to hidden or unknown questions.
    public func droppingHiddenAnswers(_ response: PatientResponse) -> PatientResponse {
        guard questionnaire.hasRepeats, response.questionnaire == questionnaire.reference else {
            return dropping(response, hidden: questionnaire.hiddenQuestions(in: response))
        }
        // Inside instances too.
        let (settled, hidden) = questionnaire.settled(response, today: today, recomputingToday: false)
        return dropping(settled, hidden: hidden)
    }

    private func dropping(_ response: PatientResponse, hidden: HiddenQuestions) -> PatientResponse {
        var cleaned = response
        // By ordinal: `question(at:)` would copy the section and the question for every answer.
        let checks = questionnaire.checks
        for (section, byIndex) in response.answers {
            for index in byIndex.keys {
                let position = QuestionPosition(section: section, index: index)
                guard let ordinal = questionnaire.ordinal(of: position) else {
                    cleaned[position] = nil
                    continue
                }
                if hidden.contains(position) || checks[ordinal].inRepeat { cleaned[position] = nil }
                if case .note = checks[ordinal].type { cleaned[position] = nil }
            }
        }
        return cleaned
    }

    /// Problems with one answer to one question.
    public func check(_ answer: Answer, for question: Question) -> [ValidationIssue] {
        check(answer, type: question.type).map { problem in
            ValidationIssue(problem.kind, question, field: problem.field, problem.message)
        }
    }

    /// Why an answer does not fit a question type (a compound field's type, say), or nil when it fits.
    public func problem(with answer: Answer, type: QuestionType) -> String? {
        answerProblem(with: answer, type: type)?.text
    }

    /// The first reason an answer does not fit a question type, with what a form needs to say
    /// it in another language, or nil when it fits.
    public func answerProblem(with answer: Answer, type: QuestionType) -> Problem? {
        check(answer, type: type).first
    }

    public struct Problem: Sendable {
        public var kind: ValidationIssue.Kind
        /// A compound question's field.
        public var field: String?
        public var message: String
        /// For an answer out of range: whether it is below the minimum (or above the maximum), and that limit.
        public var bound: (below: Bool, limit: String)?

        /// The message, after its field when it has one.
        public var text: String { field.map { "\($0): \(message)" } ?? message }
    }

    func check(_ answer: Answer, type: QuestionType, field: String? = nil) -> [Problem] {
        func problem(_ kind: ValidationIssue.Kind, _ message: String) -> [Problem] {
            [Problem(kind: kind, field: field, message: message)]
        }
        switch (type, answer) {
        case (.text, .text(let text)):
            if !text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) { return problem(.invalidValue, "the text is blank") }
            if ControlCharacters.contained(in: text) { return problem(.invalidValue, "the text is refused: " + ControlCharacters.problem) }
            if text.utf8.count > Self.maxTextLength, text.count > Self.maxTextLength {
                return problem(.invalidValue, "the text is longer than \(Self.maxTextLength) characters")
            }
            return []
        case (.yesNo, .yesNo): return []
        case (.singleChoice(let set), .choice(let code)):
            return set.contains(code: code) ? [] : problem(.unknownChoice, "the answer is not one of the question's choices")
        case (.multipleChoice(let set), .choices(let codes)):
            if codes.isEmpty { return problem(.invalidValue, "no choice is selected; leave the question unanswered instead") }
            if Set(codes).count != codes.count { return problem(.invalidValue, "a choice is selected twice") }
            if codes.count > 1, let alone = codes.first(where: ChoiceSet.exclusiveCodes.contains), let choice = set.choice(code: alone) {
                return problem(.invalidValue, "'\(choice.label.base)' is an answer on its own; choose it alone, or leave it out")
            }
            return codes.allSatisfy { set.contains(code: $0) }
                ? [] : problem(.unknownChoice, "an answer is not one of the question's choices")
        case (.integer(let bounds), .integer(let value)):
            return range(value, bounds, field: field, describe: String.init)
        case (.decimal(let bounds), .decimal(let value)):
            if !value.isFinite { return problem(.invalidValue, "the number is not finite") }
            return range(value, bounds, field: field, describe: { "\($0)" })
        case (.date(let bounds), .date(let value)):
            let resolved = ClosedBounds(lower: bounds.lower?.resolved(today: today), upper: bounds.upper?.resolved(today: today))
            return range(value, resolved, field: field, describe: { bound in bound == today ? "today (\(bound))" : bound.description })
        case (.compound(let fields), .dictionary(let parts)):
            return checkCompound(parts, fields: fields)
        case (.geopoint, .geopoint(let point)):
            return point.problem.map { problem(.invalidValue, $0) } ?? []
        case (.attachment(let kind), .attachment(let ref)):
            return kind.problem(with: ref).map { problem(.invalidValue, $0) } ?? []
        case (.repeatGroup(let bounds), .instances(let list)):
            if let upper = bounds.upper, list.count > upper {
                return problem(.outOfRange, "the repeat has \(list.count) instances, more than its maximum \(upper)")
            }
            return []
        default:
            return problem(.wrongType, "expected a \(type.keyword) answer, got \(answer.kind)")
        }
    }

    private func checkCompound(_ parts: [String: Answer], fields: [CompoundField]) -> [Problem] {
        if parts.isEmpty {
            return [Problem(kind: .invalidValue, message: "no field is filled in; leave the question unanswered instead")]
        }
        var problems: [Problem] = []
        for key in parts.keys.sorted() where !fields.contains(where: { $0.key == key }) {
            problems.append(Problem(kind: .unknownQuestion, field: key, message: "the question has no field '\(key)'"))
        }
        for field in fields {
            if let part = parts[field.key] {
                problems += check(part, type: field.type, field: field.key)
            } else if field.isRequired {
                problems.append(Problem(kind: .missingRequired, field: field.key, message: "the required field '\(field.key)' is missing"))
            }
        }
        return problems
    }

    private func range<T: Comparable>(_ value: T, _ bounds: ClosedBounds<T>, field: String?, describe: (T) -> String) -> [Problem] {
        if let lower = bounds.lower, value < lower {
            let limit = describe(lower)
            return [Problem(kind: .outOfRange, field: field, message: "the answer is below the minimum \(limit)", bound: (true, limit))]
        }
        if let upper = bounds.upper, value > upper {
            let limit = describe(upper)
            return [Problem(kind: .outOfRange, field: field, message: "the answer is above the maximum \(limit)", bound: (false, limit))]
        }
        return []
    }

    private func patientIssues(_ patient: PatientIdentification) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        func add(_ field: PatientIdentification.Field, _ message: String) {
            issues.append(ValidationIssue(kind: .missingIdentification, field: field.rawValue, message: message))
        }
        if patient.givenName.trimmingSpaces().isEmpty { add(.givenName, "the given name is missing") }
        if patient.familyName.trimmingSpaces().isEmpty { add(.familyName, "the family name is missing") }
        if patient.sex == nil { add(.sex, "sex is missing; use 'unknown' when it was not given") }
        if let birth = patient.dateOfBirth, birth > today || birth.year < 1900 {
            issues.append(
                ValidationIssue(
                    kind: .outOfRange, field: PatientIdentification.Field.dateOfBirth.rawValue,
                    message: "the date of birth must be between 1900-01-01 and today"))
        }
        return issues
    }
}

extension [ValidationIssue] {
    /// Issues that stop a record from being completed.
    public var errors: [ValidationIssue] { filter { $0.severity == .error } }
}

/// A record's answers as rules read them, hidden ones as unanswered. A class, so its `answer`
/// borrows the answers: a closure that captures them copies them (a retain, and a release
/// after) at every answer read, which was a third of the check's rules.
final class ShownAnswers {
    let sheet: AnswerSheet
    let hidden: HiddenQuestions

    init(_ sheet: AnswerSheet, hidden: HiddenQuestions) {
        self.sheet = sheet
        self.hidden = hidden
    }

    func answer(_ position: QuestionPosition) -> Answer? { hidden.contains(position) ? nil : sheet[position] }
}

extension Validator {
    /// A record names a case only when its questionnaire follows that case's list, with the
    /// properties it reads in their types; a complete follow-up names one.
    private func caseIssues(_ response: PatientResponse) -> [ValidationIssue] {
        let follows = questionnaire.cases.follows
        guard let link = response.caseLink else {
            guard let follows, response.status == .complete else { return [] }
            return [
                ValidationIssue(
                    kind: .missingRequired, field: "case",
                    message:
                        "\(questionnaire.id) is filled for a case of the list '\(follows.list)', and the record names none; pick the case (intake fill --case ID)"
                )
            ]
        }
        guard let follows else {
            return [
                ValidationIssue(
                    kind: .invalidValue, field: "case",
                    message: "the record names a case, and \(questionnaire.id) is filled for no case list; remove 'case'")
            ]
        }
        guard link.list == follows.list else {
            return [
                ValidationIssue(
                    kind: .invalidValue, field: "case",
                    message: "the record's case is of the list '\(link.list)', and \(questionnaire.id) follows '\(follows.list)'")
            ]
        }
        var issues: [ValidationIssue] = []
        for index in link.properties.keys.sorted() {
            guard follows.properties.indices.contains(index - 1) else {
                issues.append(
                    ValidationIssue(
                        kind: .unknownQuestion, field: "case",
                        message:
                            "the case's property \(index) is not one \(questionnaire.id) reads (it reads \(follows.properties.count)); remove it"
                    ))
                continue
            }
            let property = follows.properties[index - 1]
            let value = link.properties[index]!
            if Answer(ExpressionValue(value), for: property.type) != value {
                issues.append(
                    ValidationIssue(
                        kind: .wrongType, field: "case",
                        message: "the case's property '\(property.name)' is not a possible \(property.type.keyword) value"))
            }
        }
        return issues
    }
}
