import Foundation

/// An ``Expression`` made ready to evaluate: each question id it reads becomes a numbered read,
/// each function name a case, once, when the questionnaire is read. Evaluating it then hashes no
/// id and compares no function name: the tree form looked every id up in a dictionary of
/// strings at every read, a fifth of settling a record's show-if and calculations on the server.
/// ``ExpressionEvaluator`` evaluates only this form (the tree form is compiled first).
indirect enum CompiledExpression: Sendable {
    case value(ExpressionValue)
    /// The answer of the question read under this number.
    case read(Int)
    case negate(CompiledExpression)
    case arithmetic(Expression.ArithmeticOperator, CompiledExpression, CompiledExpression)
    case compare(ComparisonOperator, CompiledExpression, CompiledExpression)
    case answered(CompiledExpression, Bool)
    case and([CompiledExpression])
    case or([CompiledExpression])
    case not(CompiledExpression)
    case call(ExpressionFunction, [CompiledExpression])
    /// `sum()` or `count()` over a repeat's instances, of the read under this number (nil when the
    /// first argument names no question).
    case total(ExpressionFunction, Int?)
    /// A function no questionnaire may call (the parser refuses it): missing.
    case unknownCall

    /// `expression` compiled; `number` gives the read number of a question id (the same number
    /// for the same id).
    init(_ expression: Expression, number: (String) -> Int) {
        switch expression {
        case .number(let value): self = .value(.number(value))
        case .text(let value): self = .value(.text(value))
        case .date(let value): self = .value(.date(value))
        case .bool(let value): self = .value(.bool(value))
        case .name(let id, _): self = .read(number(id))
        case .negate(let inner): self = .negate(CompiledExpression(inner, number: number))
        case .arithmetic(let op, let a, let b):
            self = .arithmetic(op, CompiledExpression(a, number: number), CompiledExpression(b, number: number))
        case .compare(let op, let a, let b):
            self = .compare(op, CompiledExpression(a, number: number), CompiledExpression(b, number: number))
        case .answered(let inner, let expected): self = .answered(CompiledExpression(inner, number: number), expected)
        case .and(let parts): self = .and(parts.map { CompiledExpression($0, number: number) })
        case .or(let parts): self = .or(parts.map { CompiledExpression($0, number: number) })
        case .not(let inner): self = .not(CompiledExpression(inner, number: number))
        case .call(let name, let arguments, _):
            guard let function = ExpressionFunction(rawValue: name) else {
                self = .unknownCall
                return
            }
            if function == .sum || function == .count {
                if case .name(let id, _)? = arguments.first { self = .total(function, number(id)) } else { self = .total(function, nil) }
                return
            }
            self = .call(function, arguments.map { CompiledExpression($0, number: number) })
        }
    }
}

/// The functions an expression may call (``Expression/functions`` has how many arguments each takes).
enum ExpressionFunction: String, Sendable {
    case `if`, coalesce, concat, round, today, age, number, int, pow, length, contains, matches, lower, upper, substr, sum, count
    case selected, min, max, abs
    case yearsBetween = "years-between"
    case daysBetween = "days-between"
    case countSelected = "count-selected"
}
