import Foundation

/// Moves a record to another version of its questionnaire: each answer goes to the question that
/// carries the same id on the new version, when its type and choices still take it; every answer
/// that cannot go is listed with why, never dropped silently.
///
/// A question without an id is matched only where the new version has a question at the same
/// place with the same wording (and no id either): give questions ids (`id:` in the question
/// line) for their answers to follow them across sections.
public enum RecordMigration {
    /// An answer moved to the new version.
    public struct Carried: Sendable, Hashable {
        public var question: String
        public var from: QuestionPosition
        public var to: QuestionPosition
        /// How the answer was converted on the way (a whole number to a decimal, one choice to a
        /// list of choices), or nil when it went as it was.
        public var conversion: String?
    }

    /// An answer the new version does not take, with the reason. The answer itself is kept.
    public struct SetAside: Sendable, Hashable {
        public enum Reason: String, Sendable, Hashable, Codable {
            /// No question with that id (or, without an id, at that place with that wording).
            case questionRemoved = "question_removed"
            /// The question is there with another type that the answer cannot become.
            case typeChanged = "type_changed"
            /// The question takes the type but not this answer: a choice removed, a range narrowed.
            case notAccepted = "not_accepted"
            /// The question is there but hidden by its condition on the new version.
            case hidden = "hidden"
        }

        public var question: String
        public var questionText: String
        public var from: QuestionPosition
        public var reason: Reason
        /// What the new version says, naming no answer.
        public var detail: String
        public var answer: Answer
    }

    public struct Result: Sendable {
        public var record: PatientResponse
        public var carried: [Carried]
        public var setAside: [SetAside]
        /// The questions of the new version that are required, shown and still unanswered: what
        /// the form asks before the record can be finished.
        public var nowRequired: [Question]
    }

    /// `record` (on `old`) moved to `new`. The record keeps its id, patient, collector and
    /// status; a complete record that misses newly required answers stays complete here, and
    /// ``Result/nowRequired`` says what to ask.
    public static func migrate(_ record: PatientResponse, from old: Questionnaire, to new: Questionnaire, today: LocalDate = .today())
        -> Result
    {
        let validator = Validator(questionnaire: new, today: today)
        var moved = record
        moved.questionnaire = new.reference
        moved.answers = [:]
        var carried: [Carried] = []
        var setAside: [SetAside] = []
        for (position, answer) in record.allAnswers.sorted(by: { $0.position < $1.position }) {
            let question = old.question(at: position)
            let key = question?.key ?? "s\(position.section)_q\(position.index)"
            let text = question?.text.base ?? ""
            func aside(_ reason: SetAside.Reason, _ detail: String) {
                setAside.append(SetAside(question: key, questionText: text, from: position, reason: reason, detail: detail, answer: answer))
            }
            guard let question, let target = counterpart(of: question, in: new) else {
                aside(.questionRemoved, "version \(new.version) has no such question")
                continue
            }
            if question.group != nil {
                aside(.questionRemoved, "answered outside its repeat")
                continue
            }
            if question.isRepeat, target.isRepeat, case .instances(let list) = answer {
                // Each instance's answers go to the new version's questions of the repeat, by id.
                let instances = list.enumerated().map { number, instance in
                    carryInstance(instance, number: number + 1, of: question, to: target, from: old, to: new, validator: validator) {
                        entry in
                        setAside.append(entry)
                    }
                }
                moved[target.position] = .instances(instances)
                carried.append(Carried(question: key, from: position, to: target.position, conversion: nil))
                continue
            }
            guard let (converted, conversion) = convert(answer, from: question.type, to: target.type) else {
                aside(.typeChanged, "the question is \(target.type.keyword) on version \(new.version), was \(question.type.keyword)")
                continue
            }
            if let problem = validator.answerProblem(with: converted, type: target.type) {
                aside(.notAccepted, "version \(new.version) does not take the answer: \(problem.text)")
                continue
            }
            moved[target.position] = converted
            carried.append(Carried(question: key, from: position, to: target.position, conversion: conversion))
        }
        // Answers the new version's conditions hide are set aside too, not carried into a record
        // the server would clean.
        let hidden = new.hiddenPositions(in: moved)
        for (index, entry) in carried.enumerated().reversed() where hidden.contains(entry.to) {
            let question = new.question(at: entry.to)
            setAside.append(
                SetAside(
                    question: entry.question, questionText: question?.text.base ?? "", from: entry.from, reason: .hidden,
                    detail: "hidden by its condition on version \(new.version)", answer: record[entry.from]!))
            moved[entry.to] = nil
            carried.remove(at: index)
        }
        setAside.sort { $0.from < $1.from }
        let visible = new.visiblePositions(in: moved)
        let nowRequired = new.allQuestions.filter {
            $0.isRequired && $0.group == nil && !$0.isRepeat && $0.position.section > 0 && visible.contains($0.position)
                && moved[$0.position] == nil
        }
        return Result(record: moved, carried: carried, setAside: setAside, nowRequired: nowRequired)
    }

    /// The question of `new` that takes the answers of `question`.
    /// One instance's answers moved to the new version's questions of the same repeat (those
    /// that are not there, or do not take the answer, are set aside with the instance named).
    private static func carryInstance(
        _ instance: [Int: Answer], number: Int, of group: Question, to target: Question, from old: Questionnaire, to new: Questionnaire,
        validator: Validator, setAside: (SetAside) -> Void
    ) -> [Int: Answer] {
        var moved: [Int: Answer] = [:]
        for (index, answer) in instance.sorted(by: { $0.key < $1.key }) {
            let position = QuestionPosition(section: group.position.section, index: index)
            let question = old.question(at: position)
            func aside(_ reason: SetAside.Reason, _ detail: String) {
                setAside(
                    SetAside(
                        question: question?.key ?? "s\(position.section)_q\(index)", questionText: question?.text.base ?? "",
                        from: position,
                        reason: reason, detail: "instance \(number) of \(group.key): \(detail)", answer: answer))
            }
            guard let question, let counterpart = counterpart(of: question, in: new), counterpart.group == target.position else {
                aside(.questionRemoved, "version \(new.version) does not ask it in this repeat")
                continue
            }
            if question.isRepeat, counterpart.isRepeat, case .instances(let inner) = answer {
                moved[counterpart.position.index] = .instances(
                    inner.enumerated().map { n, nested in
                        carryInstance(
                            nested, number: n + 1, of: question, to: counterpart, from: old, to: new, validator: validator,
                            setAside: setAside)
                    })
                continue
            }
            guard let (converted, _) = convert(answer, from: question.type, to: counterpart.type) else {
                aside(.typeChanged, "the question is \(counterpart.type.keyword) on version \(new.version), was \(question.type.keyword)")
                continue
            }
            if let problem = validator.answerProblem(with: converted, type: counterpart.type) {
                aside(.notAccepted, "version \(new.version) does not take the answer: \(problem.text)")
                continue
            }
            moved[counterpart.position.index] = converted
        }
        return moved
    }

    static func counterpart(of question: Question, in new: Questionnaire) -> Question? {
        if let id = question.id { return new.question(id: id) }
        guard let same = new.question(at: question.position), same.id == nil, same.text.base == question.text.base else { return nil }
        return same
    }

    /// `answer` in the shape of `to`, with a word on the conversion, or nil when the types do
    /// not meet.
    static func convert(_ answer: Answer, from: QuestionType, to: QuestionType) -> (Answer, String?)? {
        switch (from, to, answer) {
        case (.integer, .decimal, .integer(let value)): return (.decimal(Double(value)), "whole number to decimal")
        case (.decimal, .integer, .decimal(let value)):
            guard value.rounded() == value, let whole = Int(exactly: value) else { return nil }
            return (.integer(whole), "decimal to whole number")
        case (.singleChoice, .multipleChoice, .choice(let code)): return (.choices([code]), "one choice to a list of choices")
        case (.multipleChoice, .singleChoice, .choices(let codes)):
            guard codes.count == 1 else { return nil }
            return (.choice(codes[0]), "a list of one choice to one choice")
        default:
            return from.keyword == to.keyword ? (answer, nil) : nil
        }
    }
}

extension RecordMigration {
    /// The answers set aside and why, as JSON (the answer in the record codec's spelling): what
    /// a record's history keeps and `intake drafts history --json` shows.
    public static func json(_ setAside: [SetAside], from: QuestionnaireReference, to: QuestionnaireReference, at time: Date) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("from")
        writer.string(from.description)
        writer.key("to")
        writer.string(to.description)
        writer.key("migratedAt")
        writer.string(Timestamp.string(from: time))
        writer.key("setAside")
        writer.beginArray()
        for entry in setAside {
            writer.beginObject()
            writer.key("question")
            writer.string(entry.question)
            writer.key("questionText")
            writer.string(entry.questionText)
            writer.key("position")
            writer.string(entry.from.description)
            writer.key("reason")
            writer.string(entry.reason.rawValue)
            writer.key("detail")
            writer.string(entry.detail)
            writer.key("answer")
            RecordCodec.write(entry.answer, into: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
