import Foundation

/// What a complete record does to cases, as its questionnaire's `cases.txt` says: the update of
/// the case it was filled for, and the cases it opens. Computed from the record alone (its
/// answers and the case's properties as the visit saw them), so the server, the form and a test
/// compute the same changes from the same record, however late it arrives.
public struct CaseEffects: Sendable, Hashable {
    /// The followed case's change, when the record was filled for one.
    public var update: Update?
    /// The cases it opens, in `cases.txt`'s order.
    public var opened: [Opened]

    public init(update: Update? = nil, opened: [Opened] = []) {
        self.update = update
        self.opened = opened
    }

    public var isEmpty: Bool { update == nil && opened.isEmpty }

    /// A visit's change to the case it was filled for.
    public struct Update: Sendable, Hashable {
        public var caseId: UUID
        public var list: String
        /// The case's revision the visit was made from.
        public var baseRevision: Int
        /// The properties the visit sets, by name; a property whose expression has no value is
        /// left as it was, so it is not here.
        public var properties: [String: Answer]
        /// The case's next due date, when `due:` gives one.
        public var due: LocalDate?
        /// Whether `close if:` holds: the visit closes the case.
        public var closes: Bool
    }

    /// A case a record opens.
    public struct Opened: Sendable, Hashable {
        /// Made from the record's id and the opening's place in `cases.txt`: a record sent again,
        /// or edited, names the same case.
        public var caseId: UUID
        public var list: String
        public var properties: [String: Answer]
        public var due: LocalDate?
        public var assignment: CaseAssignment
    }

    /// The id of the case the opening at `place` (0-based, in `cases.txt`) of `record` opens.
    public static func openedCaseId(record: UUID, place: Int) -> UUID {
        UUID.named("intake-case:\(record.uuidString.lowercased()):\(place)")
    }
}

extension Questionnaire {
    /// What `record` does to cases: nothing unless it is complete. A record filled for a case of
    /// another list than the one this questionnaire follows updates nothing (the server refuses it
    /// before it gets here).
    public func caseEffects(of record: PatientResponse) -> CaseEffects {
        guard record.status == .complete, !cases.isEmpty else { return CaseEffects() }
        // `today()` is the day the record was made (UTC): the server may read it days later. By
        // arithmetic: a calendar and a time zone made for each record cost more than the rest.
        let today = LocalDate(utcDayOf: record.createdAt) ?? LocalDate(year: 2000, month: 1, day: 1)!
        let read: (QuestionPosition) -> Answer? = { record[$0] }
        var effects = CaseEffects()
        if let follows = cases.follows, let link = record.caseLink, link.list == follows.list {
            effects.update = CaseEffects.Update(
                caseId: link.id, list: follows.list, baseRevision: link.revision,
                properties: properties(follows.assignments, record: record, today: today, typed: true),
                due: due(follows.due, today: today, read: read), closes: follows.closeIf?.holds(today: today, answer: read) ?? false)
        }
        for (place, opening) in cases.opens.enumerated() where opening.condition?.holds(today: today, answer: read) ?? true {
            effects.opened.append(
                CaseEffects.Opened(
                    caseId: CaseEffects.openedCaseId(record: record.id, place: place), list: opening.list,
                    properties: properties(opening.assignments, record: record, today: today, typed: opening.list == cases.follows?.list),
                    due: due(opening.due, today: today, read: read),
                    assignment: opening.assignment))
        }
        return effects
    }

    private func due(_ expression: BoundExpression?, today: LocalDate, read: (QuestionPosition) -> Answer?) -> LocalDate? {
        guard let expression, case .date(let date) = expression.value(today: today, answer: read) else { return nil }
        return date
    }

    /// The values `assignments` give for `record`, by property name.
    /// `typed`: the list is the one the questionnaire follows, whose properties it declares.
    private func properties(_ assignments: [CaseRules.Assignment], record: PatientResponse, today: LocalDate, typed: Bool) -> [String:
        Answer]
    {
        var values: [String: Answer] = [:]
        for assignment in assignments {
            if let value = caseValue(assignment, record: record, today: today, typed: typed) { values[assignment.property] = value }
        }
        return values
    }

    /// A property's value: of its declared type when the questionnaire reads it as `case.name`;
    /// the answer itself when the expression is a question's id (a choice stays a choice); else
    /// what the expression's value is (a whole number an integer).
    private func caseValue(_ assignment: CaseRules.Assignment, record: PatientResponse, today: LocalDate, typed: Bool) -> Answer? {
        let read: (QuestionPosition) -> Answer? = { record[$0] }
        let value = assignment.value.value(today: today, answer: read)
        if typed, let declared = cases.property(named: assignment.property)?.property {
            return Answer(value, for: declared.type)
        }
        if case .name(let id, _) = assignment.value.expression, let position = assignment.value.positions[id],
            let answer = record[position]
        {
            switch answer {
            case .dictionary, .instances, .attachment: return nil
            default: return answer
            }
        }
        switch value {
        case .missing: return nil
        case .number(let number):
            if number.rounded() == number, abs(number) < 9.0e15 { return .integer(Int(number)) }
            return number.isFinite ? .decimal(number) : nil
        case .text(let text): return text.isEmpty ? nil : .text(text)
        case .bool(let flag): return .yesNo(flag)
        case .date(let date): return .date(date)
        case .choices(let codes): return codes.isEmpty ? nil : .choices(codes)
        }
    }
}
