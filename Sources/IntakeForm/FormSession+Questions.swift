import Foundation
import IntakeCore

extension FormSession {
    /// Prints the question at `place` with its type, choices, help and current answer.
    func show(_ place: FormPlace) {
        switch place {
        case .patient(let field):
            io.write(
                "\n[P.\(PatientIdentification.Field.allCases.firstIndex(of: field)! + 1)] \(say(.patientField(field)))\(field.isRequired ? " *" : "")"
            )
            io.write("    " + say(.patientHint(field)))
            if let current = response.patient.display(field, say: say) { io.write("    " + say(.currentAnswer(current))) }
        case .question(let position):
            guard let question = questionnaire.question(at: position) else { return }
            if question.type == .note {
                io.write("\n[\(position)\(instanceTag)] " + noteText(question))
                return
            }
            io.write("\n[\(position)\(instanceTag)] \(question.text.text(in: language))\(isRequired(question) ? " *" : "")")
            if question.isRepeat {
                showRepeat(question)
                return
            }
            if question.calculation != nil {
                io.write(
                    "    " + (response[position].map { say(.calculated(display.text(of: $0, for: question.type))) } ?? say(.notCalculated)))
                return
            }
            let offered = offeredType(question)
            io.write("    " + display.hint(for: offered))
            numbered = [:]
            if let set = offered.choices, set.choices.count <= AnswerDisplay.shortListLimit {
                showChoices(set.choices, numbersFrom: set.choices)
            }
            if let help = question.help?.text(in: language), !help.isEmpty { io.write("    " + say(.help(help))) }
            if let current = response[position] {
                io.write("    " + say(.currentAnswer(display.text(of: current, for: question.type))))
            } else if let offered = questionnaire.defaultAnswer(for: question, in: response, today: validator.today) {
                io.write("    " + say(.defaultAnswer(display.text(of: offered, for: question.type))))
            }
        case .end:
            showEnd()
        }
    }

    private func showEnd() {
        let visible = validator.visiblePositions(in: response)
        let missing = questionnaire.allQuestions.filter {
            $0.group == nil && !$0.isRepeat && isRequired($0) && visible.contains($0.position) && response[$0.position] == nil
        }
        io.write("\n" + say(.endOfQuestionnaire(answers: response.answerCount)))
        if !missing.isEmpty {
            io.write(say(.stillRequired(missing.map { "\($0.position)" })))
        }
        io.write(say(.finishPrompt))
    }

    func answerQuestion(at position: QuestionPosition, _ text: String) throws {
        guard let question = questionnaire.question(at: position) else { return }
        if text.isEmpty {
            if response[position] == nil, let offered = questionnaire.defaultAnswer(for: question, in: response, today: validator.today) {
                guard keeps(question, offered) else { return }
                setAnswer(offered, at: position)
                try move(to: next(after: place))
                return
            }
            try acceptEmpty(required: isRequired(question), hasAnswer: response[position] != nil)
            return
        }
        if case .attachment(let kind) = question.type {
            guard let ref = attach(text, as: kind) else { return }
            setAnswer(.attachment(ref), at: position)
            // The same arrow as a choice picked, in the reading direction.
            io.write(say(.chosen(display.text(of: .attachment(ref), for: question.type))))
            try move(to: next(after: place))
            return
        }
        guard let answer = parse(text, as: offeredType(question)), keeps(question, answer) else { return }
        setAnswer(answer, at: position)
        try move(to: next(after: place))
    }

    /// The file at the path typed (quoted, or with `~`, as a terminal pastes a dragged file),
    /// checked by its size and its bytes and kept sealed; nil after saying what is wrong.
    private func attach(_ typed: String, as kind: AttachmentKind) -> AttachmentRef? {
        var path = typed
        if path.count >= 2, let first = path.first, ["'", "\""].contains(first), path.last == first {
            path = String(path.dropFirst().dropLast())
        }
        if !path.hasPrefix("'"), path.contains("\\ ") { path = path.replacingOccurrences(of: "\\ ", with: " ") }
        if path.hasPrefix("file://"), let url = URL(string: path), url.isFileURL { path = url.path }
        path = (path as NSString).expandingTildeInPath
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            io.write(say(.fileNotFound))
            return nil
        }
        guard !isFolder.boolValue, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
            let handle = FileHandle(forReadingAtPath: path)
        else {
            io.write(say(.fileUnreadable))
            return nil
        }
        defer { try? handle.close() }
        // The size first: a film dragged in by mistake is refused before it is read.
        guard size <= kind.maxBytes else {
            io.write(say(.fileTooLarge(kind: kind, size: AttachmentKind.describe(size))))
            return nil
        }
        guard let bytes = try? handle.readToEnd(), !bytes.isEmpty, bytes.count <= kind.maxBytes else {
            io.write(say(.fileUnreadable))
            return nil
        }
        guard let ref = AttachmentRef(bytes: bytes), kind.problem(with: ref) == nil else {
            io.write(say(.fileWrongType(kind: kind)))
            return nil
        }
        guard let keepFile else {
            io.write(say(.fileNotKept("this form keeps no files")))
            return nil
        }
        do {
            try keepFile(ref, bytes)
        } catch {
            io.write(say(.fileNotKept("\(error)")))
            return nil
        }
        return ref
    }

    /// The question's type with only the choices its filter offers for the answers so far (all of
    /// them while the filtering question is unanswered).
    func offeredType(_ question: Question) -> QuestionType {
        questionnaire.offeredType(of: question, in: response)
    }

    /// Sets an answer and computes again the calculated questions that may read it.
    func setAnswer(_ answer: Answer?, at position: QuestionPosition) {
        response[position] = answer
        recalculate()
        response.touch()
    }

    /// Computes every calculated question from the answers as they stand.
    func recalculate() {
        guard !frames.isEmpty else {
            response = questionnaire.calculated(response, today: validator.today)
            return
        }
        unfold(questionnaire.calculated(folded, today: validator.today))
    }

    /// Whether the question must be answered for these answers (`required`, or `required if` holding).
    func isRequired(_ question: Question) -> Bool {
        if question.isRequired { return true }
        guard let requiredIf = question.requiredIf else { return false }
        let hidden = hiddenHere()
        return requiredIf.holds(today: validator.today) { hidden.contains($0) ? nil : response[$0] }
    }

    /// Whether the answer keeps the question's constraint; if not, says the questionnaire's message.
    private func keeps(_ question: Question, _ answer: Answer) -> Bool {
        guard let constraint = question.constraint else { return true }
        let hidden = hiddenHere()
        let read: (QuestionPosition) -> Answer? = { position in
            position == question.position ? answer : hidden.contains(position) ? nil : self.response[position]
        }
        guard let issue = validator.constraintIssue(question, constraint, answer: answer, read: read) else { return true }
        io.write(constraint.message.map { $0.text(in: language) } ?? say(.answerProblem(issue.message)))
        return false
    }

    /// A note's text, with `{id}` replaced by that question's answer as the form shows it.
    func noteText(_ question: Question) -> String {
        var text = question.text.text(in: language)
        for other in questionnaire.allQuestions where other.id != nil && text.contains("{\(other.id!)}") {
            let shown = response[other.position].map { display.text(of: $0, for: other.type) } ?? "—"
            text = text.replacingOccurrences(of: "{\(other.id!)}", with: shown)
        }
        return text
    }

    /// The answer typed, or nil after saying what is wrong with it. A choice found from part of
    /// its name is echoed; when several match, only they are numbered, and a number picks one
    /// (an item of a multiple choice is settled alone; the others keep what they matched).
    private func parse(_ text: String, as type: QuestionType) -> Answer? {
        do {
            let answer = try input.parse(text, as: type, numbered: numbered) { item, matches in
                self.settle(item, among: matches, type: type)
            }
            echo(answer, typed: text, type: type)
            return answer
        } catch {
            switch error {
            case .invalid(let message): io.write(message)
            case .ambiguous, .unsettled: break
            }
            return nil
        }
    }

    /// Numbers `choices` on the screen (from their place in `all`, or by code) and remembers the
    /// numbers, so a number typed next means one of them.
    func showChoices(_ choices: [Choice], numbersFrom all: [Choice]) {
        display.choiceLines(choices, numbersFrom: all).forEach(io.write)
        numbered = display.numbers(choices, numbersFrom: all)
    }

    /// Several choices match `item`: they alone are numbered, and the next line picks one by its
    /// number, or names it better. Nil when the person leaves the pick (Enter, a command, a name
    /// that matches nothing): nothing is answered.
    private func settle(_ item: String, among matches: [Choice], type: QuestionType) -> Choice? {
        guard let set = type.choices else { return nil }
        let shown = Array(matches.prefix(AnswerDisplay.shortListLimit))
        let byCode = AnswerDisplay.isNumbered(byCode: set)
        io.write(say(shown.count == 1 && !byCode ? .didYouMean(item) : .severalMatchPickNumber(item)))
        showChoices(shown, numbersFrom: byCode ? set.choices : shown)
        guard let line = io.readLine(prompt: "> ") else { return nil }
        let picked = TextFold.asciiDigits(line.trimmingCharacters(in: .whitespaces))
        if picked.isEmpty || picked.hasPrefix(":") || ControlCharacters.contained(in: picked) {
            io.write(say(.answerNotChanged))
            return nil
        }
        do {
            return try input.choice(picked, in: set, numbered: numbered)
        } catch {
            switch error {
            case .ambiguous(let again): return settle(picked, among: again, type: type)
            case .invalid(let message): io.write(message)
            case .unsettled: break
            }
            return nil
        }
    }

    /// Says which choice a partial or folded answer picked (`sa` → Saudi Arabia), so nothing is
    /// chosen silently; an answer typed as the choice's code or whole label needs no echo.
    private func echo(_ answer: Answer, typed: String, type: QuestionType) {
        guard let set = type.choices else { return }
        let codes: [String]
        switch answer {
        case .choice(let code): codes = [code]
        case .choices(let picked): codes = picked
        default: return
        }
        let chosen = codes.compactMap { set.choice(code: $0) }
        let exact = chosen.count == 1 && [chosen[0].code, chosen[0].label.base, chosen[0].label.text(in: language)].contains(typed)
        guard !exact, !chosen.isEmpty else { return }
        io.write(say(.chosen(chosen.map { $0.label.text(in: language) }.joined(separator: separator))))
    }

    /// Enter on a question: keep its answer, leave an optional one empty, or explain that it is required.
    private func acceptEmpty(required: Bool, hasAnswer: Bool) throws {
        if hasAnswer || !required {
            try move(to: next(after: place))
        } else {
            io.write(say(.questionRequired))
        }
    }

    /// Asks each field of a compound question in turn. Returns an outcome when input ends or a
    /// command typed at a field ends the form.
    func answerCompound(_ question: Question, fields: [CompoundField]) throws -> Outcome? {
        let existing: [String: Answer]
        if case .dictionary(let parts) = response[question.position] { existing = parts } else { existing = [:] }
        var parts: [String: Answer] = [:]
        var index = 0
        while index < fields.count {
            let field = fields[index]
            let text: String
            do {
                let current = existing[field.key].map { separator + say(.enterKeeps(display.text(of: $0, for: field.type))) } ?? ""
                numbered = [:]
                if let set = field.type.choices, set.choices.count <= AnswerDisplay.shortListLimit {
                    showChoices(set.choices, numbersFrom: set.choices)
                }
                // Right to left, the field's label is a line of its own and the answer is typed
                // below it, as at any question: on one line the answer would come before it.
                var prompt = fieldPrompt(field, current: current)
                if say.isRightToLeft {
                    io.write(String(prompt.dropLast(2)))
                    prompt = "  > "
                }
                guard let line = io.readLine(prompt: prompt) else {
                    if try discardIfBlank() { return .abandoned(inputEnded: true) }
                    try save(draft)
                    return .inputEnded(draft)
                }
                text = line.trimmingCharacters(in: .whitespaces)
            }
            if ControlCharacters.contained(in: text) {
                io.write(say(.controlCharacter))
                continue
            }
            if text.hasPrefix(":") {
                if !parts.isEmpty { io.write(say(.answerNotChanged)) }
                return try perform(text)
            }
            if text.isEmpty {
                // Enter at the first field of an optional question that has no answer skips it,
                // whatever its fields require once it is answered.
                if index == 0, existing.isEmpty, !isRequired(question) {
                    try acceptEmpty(required: false, hasAnswer: false)
                    return nil
                }
                if let kept = existing[field.key] { parts[field.key] = kept }
                if field.isRequired, parts[field.key] == nil {
                    io.write(say(.fieldRequired(field.label.text(in: language))))
                    continue
                }
                index += 1
                continue
            }
            if let answer = parse(text, as: field.type) {
                parts[field.key] = answer
                index += 1
            }
        }
        if parts.isEmpty {
            try acceptEmpty(required: isRequired(question), hasAnswer: false)
            return nil
        }
        setAnswer(.dictionary(parts), at: question.position)
        try move(to: next(after: place))
        return nil
    }

    /// `  Dose (number from 0 to 5000, Enter keeps 500)> `.
    private func fieldPrompt(_ field: CompoundField, current: String) -> String {
        "  \(field.label.text(in: language)) (\(display.hint(for: field.type))\(field.isRequired ? separator + say(.required) : "")\(current))> "
    }

    func answerPatient(_ field: PatientIdentification.Field, _ text: String) throws {
        if text.isEmpty {
            try acceptEmpty(required: field.isRequired, hasAnswer: response.patient.display(field) != nil)
            return
        }
        // A date of birth may be typed in Arabic-Indic digits (١٩٩٠-٠٥-٠١).
        let text = field == .dateOfBirth ? TextFold.asciiDigits(text) : text
        switch PatientInput.parse(text, for: field, today: validator.today, say: say) {
        case .success(let update):
            update(&response.patient)
            // A calculation may read the date of birth or sex.
            recalculate()
            response.touch()
            try move(to: next(after: place))
        case .failure(let problem):
            io.write(problem.message)
        }
    }

    /// Between the parts of a prompt: `, ` or the Arabic comma.
    var separator: String { say.isRightToLeft ? "، " : ", " }
}
