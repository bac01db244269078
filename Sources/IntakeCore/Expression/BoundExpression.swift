import Foundation

/// An expression checked against a questionnaire, with the position of every question it reads.
///
/// Calculations, constraints, `required if`, alerts and show-if conditions that go beyond a simple
/// comparison are kept this way; evaluating one reads answers by position.
public struct BoundExpression: Sendable, Hashable, CustomStringConvertible {
    public let expression: Expression
    /// Where each question id the expression reads stands (`.` is the question's own answer).
    public let positions: [String: QuestionPosition]
    /// Whether it depends on the day (`today()`, `age()`): such values are not recomputed later.
    public let usesToday: Bool
    /// What `sum()` and `count()` read across a repeat's instances: by question id, the repeat
    /// group whose instances hold it and the question's index there (nil: the group itself).
    public let repeated: [String: RepeatedRead]
    /// The expression compiled (``CompiledExpression``), and what each of its reads reads.
    private let compiled: CompiledExpression
    private let reads: [Read]

    public struct RepeatedRead: Sendable, Hashable {
        public var group: QuestionPosition
        public var index: Int?

        public init(group: QuestionPosition, index: Int?) {
            self.group = group
            self.index = index
        }
    }

    /// What a read of the compiled expression reads: a question's answer, one question's answers
    /// across a repeat's instances, or nothing (an id no question has).
    private enum Read: Sendable {
        case position(QuestionPosition)
        case repeated(RepeatedRead)
        case none
    }

    public init(_ expression: Expression, positions: [String: QuestionPosition], repeated: [String: RepeatedRead] = [:]) {
        self.expression = expression
        self.positions = positions
        self.repeated = repeated
        usesToday = expression.usesToday
        var reads: [Read] = []
        var numbers: [String: Int] = [:]
        compiled = CompiledExpression(expression) { id in
            if let number = numbers[id] { return number }
            numbers[id] = reads.count
            reads.append(repeated[id].map(Read.repeated) ?? positions[id].map(Read.position) ?? .none)
            return reads.count - 1
        }
        self.reads = reads
    }

    /// Any day: the evaluator's `today` for expressions that do not read it.
    private static let anyDay = LocalDate(year: 2000, month: 1, day: 1)!

    /// The value for the answers `answer` gives by position (nil: unanswered or hidden).
    public func value(today: LocalDate? = nil, answer: (QuestionPosition) -> Answer?) -> ExpressionValue {
        let evaluator = ExpressionEvaluator(today: usesToday ? today ?? .today() : Self.anyDay)
        // The reads alone are captured: a closure over `self` copies the whole value at each read.
        let reads = reads
        return evaluator.evaluate(compiled) { number in
            switch reads[number] {
            case .position(let position): return answer(position)
            case .repeated(let read):
                // Each instance's value under index 1, as sum() and count() take it.
                guard case .instances(let list)? = answer(read.group) else { return nil }
                return .instances(
                    list.map { instance in
                        guard let index = read.index else { return [1: .yesNo(true)] }
                        return instance[index].map { [1: $0] } ?? [:]
                    })
            case .none: return nil
            }
        }
    }

    public static func == (a: BoundExpression, b: BoundExpression) -> Bool {
        a.expression == b.expression && a.positions == b.positions && a.repeated == b.repeated
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(expression)
        hasher.combine(positions)
        hasher.combine(repeated)
    }

    /// Whether it holds: a missing value does not.
    public func holds(today: LocalDate? = nil, answer: (QuestionPosition) -> Answer?) -> Bool {
        value(today: today, answer: answer).isTrue
    }

    /// Whether every question it reads, other than `.`, is answered.
    public func readsOnlyAnswered(_ answer: (QuestionPosition) -> Answer?) -> Bool {
        positions.allSatisfy { id, position in id == "." || answer(position) != nil }
            && repeated.values.allSatisfy { answer($0.group) != nil }
    }

    public var description: String { expression.description }
}

extension Answer {
    /// The answer a calculated or default value gives to a question of `type`, or nil when the
    /// value is missing or does not fit the type (text for a number, a code the question lacks).
    public init?(_ value: ExpressionValue, for type: QuestionType) {
        switch (type, value) {
        case (_, .missing): return nil
        case (.integer, .number(let number)):
            let rounded = number.rounded(.toNearestOrAwayFromZero)
            guard rounded.isFinite, abs(rounded) < 9.0e15 else { return nil }
            self = .integer(Int(rounded))
        case (.decimal, .number(let number)):
            guard number.isFinite else { return nil }
            self = .decimal(number)
        case (.date, .date(let date)): self = .date(date)
        case (.yesNo, .bool(let flag)): self = .yesNo(flag)
        case (.yesNo, .number(let number)): self = .yesNo(number != 0)
        case (.text, _):
            let text = value.text
            guard !text.isEmpty else { return nil }
            self = .text(text)
        case (.singleChoice(let set), .text(let code)):
            guard set.contains(code: code) else { return nil }
            self = .choice(code)
        case (.multipleChoice(let set), .choices(let codes)):
            let known = codes.filter { set.contains(code: $0) }
            guard !known.isEmpty else { return nil }
            self = .choices(known)
        case (.multipleChoice(let set), .text(let text)):
            var codes: [String] = []
            for code in text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) where !codes.contains(code) {
                guard set.contains(code: code) else { return nil }
                codes.append(code)
            }
            guard !codes.isEmpty else { return nil }
            self = .choices(codes)
        default: return nil
        }
    }
}
