import IntakeCore

extension FormSession {
    /// Every place in order: patient fields, then each question, then the end.
    var places: [FormPlace] {
        if let frame = frames.last {
            // Inside an instance: its questions, between its repeat and the repeat again.
            return [.question(frame.group.position)] + questionnaire.members(of: frame.group.position).map { .question($0.position) }
                + [.question(frame.group.position)]
        }
        return PatientIdentification.Field.allCases.map(FormPlace.patient)
            + questionnaire.allQuestions.filter { $0.group == nil }.map { .question($0.position) } + [.end]
    }

    /// ` #2` after a question's number inside the second instance of a repeat (` #2.1` nested).
    var instanceTag: String {
        frames.isEmpty ? "" : " #" + frames.map { String($0.number + 1) }.joined(separator: ".")
    }

    func isShown(_ place: FormPlace, visible: Set<QuestionPosition>) -> Bool {
        if case .question(let position) = place { return visible.contains(position) }
        return true
    }

    /// Whether the place waits for input (a note or a calculated question does not).
    func isAsked(_ place: FormPlace) -> Bool {
        guard case .question(let position) = place, let question = questionnaire.question(at: position) else { return true }
        return question.isAsked || question.isRepeat
    }

    /// The questions shown where the form stands (at the top, or in the open instance).
    var visibleHere: Set<QuestionPosition> {
        let hidden = hiddenHere()
        return Set(
            places.compactMap { place -> QuestionPosition? in
                guard case .question(let position) = place, !hidden.contains(position) else { return nil }
                return position
            })
    }

    /// The next place that is shown for the answers so far.
    func next(after place: FormPlace) -> FormPlace {
        let visible = visibleHere
        let all = places
        // In an instance the repeat stands first and last: from it, go to the instance's first question.
        let start = (all.firstIndex(of: place) ?? 0) + 1
        return all[min(start, all.count - 1)...].first { isShown($0, visible: visible) } ?? .end
    }

    func previous(before place: FormPlace) -> FormPlace? {
        let visible = visibleHere
        let all = places
        guard let index = all.firstIndex(of: place), index > 0 else { return nil }
        // Notes and calculated questions are passed, not answered: going back skips them.
        return all[..<index].last { isShown($0, visible: visible) && isAsked($0) }
    }

    /// The first shown question of a section, or nil when all its questions are hidden.
    func firstShown(inSection number: Int) -> FormPlace? {
        let visible = validator.visiblePositions(in: folded)
        return questionnaire.section(number)?.questions.first { $0.group == nil && visible.contains($0.position) }.map {
            .question($0.position)
        }
    }

    func section(of place: FormPlace) -> Int {
        switch place {
        case .patient: 0
        case .question(let position): position.section
        case .end: questionnaire.sections.count + 1
        }
    }
}
