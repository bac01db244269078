import IntakeCore

extension FormSession {
    /// Carries out a `:command`; returns an outcome when it ends the form.
    func perform(_ text: String) throws -> Outcome? {
        let command: FormCommand
        do {
            command = try FormCommand.parse(text)
        } catch .unknown(let name, let suggestion) {
            io.write(say(.unknownCommand(name, suggestion: suggestion)))
            return nil
        } catch {
            io.write(say(.goWhere))
            return nil
        }
        switch command {
        case .help: io.write(say(.commandsHelp))
        case .back:
            if let previous = previous(before: place) { try move(to: previous) } else { io.write(say(.firstQuestion)) }
        case .skip: try move(to: next(after: place))
        case .nextSection: try move(to: firstPlace(afterSection: section(of: place)))
        case .review: review()
        case .clear: try clear()
        case .list: listChoices()
        case .go(let target): try go(to: target)
        case .finish: return try finish()
        case .quit:
            if try discardIfBlank() {
                io.write(say(.nothingTyped))
                return .abandoned(inputEnded: false)
            }
            try persist()
            if unsaved {
                io.write(say(.quitNeedsRoom))
                return nil
            }
            io.write(say(.draftSaved(resume: String(response.id.uuidString.lowercased().prefix(8)))))
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
                io.write(say(.noSuchSection(number, count: questionnaire.sections.count)))
                return
            }
            guard let first = firstShown(inSection: number) else {
                io.write(say(.sectionHidden(number)))
                return
            }
            try move(to: first)
        case .question(let section, let index):
            let position = QuestionPosition(section: section, index: index)
            guard questionnaire.question(at: position) != nil else {
                io.write(say(.noSuchQuestion("\(position)")))
                return
            }
            // A question asked per instance is reached through its repeat.
            if frames.isEmpty || !isInOpenInstance(.question(position)), let group = outermostGroup(of: position) {
                while !frames.isEmpty { closeInstance() }
                recalculate()
                try move(to: .question(group))
                shownPlace = nil
                return
            }
            if isInOpenInstance(.question(position)) {
                try move(to: .question(position))
                shownPlace = nil
                return
            }
            guard validator.visiblePositions(in: response).contains(position) else {
                io.write(say(.questionHidden("\(position)")))
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
            io.write(say(.goFirstThenClear))
            return
        }
        recalculate()
        response.touch()
        try persist()
        io.write(say(.cleared))
        shownPlace = nil
    }

    private func listChoices() {
        guard case .question(let position) = place, let set = questionnaire.question(at: position)?.type.choices else {
            io.write(say(.noChoices))
            return
        }
        showChoices(set.choices, numbersFrom: set.choices)
    }

    /// Prints every shown question with its answer, and what is still required.
    func review() {
        if let frame = frames.last {
            // Inside an instance: that instance's answers.
            io.write("\n" + say(.reviewHeading))
            io.write(say(.instanceHeading(label: frame.group.text.text(in: language), number: frame.number + 1, total: nil)))
            let hidden = hiddenHere()
            for member in questionnaire.members(of: frame.group.position) where member.takesAnswer && !hidden.contains(member.position) {
                let answer = response[member.position].map { reviewed(display.text(of: $0, for: member.type)) }
                let mark = answer == nil && member.isRequired ? "  (\(say(.notAnswered)))" : ""
                io.write("  [\(member.position)\(instanceTag)] \(member.text.text(in: language)): \(answer ?? "—")\(mark)")
                if member.isRepeat { reviewInstances(of: member, in: response, indent: "    ") }
            }
            shownPlace = nil
            return
        }
        let visible = validator.visiblePositions(in: response)
        io.write("\n" + say(.reviewHeading))
        io.write(
            say(.reviewPatient) + ": "
                + PatientIdentification.Field.allCases.map { "\(say(.patientField($0))): \(response.patient.display($0, say: say) ?? "—")" }
                .joined(separator: say.isRightToLeft ? "؛ " : "; ")
        )
        for section in questionnaire.sections {
            io.write(say(.reviewSection(number: section.number, title: section.title.text(in: language))))
            for question in section.questions where question.group == nil && visible.contains(question.position) {
                if question.type == .note {
                    // A note is read, not answered: its text as the form shows it, values filled in.
                    io.write("  [\(question.position)] " + noteText(question))
                    continue
                }
                let answer = response[question.position].map { reviewed(display.text(of: $0, for: question.type)) }
                let mark = answer == nil && question.isRequired ? "  (\(say(.notAnswered)))" : ""
                io.write("  [\(question.position)] \(question.text.text(in: language)): \(answer ?? "—")\(mark)")
                if question.isRepeat { reviewInstances(of: question, in: response, indent: "    ") }
            }
        }
        shownPlace = nil
    }

    /// An answer as the review lists it: a long one shortened to its start, with its length, so
    /// the list stays a list (the question itself shows it whole).
    func reviewed(_ text: String) -> String {
        let limit = 160
        guard text.count > limit else { return text }
        let start = text.prefix(limit)
        let cut = start.lastIndex(of: " ").map { start[..<$0] } ?? start
        return cut + "… " + say(.characters(text.count))
    }

    /// Validates the record; completes and saves it, or explains what is missing and goes there.
    func finish() throws -> Outcome? {
        if let outermost = frames.first?.group.position {
            while !frames.isEmpty { closeInstance() }
            // Back at the repeat: whatever happens next (an issue to fix, a disk that is full) starts there.
            place = .question(outermost)
        }
        recalculate()
        var candidate = validator.droppingHiddenAnswers(response)
        candidate.status = .complete
        let errors = validator.validate(candidate).errors
        guard errors.isEmpty else {
            io.write(say(.cannotComplete))
            errors.forEach { io.write("  - " + say(.issue($0))) }
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
            io.write(say(.finishNeedsRoom))
            return nil
        }
        if dropped > 0 {
            io.write(say(.droppedHidden(dropped)))
        }
        io.write(say(.complete(id: response.id.uuidString.lowercased(), answers: response.answerCount)))
        return .completed(response)
    }

    private func place(of issue: ValidationIssue) -> FormPlace {
        if let position = issue.position { return .question(outermostGroup(of: position) ?? position) }
        if let field = issue.field.flatMap(PatientIdentification.Field.init(rawValue:)) { return .patient(field) }
        return place
    }
}
