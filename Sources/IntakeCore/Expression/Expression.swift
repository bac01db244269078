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
                throw ExpressionError(column: column, message: "\(name)() takes \(wanted) argument\(arity.upperBound == 1 ? "" : "s"), not \(arguments.count)")
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

/// The tokens of an expression, with the column each starts at.
enum ExpressionLexer {
    enum Token: Equatable, CustomStringConvertible {
        case number(Double)
        case text(String)
        case date(LocalDate)
        case word(String)
        case symbol(String)
        case end

        var description: String {
            switch self {
            case .number(let value): "number \(value)"
            case .text: "text"
            case .date(let date): "date \(date)"
            case .word(let word): "'\(word)'"
            case .symbol(let symbol): "'\(symbol)'"
            case .end: "end of the expression"
            }
        }
    }

    static func tokens(_ chars: [Character], startColumn: Int) throws(ExpressionError) -> [(token: Token, column: Int)] {
        var tokens: [(Token, Int)] = []
        var index = 0
        while index < chars.count {
            let character = chars[index]
            let column = startColumn + index
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "\"" || character == "'" {
                var end = index + 1
                while end < chars.count, chars[end] != character { end += 1 }
                guard end < chars.count else {
                    throw ExpressionError(column: column, message: "this text is not closed", hint: "end it with \(character)")
                }
                tokens.append((.text(String(chars[(index + 1)..<end])), column))
                index = end + 1
                continue
            }
            if character.isASCII, character.isNumber {
                var end = index
                while end < chars.count, chars[end].isASCII, chars[end].isNumber || chars[end] == "." || chars[end] == "-" { end += 1 }
                let text = String(chars[index..<end])
                if text.count == 10, text.filter({ $0 == "-" }).count == 2 {
                    guard let date = LocalDate(iso: text) else {
                        throw ExpressionError(column: column, message: "\(text) is not a date", hint: "write dates as YYYY-MM-DD")
                    }
                    tokens.append((.date(date), column))
                } else {
                    // A minus after digits is subtraction: take the number up to it.
                    let digits = text.prefix { $0 != "-" }
                    guard let value = Double(digits), digits.filter({ $0 == "." }).count <= 1 else {
                        throw ExpressionError(column: column, message: "\(digits) is not a number")
                    }
                    tokens.append((.number(value), column))
                    end = index + digits.count
                }
                index = end
                continue
            }
            if character.isLetter || character == "_" {
                var end = index
                // Letters, digits, _ and - inside a word (count-selected); a - before a space is not.
                while end < chars.count,
                    chars[end].isLetter || chars[end].isNumber || chars[end] == "_"
                        || (chars[end] == "-" && end + 1 < chars.count && chars[end + 1].isLetter && end > index)
                {
                    end += 1
                }
                var word = String(chars[index..<end])
                // Only a function's name holds a '-': `weight-height` is a subtraction.
                if word.contains("-"), Expression.functions[word.lowercased()] == nil {
                    word = String(word.prefix { $0 != "-" })
                    end = index + word.count
                }
                tokens.append((.word(word), column))
                index = end
                continue
            }
            if character == "$", index + 1 < chars.count, chars[index + 1] == "{" {
                // XLSForm's `${weight}`: the question `weight`.
                guard let close = chars[index...].firstIndex(of: "}"), close > index + 2 else {
                    throw ExpressionError(column: column, message: "'${' is not closed", hint: "write ${question_id}")
                }
                tokens.append((.word(String(chars[(index + 2)..<close])), column))
                index = close + 1
                continue
            }
            if character == ".", !(index + 1 < chars.count && chars[index + 1].isASCII && chars[index + 1].isNumber) {
                // `.`: the answer itself, in a constraint.
                tokens.append((.word("."), column))
                index += 1
                continue
            }
            let two = index + 1 < chars.count ? String(chars[index...(index + 1)]) : ""
            if ["!=", "<=", ">="].contains(two) {
                tokens.append((.symbol(two), column))
                index += 2
                continue
            }
            guard "+-*/()=<>,".contains(character) else {
                throw ExpressionError(
                    column: column, message: "'\(character)' has no meaning here", hint: "operators are + - * / mod = != < <= > >= and or not")
            }
            tokens.append((.symbol(String(character)), column))
            index += 1
        }
        tokens.append((.end, startColumn + chars.count))
        return tokens
    }
}

/// A recursive-descent parser over ``ExpressionLexer``'s tokens.
struct ExpressionParser {
    var tokens: [(token: ExpressionLexer.Token, column: Int)]
    var position = 0
    /// How deep the parser is: a bound, so a pathological line is an error, not a stack overflow.
    var depth = 0
    static let maximumDepth = 64

    var current: (token: ExpressionLexer.Token, column: Int) { tokens[position] }

    mutating func advance() { position = min(position + 1, tokens.count - 1) }

    mutating func take(_ word: String) -> Bool {
        if case .word(let found) = current.token, found.lowercased() == word {
            advance()
            return true
        }
        return false
    }

    mutating func takeSymbol(_ symbol: String) -> Bool {
        if case .symbol(symbol) = current.token {
            advance()
            return true
        }
        return false
    }

    mutating func deeper() throws(ExpressionError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw ExpressionError(column: current.column, message: "the expression nests deeper than \(Self.maximumDepth) levels")
        }
    }

    mutating func parseOr() throws(ExpressionError) -> Expression {
        try deeper()
        defer { depth -= 1 }
        var parts = [try parseAnd()]
        while take("or") { parts.append(try parseAnd()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func parseAnd() throws(ExpressionError) -> Expression {
        var parts = [try parseNot()]
        while take("and") { parts.append(try parseNot()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func parseNot() throws(ExpressionError) -> Expression {
        if take("not") {
            try deeper()
            defer { depth -= 1 }
            return .not(try parseNot())
        }
        return try parseComparison()
    }

    mutating func parseComparison() throws(ExpressionError) -> Expression {
        let left = try parseSum()
        if take("is") {
            let negated = take("not")
            guard take("answered") else {
                throw ExpressionError(column: current.column, message: "'is' is followed by 'answered' or 'not answered'")
            }
            return .answered(left, !negated)
        }
        if case .symbol(let symbol) = current.token, let op = ComparisonOperator(rawValue: symbol) {
            advance()
            return .compare(op, left, try parseSum())
        }
        return left
    }

    /// One more operand of a `+`/`*` chain: every fourth counts as a level of nesting.
    mutating func countOperand(_ operands: inout Int, _ added: inout Int) throws(ExpressionError) {
        operands += 1
        guard operands % 4 == 0 else { return }
        try deeper()
        added += 1
    }

    mutating func parseSum() throws(ExpressionError) -> Expression {
        var result = try parseProduct()
        // Each operand nests the tree one level deeper (`a + b + c` is `(a + b) + c`), which the
        // walks over it recurse through: every fourth counts as a level, so a sum of a 90-item
        // inventory reads and a line of thousands of terms is refused.
        var added = 0, operands = 0
        defer { depth -= added }
        while true {
            if case .symbol(let symbol) = current.token, symbol == "+" || symbol == "-" { try countOperand(&operands, &added) }
            if takeSymbol("+") {
                result = .arithmetic(.add, result, try parseProduct())
            } else if takeSymbol("-") {
                result = .arithmetic(.subtract, result, try parseProduct())
            } else {
                return result
            }
        }
    }

    mutating func parseProduct() throws(ExpressionError) -> Expression {
        var result = try parseUnary()
        var added = 0, operands = 0
        defer { depth -= added }
        while true {
            if case .symbol(let symbol) = current.token, symbol == "*" || symbol == "/" { try countOperand(&operands, &added) }
            if case .word(let word) = current.token, word.lowercased() == "mod" { try countOperand(&operands, &added) }
            if takeSymbol("*") {
                result = .arithmetic(.multiply, result, try parseUnary())
            } else if takeSymbol("/") {
                result = .arithmetic(.divide, result, try parseUnary())
            } else if take("mod") {
                result = .arithmetic(.modulo, result, try parseUnary())
            } else {
                return result
            }
        }
    }

    mutating func parseUnary() throws(ExpressionError) -> Expression {
        if takeSymbol("-") {
            try deeper()
            defer { depth -= 1 }
            return .negate(try parseUnary())
        }
        return try parsePrimary()
    }

    mutating func parsePrimary() throws(ExpressionError) -> Expression {
        let (token, column) = current
        switch token {
        case .number(let value):
            advance()
            return .number(value)
        case .text(let text):
            advance()
            return .text(text)
        case .date(let date):
            advance()
            return .date(date)
        case .symbol("("):
            advance()
            let inner = try parseOr()
            guard takeSymbol(")") else { throw ExpressionError(column: current.column, message: "a '(' is not closed", hint: "add ')'") }
            return inner
        case .word(let word):
            advance()
            switch word.lowercased() {
            case "yes", "true": return .bool(true)
            case "no", "false": return .bool(false)
            case "and", "or", "not", "mod", "is", "answered":
                throw ExpressionError(column: column, message: "'\(word)' stands where a value should", hint: "a value, a question id or a function call is missing")
            default: break
            }
            guard takeSymbol("(") else { return .name(word, column: column) }
            var arguments: [Expression] = []
            if !takeSymbol(")") {
                repeat { arguments.append(try parseOr()) } while takeSymbol(",")
                guard takeSymbol(")") else {
                    throw ExpressionError(column: current.column, message: "the call of \(word)() is not closed", hint: "separate arguments with ',' and end with ')'")
                }
            }
            return .call(word.lowercased(), arguments, column: column)
        default:
            throw ExpressionError(column: column, message: "a value is missing before \(token.description)")
        }
    }
}
