import Foundation

/// An expression over a record's answers, as a questionnaire writes it for a calculation, a
/// constraint or a condition: `weight / ((height / 100) * (height / 100))`,
/// `if(phq_1 + phq_2 >= 3, "positive", "negative")`, `visit_date > date_of_birth`.
///
/// Grammar (lowest precedence first):
/// `or := and ("or" and)*`, `and := not ("and" not)*`, `not := "not" not | comparison`,
/// `comparison := sum [op sum] | sum "is" ["not"] "answered"` with op one of `= != < <= > >=`,
/// `sum := product (("+" | "-") product)*`, `product := unary (("*" | "/" | "mod") unary)*`,
/// `unary := "-" unary | primary`, `primary := number | "text" | 'text' | YYYY-MM-DD | yes | no |
/// name "(" [or ("," or)*] ")" | name | "(" or ")"`.
///
/// A name is a question id; a name that is no question's (`fever` in `symptoms = fever`) is the
/// text it spells, as a choice's code. Evaluating never fails: an unanswered question is
/// *missing*, arithmetic with a missing value or a division by zero is missing, and a comparison
/// with a missing value is false (see ``ExpressionValue``). In a constraint, `.` is the answer
/// being checked.
public indirect enum Expression: Sendable, Hashable {
    case number(Double)
    case text(String)
    case date(LocalDate)
    case bool(Bool)
    /// A question's answer by id (or, when no question has that id, the word as text).
    case name(String, column: Int)
    case negate(Expression)
    case arithmetic(ArithmeticOperator, Expression, Expression)
    case compare(ComparisonOperator, Expression, Expression)
    case answered(Expression, Bool)
    case and([Expression])
    case or([Expression])
    case not(Expression)
    case call(String, [Expression], column: Int)

    public enum ArithmeticOperator: String, Sendable, Hashable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", modulo = "mod"
    }

    /// The question ids the expression reads (names that are not questions included, until
    /// ``resolved(questions:)``).
    public var names: [String] {
        switch self {
        case .number, .text, .date, .bool: []
        case .name(let name, _): [name]
        case .negate(let inner), .answered(let inner, _), .not(let inner): inner.names
        case .arithmetic(_, let a, let b), .compare(_, let a, let b): a.names + b.names
        case .and(let parts), .or(let parts), .call(_, let parts, _): parts.flatMap(\.names)
        }
    }

    /// The expression with names that are no question's turned into text (choice codes).
    public func resolved(questions: Set<String>) -> Expression {
        switch self {
        case .number, .text, .date, .bool: self
        case .name(let name, _): questions.contains(name) ? self : .text(name)
        case .negate(let inner): .negate(inner.resolved(questions: questions))
        case .answered(let inner, let expected): .answered(inner.resolved(questions: questions), expected)
        case .not(let inner): .not(inner.resolved(questions: questions))
        case .arithmetic(let op, let a, let b): .arithmetic(op, a.resolved(questions: questions), b.resolved(questions: questions))
        case .compare(let op, let a, let b): .compare(op, a.resolved(questions: questions), b.resolved(questions: questions))
        case .and(let parts): .and(parts.map { $0.resolved(questions: questions) })
        case .or(let parts): .or(parts.map { $0.resolved(questions: questions) })
        case .call(let name, let arguments, let column): .call(name, arguments.map { $0.resolved(questions: questions) }, column: column)
        }
    }
}

/// A mistake in an expression, at a column of its line (1-based), with how to fix it.
public struct ExpressionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var column: Int
    public var message: String
    public var hint: String?

    public init(column: Int, message: String, hint: String? = nil) {
        self.column = column
        self.message = message
        self.hint = hint
    }

    public var description: String { "column \(column): \(message)" + (hint.map { " (\($0))" } ?? "") }
}

extension Expression {
    /// The functions an expression may call, with how many arguments each takes.
    public static let functions: [String: ClosedRange<Int>] = [
        "if": 3...3, "coalesce": 1...16, "concat": 1...16, "round": 1...2, "today": 0...0, "age": 1...1, "years-between": 2...2,
        "days-between": 2...2, "count-selected": 1...1, "selected": 2...2, "min": 1...16, "max": 1...16, "abs": 1...1,
        "number": 1...1, "int": 1...1, "pow": 2...2, "length": 1...1, "contains": 2...2, "matches": 2...2, "lower": 1...1,
        "upper": 1...1, "substr": 2...3, "sum": 1...1, "count": 1...1,
    ]

    /// Parses `text`, whose first character is at `startColumn` of its line.
    public static func parse(_ text: String, startColumn: Int = 1) throws(ExpressionError) -> Expression {
        var parser = ExpressionParser(tokens: try ExpressionLexer.tokens(Array(text), startColumn: startColumn))
        let expression = try parser.parseOr()
        guard case .end = parser.current.token else {
            throw ExpressionError(
                column: parser.current.column, message: "unexpected \(parser.current.token.description)",
                hint: "join parts with an operator, 'and' or 'or'; call functions as name(argument, …)")
        }
        return expression
    }

    /// Checks the calls (known functions, their number of arguments) and that every name that
    /// reads a question reads one of `questions`, at the column it is written at.
    public func check(questions: Set<String>) throws(ExpressionError) {
        switch self {
        case .number, .text, .date, .bool, .name: return
        case .negate(let inner), .answered(let inner, _), .not(let inner): try inner.check(questions: questions)
        case .arithmetic(_, let a, let b), .compare(_, let a, let b):
            try a.check(questions: questions)
            try b.check(questions: questions)
        case .and(let parts), .or(let parts):
            for part in parts { try part.check(questions: questions) }
        case .call(let name, let arguments, let column):
            guard let arity = Self.functions[name] else {
                throw ExpressionError(
                    column: column, message: "there is no function \(name)()",
                    hint: "the functions are " + Self.functions.keys.sorted().map { "\($0)()" }.joined(separator: ", "))
            }
            guard arity.contains(arguments.count) else {
                let wanted = arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)"
                throw ExpressionError(
                    column: column, message: "\(name)() takes \(wanted) argument\(arity.upperBound == 1 ? "" : "s"), not \(arguments.count)"
                )
            }
            if name == "matches", case .text(let pattern) = arguments[1], CompiledPattern(pattern) == nil {
                throw ExpressionError(
                    column: column, message: "'\(pattern)' is not a valid regular expression",
                    hint: "check its brackets and escapes; matches() checks the whole text")
            }
            if ["count-selected", "selected", "sum", "count"].contains(name) {
                guard case .name(let id, _) = arguments[0], questions.contains(id) else {
                    throw ExpressionError(column: column, message: "\(name)() reads a question: give its id as the first argument")
                }
            }
            for argument in arguments { try argument.check(questions: questions) }
        }
    }
}
