import Foundation

extension Questionnaire {
    /// The record with every calculated question computed from its answers, in questionnaire
    /// order: a calculation that cannot be computed (an input unanswered or hidden, a division by
    /// zero) leaves its question unanswered, and so does show-if hiding it. Calculations and
    /// conditions read only earlier questions, so one pass settles them all.
    ///
    /// - Parameter recomputingToday: whether calculations that read the day (`today()`, `age()`)
    ///   are computed again; the server keeps the value the form computed on the day it was filled.
    public func calculated(_ response: PatientResponse, today: LocalDate, recomputingToday: Bool = true) -> PatientResponse {
        guard hasCalculations else { return response }
        // Answers show-if hides inside instances stay, as at the top: a changed answer may show them again.
        return settled(response, today: today, recomputingToday: recomputingToday, dropsHidden: false).response
    }

    /// ``calculated(_:today:recomputingToday:)`` with the questions show-if hides in the result,
    /// found on the same pass (conditions read only earlier questions, whose values are final by then).
    /// - Parameter dropsHidden: whether answers show-if hides inside instances (and to notes) are
    ///   dropped from them (cleaning a record), or kept (the form, where a change may show them again).
    func settled(
        _ response: PatientResponse, today: LocalDate, recomputingToday: Bool, dropsHidden: Bool = true, visit: InstanceVisitor? = nil
    ) -> (response: PatientResponse, hidden: HiddenQuestions) {
        let (settled, _, hidden) = settledSheet(
            response, today: today, recomputingToday: recomputingToday, dropsHidden: dropsHidden, visit: visit)
        return (settled, hidden)
    }

    /// ``settled(_:today:recomputingToday:dropsHidden:visit:)``, with the settled answers also
    /// by ordinal (the top level's: each repeat's members hold what the record holds there).
    func settledSheet(
        _ response: PatientResponse, today: LocalDate, recomputingToday: Bool, dropsHidden: Bool = true, visit: InstanceVisitor? = nil
    ) -> (response: PatientResponse, sheet: AnswerSheet, hidden: HiddenQuestions) {
        let pass = Pass(today: today, recomputingToday: recomputingToday, dropsHidden: dropsHidden, visit: visit)
        var sheet = AnswerSheet(response, for: self)
        var hidden = noneHidden
        var result = response
        // Settling writes only calculations and repeats: those go back into the record; every
        // other answer (and any to a position no question has) is the record's as it was.
        func settleTopLevel<Ordinals: Collection<Int>>(_ ordinals: Ordinals) {
            settle(ordinals, &sheet, &hidden, pass, path: [])
            for ordinal in ordinals where allQuestions[ordinal].calculation != nil || allQuestions[ordinal].isRepeat {
                result[allQuestions[ordinal].position] = sheet.answers[ordinal]
            }
        }
        if hasRepeats { settleTopLevel(checks.indices.filter { !checks[$0].inRepeat }) } else { settleTopLevel(checks.indices) }
        return (result, sheet, hidden)
    }

    /// What one settling pass does, the same at every level.
    struct Pass {
        var today: LocalDate
        var recomputingToday: Bool
        var dropsHidden: Bool
        var visit: InstanceVisitor?
    }

    /// Sees each instance of a repeat once it is settled: the group's ordinal (not the group: a
    /// copy of a question for each instance retains each of its parts), the instance's path (1-based
    /// numbers, outermost first), the answers as the instance's questions read them (their
    /// answers in their members' places, hidden ones included) and what show-if hides there.
    typealias InstanceVisitor = (_ group: Int, _ path: [Int], _ scoped: AnswerSheet, _ hidden: HiddenQuestions) -> Void

    /// One pass over the questions at `ordinals` (one scope: the top level or one instance),
    /// settling show-if and calculations in order and every repeat's instances in turn. Inside an
    /// instance, answers show-if hides and answers to notes are dropped from the instance.
    ///
    /// Answers are read and written by ordinal on `sheet`: each instance's answers are placed in
    /// its members' places, settled there, and read back into the instance; the members' places
    /// hold again what they held before once the repeat is settled.
    private func settle<Ordinals: Collection<Int>>(
        _ ordinals: Ordinals, _ sheet: inout AnswerSheet, _ hidden: inout HiddenQuestions, _ pass: Pass, path: [Int]
    ) {
        // Each question's parts are read in place (a Question is large: a copy retains each of its
        // parts), and answers are read through closures that do not outlive their call.
        for ordinal in ordinals {
            if let condition = allQuestions[ordinal].showIf, !condition.isSatisfied(by: { hidden.contains($0) ? nil : sheet[$0] }) {
                hidden.insert(ordinal: ordinal)
                continue
            }
            if allQuestions[ordinal].isRepeat {
                settleInstances(of: ordinal, &sheet, hidden, pass, path: path)
                continue
            }
            guard let calculation = allQuestions[ordinal].calculation, pass.recomputingToday || !calculation.usesToday else { continue }
            let value = calculation.value(today: pass.today) { hidden.contains($0) ? nil : sheet[$0] }
            sheet.answers[ordinal] = Answer(value, for: allQuestions[ordinal].type)
        }
    }

    /// Settles each instance of the repeat at `ordinal` in its members' places on `sheet`, and
    /// puts the settled instances in the repeat's place.
    private func settleInstances(of ordinal: Int, _ sheet: inout AnswerSheet, _ hidden: HiddenQuestions, _ pass: Pass, path: [Int]) {
        guard case .instances(var list)? = sheet.answers[ordinal] else { return }
        // More instances than the repeat holds: the validator refuses it; nothing more is worked out.
        if case .repeatGroup(let bounds) = allQuestions[ordinal].type, list.count > (bounds.upper ?? RepeatLimits.maxInstances) { return }
        let members = repeatMembers[allQuestions[ordinal].position] ?? []
        // What the members' places hold outside the instances (an answer sent outside its
        // repeat, which the validator warns of), put back once the instances are settled.
        let outside = members.map { sheet.answers[$0] }
        for number in list.indices {
            for member in members { sheet.answers[member] = list[number][allQuestions[member].position.index] }
            // The scope around never hides a member (they are not among its questions).
            var scopedHidden = hidden
            settle(members, &sheet, &scopedHidden, pass, path: path + [number + 1])
            pass.visit?(ordinal, path + [number + 1], sheet, scopedHidden)
            var instance = [Int: Answer](minimumCapacity: members.count)
            for member in members {
                guard !pass.dropsHidden || (!scopedHidden.contains(ordinal: member) && allQuestions[member].takesAnswer),
                    let answer = sheet.answers[member]
                else { continue }
                instance[allQuestions[member].position.index] = answer
            }
            list[number] = instance
        }
        for (member, answer) in zip(members, outside) { sheet.answers[member] = answer }
        sheet.answers[ordinal] = .instances(list)
    }

    /// The question's type with only the choices its `filter:` offers for the record's answers
    /// (all of them while the filtering question is unanswered).
    public func offeredType(of question: Question, in response: PatientResponse) -> QuestionType {
        guard let filter = question.choiceFilter, case .choice(let parent)? = response[filter] else { return question.type }
        switch question.type {
        case .singleChoice(let set): return .singleChoice(set.filtered(by: parent))
        case .multipleChoice(let set): return .multipleChoice(set.filtered(by: parent))
        default: return question.type
        }
    }

    /// The default answer offered for `question` given the record's answers so far, if any fits.
    public func defaultAnswer(for question: Question, in response: PatientResponse, today: LocalDate) -> Answer? {
        guard let value = question.defaultValue else { return nil }
        let hidden = hiddenQuestions(in: response)
        return Answer(value.value(today: today) { hidden.contains($0) ? nil : response[$0] }, for: question.type)
    }

    /// The alerts a record raises: questions whose `alert if` holds for its answers, in order.
    /// `hidden` is what show-if hides, when known already (empty for a record cleaned of hidden
    /// answers, as the server stores them).
    public func raisedAlerts(by response: PatientResponse, today: LocalDate, hidden known: Set<QuestionPosition>? = nil) -> [Question] {
        let alerting = alertingQuestions
        guard !alerting.isEmpty else { return [] }
        let hidden = known ?? hiddenPositions(in: response)
        return alerting.filter { question in
            question.alert!.condition.holds(today: today) { hidden.contains($0) ? nil : response[$0] }
        }
    }

    /// The questions with an alert, in order: notifications name an alert by its place here
    /// (alert 1 is the first), never by its question.
    public var alertingQuestions: [Question] { allQuestions.filter { $0.alert != nil } }

    /// The numbers (from 1) of the alerts a record raises, as notifications name them.
    public func raisedAlertNumbers(by response: PatientResponse, today: LocalDate, hidden: Set<QuestionPosition>? = nil) -> [Int] {
        let alerting = alertingQuestions.map(\.position)
        return raisedAlerts(by: response, today: today, hidden: hidden).compactMap { alerting.firstIndex(of: $0.position).map { $0 + 1 } }
    }

    /// Alert `number` (from 1), if the questionnaire has one.
    public func alert(number: Int) -> QuestionAlert? {
        let alerting = alertingQuestions
        return alerting.indices.contains(number - 1) ? alerting[number - 1].alert : nil
    }
}
