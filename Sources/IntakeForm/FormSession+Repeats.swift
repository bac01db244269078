import IntakeCore

/// An instance of a repeat the form is inside: while it is open, ``FormSession/response`` is the
/// record as the instance's questions read it (their answers in place), and `outer` the record
/// around it.
struct InstanceFrame {
    var group: Question
    /// The instance's place in the group's list, from 0.
    var number: Int
    var outer: PatientResponse
}

extension FormSession {
    /// The record with every open instance written back into its repeat: what is saved.
    var folded: PatientResponse {
        var current = response
        for frame in frames.reversed() { current = Self.store(current, in: frame, questionnaire: questionnaire) }
        return current
    }

    /// `outer` with the instance's answers (taken from `scoped`) in its place in the group.
    static func store(_ scoped: PatientResponse, in frame: InstanceFrame, questionnaire: Questionnaire) -> PatientResponse {
        var outer = frame.outer
        var list = Self.instances(of: frame.group, in: outer)
        guard list.indices.contains(frame.number) else { return outer }
        var instance: [Int: Answer] = [:]
        for member in questionnaire.members(of: frame.group.position) where member.takesAnswer {
            if let answer = scoped[member.position] { instance[member.position.index] = answer }
        }
        list[frame.number] = instance
        outer[frame.group.position] = .instances(list)
        outer.updatedAt = max(outer.updatedAt, scoped.updatedAt)
        return outer
    }

    /// The record as instance `number` of `group` reads it: its answers at their questions' places.
    static func scoped(_ outer: PatientResponse, group: Question, number: Int, questionnaire: Questionnaire) -> PatientResponse {
        var scoped = outer
        let list = instances(of: group, in: outer)
        for member in questionnaire.members(of: group.position) {
            scoped[member.position] = list.indices.contains(number) ? list[number][member.position.index] : nil
        }
        return scoped
    }

    static func instances(of group: Question, in response: PatientResponse) -> [[Int: Answer]] {
        if case .instances(let list)? = response[group.position] { return list }
        return []
    }

    /// Sets `full` as the record, keeping every open instance open on it.
    func unfold(_ full: PatientResponse) {
        var current = full
        for index in frames.indices {
            frames[index].outer = current
            current = Self.scoped(current, group: frames[index].group, number: frames[index].number, questionnaire: questionnaire)
        }
        response = current
    }

    /// How many instances the repeat's `count` asks for, when it says.
    func wantedCount(of group: Question) -> Int? {
        guard let count = group.repeatCount else { return nil }
        let hidden = hiddenHere()
        let value = count.value(today: validator.today) { hidden.contains($0) ? nil : self.response[$0] }
        // Never more than the repeat holds: a count beyond it is the validator's to report.
        return RepeatLimits.instances(for: value).map { min($0, maxInstances(of: group)) }
    }

    func maxInstances(of group: Question) -> Int {
        guard case .repeatGroup(let bounds) = group.type else { return RepeatLimits.maxInstances }
        return min(bounds.upper ?? RepeatLimits.maxInstances, RepeatLimits.maxInstances)
    }

    /// What show-if hides where the form stands: at the top, or in the open instance.
    func hiddenHere() -> Set<QuestionPosition> {
        var hidden = questionnaire.hiddenPositions(in: response)
        for frame in frames {
            for member in questionnaire.members(of: frame.group.position) {
                guard let condition = member.showIf else { continue }
                if !condition.isSatisfied(by: { hidden.contains($0) ? nil : self.response[$0] }) { hidden.insert(member.position) }
            }
        }
        return hidden
    }

    /// Shows a repeat: its instances so far and what may be typed.
    func showRepeat(_ group: Question) {
        let list = Self.instances(of: group, in: response)
        let wanted = wantedCount(of: group)
        io.write("    " + say(.repeatStatus(count: list.count, wanted: wanted)))
        for (number, _) in list.enumerated() {
            io.write(say(.instanceLine(number: number + 1, summary: summary(of: group, number: number))))
        }
        if let help = group.help?.text(in: language), !help.isEmpty { io.write("    " + say(.help(help))) }
        io.write("    " + say(.repeatCommands(canAdd: list.count < maxInstances(of: group), counted: wanted != nil)))
    }

    /// The first two answers of an instance, as the form shows them.
    private func summary(of group: Question, number: Int) -> String {
        let scoped = Self.scoped(response, group: group, number: number, questionnaire: questionnaire)
        return questionnaire.members(of: group.position).filter(\.isAsked).compactMap { member in
            scoped[member.position].map { display.text(of: $0, for: member.type) }
        }.prefix(2).joined(separator: separator)
    }

    /// A line typed at a repeat: Enter, `+`, a number, `-N`, `N>M`.
    func answerRepeat(_ group: Question, _ text: String) throws {
        let list = Self.instances(of: group, in: response)
        let typed = TextFold.asciiDigits(text).replacingOccurrences(of: " ", with: "")
        let wanted = wantedCount(of: group)
        if typed.isEmpty {
            if let wanted, list.count < wanted {
                try openInstance(of: group, number: list.count)
            } else {
                // Passed with none: answered as no instance (count() is 0, not unknown).
                if response[group.position] == nil { setAnswer(.instances([]), at: group.position) }
                try move(to: next(after: place))
            }
            return
        }
        if typed == "+" || typed.lowercased() == "add" {
            guard list.count < maxInstances(of: group) else {
                io.write(say(.repeatFull(maxInstances(of: group))))
                return
            }
            try openInstance(of: group, number: list.count)
            return
        }
        if typed.hasPrefix("-"), let number = Int(typed.dropFirst()) {
            guard list.indices.contains(number - 1) else {
                io.write(say(.noSuchInstance(number, count: list.count)))
                return
            }
            var changed = list
            let removed = changed.remove(at: number - 1)
            setAnswer(.instances(changed), at: group.position)
            try persist()
            // One step back is kept: `undo` puts it back while the list is as the removal left it.
            lastRemoved = RemovedInstance(
                group: group.position, inside: frames.map(\.number), number: number, instance: removed, after: changed)
            io.write(say(.instanceRemoved(number)))
            shownPlace = nil
            return
        }
        if ["undo", "u"].contains(typed.lowercased()) || TextFold.fold(typed) == TextFold.fold(say(.undoWord)) {
            // The same repeat of the same outer instance (a repeat inside a repeat has one
            // position in every instance), as the removal left it.
            guard let removed = lastRemoved, removed.group == group.position, removed.inside == frames.map(\.number), removed.after == list
            else {
                io.write(say(.nothingToUndo))
                return
            }
            var restored = list
            restored.insert(removed.instance, at: min(removed.number - 1, restored.count))
            setAnswer(.instances(restored), at: group.position)
            try persist()
            lastRemoved = nil
            io.write(say(.instanceRestored(removed.number)))
            shownPlace = nil
            return
        }
        if let number = Int(typed) {
            guard list.indices.contains(number - 1) else {
                io.write(say(.noSuchInstance(number, count: list.count)))
                return
            }
            try openInstance(of: group, number: number - 1)
            return
        }
        let parts = typed.split(separator: ">", omittingEmptySubsequences: false)
        if parts.count == 2, let from = Int(parts[0]), let to = Int(parts[1]) {
            guard list.indices.contains(from - 1) else {
                io.write(say(.noSuchInstance(from, count: list.count)))
                return
            }
            guard list.indices.contains(to - 1) else {
                io.write(say(.noSuchInstance(to, count: list.count)))
                return
            }
            var changed = list
            changed.insert(changed.remove(at: from - 1), at: to - 1)
            setAnswer(.instances(changed), at: group.position)
            try persist()
            io.write(say(.instanceMoved(from: from, to: to)))
            shownPlace = nil
            return
        }
        io.write(say(.repeatAnswer))
    }

    /// Opens instance `number` (a new one when it is the next after the last) at its first question.
    func openInstance(of group: Question, number: Int) throws {
        var list = Self.instances(of: group, in: response)
        let total = wantedCount(of: group)
        if number == list.count {
            list.append([:])
            setAnswer(.instances(list), at: group.position)
        }
        frames.append(InstanceFrame(group: group, number: number, outer: response))
        response = Self.scoped(response, group: group, number: number, questionnaire: questionnaire)
        io.write("\n" + say(.instanceHeading(label: group.text.text(in: language), number: number + 1, total: total)))
        let first = next(after: .question(group.position))
        try move(to: first)
        shownPlace = nil
    }

    /// Closes the innermost open instance, writing its answers into its repeat.
    func closeInstance() {
        guard let frame = frames.popLast() else { return }
        response = Self.store(response, in: frame, questionnaire: questionnaire)
    }

    /// Whether `place` is a question of the innermost open instance.
    func isInOpenInstance(_ place: FormPlace) -> Bool {
        guard let frame = frames.last, case .question(let position) = place else { return false }
        return questionnaire.question(at: position)?.group == frame.group.position
    }

    /// The outermost repeat a question is asked in, for going to it from outside.
    func outermostGroup(of position: QuestionPosition) -> QuestionPosition? {
        var group = questionnaire.question(at: position)?.group
        while let current = group, let outer = questionnaire.question(at: current)?.group { group = outer }
        return group
    }

    /// Review lines for a repeat's instances, indented under it.
    func reviewInstances(of group: Question, in record: PatientResponse, indent: String) {
        let list = Self.instances(of: group, in: record)
        for number in list.indices {
            io.write("\(indent)#\(number + 1)")
            let scoped = Self.scoped(record, group: group, number: number, questionnaire: questionnaire)
            var hidden = Set<QuestionPosition>()
            for member in questionnaire.members(of: group.position) where member.takesAnswer {
                if let condition = member.showIf, !condition.isSatisfied(by: { hidden.contains($0) ? nil : scoped[$0] }) {
                    hidden.insert(member.position)
                    continue
                }
                if member.isRepeat {
                    io.write(
                        "\(indent)  [\(member.position)] \(member.text.text(in: language)): \(say(.instanceCount(Self.instances(of: member, in: scoped).count)))"
                    )
                    reviewInstances(of: member, in: scoped, indent: indent + "    ")
                    continue
                }
                let answer = scoped[member.position].map { display.text(of: $0, for: member.type) }
                io.write("\(indent)  [\(member.position)] \(member.text.text(in: language)): \(answer ?? "—")")
            }
        }
    }
}
