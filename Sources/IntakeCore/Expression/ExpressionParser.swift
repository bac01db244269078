import Foundation

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
                throw ExpressionError(
                    column: column, message: "'\(word)' stands where a value should",
                    hint: "a value, a question id or a function call is missing")
            default: break
            }
            guard takeSymbol("(") else { return .name(word, column: column) }
            var arguments: [Expression] = []
            if !takeSymbol(")") {
                repeat { arguments.append(try parseOr()) } while takeSymbol(",")
                guard takeSymbol(")") else {
                    throw ExpressionError(
                        column: current.column, message: "the call of \(word)() is not closed",
                        hint: "separate arguments with ',' and end with ')'")
                }
            }
            return .call(word.lowercased(), arguments, column: column)
        default:
            throw ExpressionError(column: column, message: "a value is missing before \(token.description)")
        }
    }
}
