import IntakeCore

extension FormSession {
    /// Carries out a `:command`; returns an outcome when it ends the form.
    func perform(_ text: String) throws -> Outcome? {
        let command: FormCommand
        do {
            command = try FormCommand.parse(text)
        } catch .unknown(let name, let suggestion) {
            io.write("Unknown command ':\(name)'." + (suggestion.map { " Did you mean :\($0)?" } ?? "") + " Type :help for the list.")
            return nil
        } catch {
            io.write("Go where? Type :go 2 for section 2, :go 2.5 for its fifth question, or :go patient.")
            return nil
        }
        switch command {
        case .help: io.write(FormCommand.helpText)
        case .back:
            if let previous = previous(before: place) { try move(to: previous) } else { io.write("This is the first question.") }
        case .skip: try move(to: next(after: place))
        case .nextSection: try move(to: firstPlace(afterSection: section(of: place)))
        case .review: review()
        case .clear: try clear()
        case .list: listChoices()
        case .go(let target): try go(to: target)
        case .finish: return try finish()
        case .quit:
            if try discardIfBlank() {
                io.write("Nothing was typed; no draft was kept.")
                return .abandoned(inputEnded: false)
            }
            try persist()
            if unsaved {
                io.write("The draft cannot be saved yet, so the form stays open: free some disk space, then type :quit again.")
                return nil
            }
            io.write("Draft saved. Resume it with: intake fill --resume \(response.id.uuidString.lowercased().prefix(8))")
            return .quit(draft)
        }
        return nil
    }

    private func firstPlace(afterSection section: Int) -> FormPlace {
        for number in stride(from: section + 1, through: questionnaire.sections.count, by: 1) {
            if let place = firstShown(inSection: number) { return place }
        }
        return .end
    }

    private func go(to target: FormCommand.Target) throws {
        switch target {
        case .patient:
            try move(to: .patient(.givenName))
        case .section(let number):
            guard questionnaire.section(number) != nil else {
                io.write("There is no section \(number); sections are 1 to \(questionnaire.sections.count).")
                return
            }
            guard let first = firstShown(inSection: number) else {
                io.write("Every question in section \(number) is hidden by earlier answers.")
                return
            }
            try move(to: first)
        case .question(let section, let index):
            let position = QuestionPosition(section: section, index: index)
            guard questionnaire.question(at: position) != nil else {
                io.write("There is no question \(position).")
                return
            }
            guard validator.visiblePositions(in: response).contains(position) else {
                io.write("Question \(position) is hidden by earlier answers (its show-if condition).")
                return
            }
            try move(to: .question(position))
        }
        shownPlace = nil
    }

    private func clear() throws {
        switch place {
        case .patient(let field): response.patient.clear(field)
        case .question(let position): response[position] = nil
        case .end:
            io.write("Go to a question first (:go 2.5), then :clear.")
            return
        }
        response.touch()
        try persist()
        io.write("Cleared.")
        shownPlace = nil
    }

    private func listChoices() {
        guard case .question(let position) = place, let set = questionnaire.question(at: position)?.type.choices else {
            io.write("This question has no choices to list.")
            return
        }
        display.choiceLines(set.choices, numbersFrom: set.choices).forEach(io.write)
    }

    /// Prints every shown question with its answer, and what is still required.
    func review() {
        let visible = validator.visiblePositions(in: response)
        io.write("\n── Review ──")
        io.write(
            "Patient: "
                + PatientIdentification.Field.allCases.map { "\($0.label): \(response.patient.display($0) ?? "—")" }.joined(separator: "; ")
        )
        for section in questionnaire.sections {
            io.write("Section \(section.number): \(section.title.text(in: language))")
            for question in section.questions where visible.contains(question.position) {
                let answer = response[question.position].map { display.text(of: $0, for: question.type) }
                let mark = answer == nil && question.isRequired ? "  (required, not answered)" : ""
                io.write("  [\(question.position)] \(question.text.text(in: language)): \(answer ?? "—")\(mark)")
            }
        }
        shownPlace = nil
    }

    /// Validates the record; completes and saves it, or explains what is missing and goes there.
    func finish() throws -> Outcome? {
        var candidate = validator.droppingHiddenAnswers(response)
        candidate.status = .complete
        let errors = validator.validate(candidate).errors
        guard errors.isEmpty else {
            io.write("The record cannot be completed yet:")
            errors.forEach { io.write("  - \($0)") }
            if let first = errors.first { try move(to: place(of: first)) }
            shownPlace = nil
            return nil
        }
        let dropped = response.answerCount - candidate.answerCount
        candidate.touch()
        let before = (response, place)
        response = candidate
        place = .end
        try persist()
        if unsaved {
            (response, place) = before
            io.write("The record cannot be saved yet, so it is not complete: free some disk space, then type :finish again.")
            return nil
        }
        if dropped > 0 {
            io.write(
                dropped == 1
                    ? "1 answer to a question hidden by later changes was dropped."
                    : "\(dropped) answers to questions hidden by later changes were dropped.")
        }
        io.write(
            "Record \(response.id.uuidString.lowercased()) is complete (\(response.answerCount) answers).")
        return .completed(response)
    }

    private func place(of issue: ValidationIssue) -> FormPlace {
        if let position = issue.position { return .question(position) }
        if let field = issue.field.flatMap(PatientIdentification.Field.init(rawValue:)) { return .patient(field) }
        return place
    }
}
