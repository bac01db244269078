import Foundation

/// A show-if condition on earlier answers, e.g. `cough = yes and cough_days > 14`.
public enum Condition: Sendable, Hashable {
    case compare(QuestionPosition, ComparisonOperator, ConditionValue)
    /// The answer (single choice, or any of a multiple choice's) is one of these values.
    case anyOf(QuestionPosition, [ConditionValue])
    /// `x is answered` (true) or `x is not answered` (false).
    case answered(QuestionPosition, Bool)
    case and([Condition])
    case or([Condition])
    indirect case not(Condition)
    /// A condition in the full expression language (`age(date_of_birth) >= 15 and pregnant = yes`).
    case expression(BoundExpression)

    /// The questions this condition reads.
    public var references: [QuestionPosition] {
        switch self {
        case .compare(let p, _, _), .anyOf(let p, _), .answered(let p, _): [p]
        case .and(let parts), .or(let parts): parts.flatMap(\.references)
        case .not(let inner): inner.references
        case .expression(let bound): bound.positions.values.sorted()
        }
    }

    /// Evaluates the condition; `answer` returns nil for unanswered or hidden questions, and a
    /// comparison with an unanswered question is false.
    public func isSatisfied(by answer: (QuestionPosition) -> Answer?) -> Bool {
        switch self {
        case .compare(let position, let op, let value):
            guard let given = answer(position), let order = value.compare(with: given) else { return false }
            return op.holds(for: order)
        case .anyOf(let position, let values):
            switch answer(position) {
            case .choice(let code): return values.contains(.code(code))
            case .choices(let codes): return codes.contains { values.contains(.code($0)) }
            case let other?: return values.contains { $0.compare(with: other) == .orderedSame }
            case nil: return false
            }
        case .answered(let position, let expected):
            return (answer(position) != nil) == expected
        case .and(let parts):
            return parts.allSatisfy { $0.isSatisfied(by: answer) }
        case .or(let parts):
            return parts.contains { $0.isSatisfied(by: answer) }
        case .not(let inner):
            return !inner.isSatisfied(by: answer)
        case .expression(let bound):
            return bound.holds(answer: answer)
        }
    }
}

public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    var isOrdering: Bool { self != .equal && self != .notEqual }

    func holds(for order: ValueOrder) -> Bool {
        switch self {
        case .equal: order == .orderedSame
        case .notEqual: order != .orderedSame
        case .less: order == .orderedAscending
        case .lessOrEqual: order != .orderedDescending
        case .greater: order == .orderedDescending
        case .greaterOrEqual: order != .orderedAscending
        }
    }
}

/// How an answer compares with a condition's value.
public enum ValueOrder: Sendable { case orderedAscending, orderedSame, orderedDescending }

/// A literal in a condition, typed by the question it is compared with when the file is loaded.
public enum ConditionValue: Sendable, Hashable {
    case yesNo(Bool)
    case code(String)
    case integer(Int)
    case decimal(Double)
    case date(LocalDate)
    case text(String)

    /// Orders `answer` relative to this value, or nil when they cannot be compared.
    func compare(with answer: Answer) -> ValueOrder? {
        switch (answer, self) {
        case (.yesNo(let a), .yesNo(let b)): return a == b ? .orderedSame : .orderedAscending
        case (.choice(let a), .code(let b)): return a == b ? .orderedSame : .orderedAscending
        case (.choices(let a), .code(let b)): return a.contains(b) ? .orderedSame : .orderedAscending
        case (.integer(let a), .integer(let b)): return order(a, b)
        case (.integer(let a), .decimal(let b)): return order(Double(a), b)
        case (.decimal(let a), .decimal(let b)): return order(a, b)
        case (.decimal(let a), .integer(let b)): return order(a, Double(b))
        case (.date(let a), .date(let b)): return order(a, b)
        case (.text(let a), .text(let b)):
            return a.compare(b, options: [.caseInsensitive]) == .orderedSame ? .orderedSame : .orderedAscending
        default: return nil
        }
    }

    private func order<T: Comparable>(_ a: T, _ b: T) -> ValueOrder {
        a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
    }
}
