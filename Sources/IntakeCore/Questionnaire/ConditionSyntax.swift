/// A show-if condition as written, before its ids and values are checked against the questions.
indirect enum ConditionSyntax {
    struct Reference {
        var id: String
        var column: Int
    }

    struct Literal {
        var text: String
        var column: Int
    }

    case compare(Reference, ComparisonOperator, Literal)
    case anyOf(Reference, [Literal])
    case answered(Reference, Bool)
    case and([ConditionSyntax])
    case or([ConditionSyntax])
    case not(ConditionSyntax)
}

/// A syntax error in a condition, at a column of the line.
struct ConditionSyntaxError: Error {
    var column: Int
    var message: String
    var hint: String?
}

/// Parses `cough = yes and (days > 14 or symptoms any of (fever, "night sweats"))`.
///
/// Grammar: `or := and ("or" and)*`, `and := unary ("and" unary)*`,
/// `unary := "not" unary | "(" or ")" | id op value | id "any of" "(" values ")" | id "is" ["not"] "answered"`.
struct ConditionParser {
    private enum Token: Equatable {
        case word(String)
        case quoted(String)
        case symbol(String)
        case end
    }

    private var tokens: [(token: Token, column: Int)] = []
    private var position = 0

    /// - Parameter startColumn: the column of `text`'s first character in its line.
    static func parse(_ text: String, startColumn: Int) throws(ConditionSyntaxError) -> ConditionSyntax {
        var parser = ConditionParser()
        try parser.tokenize(Array(text), startColumn: startColumn)
        let result = try parser.parseOr()
        if parser.current.token != .end {
            throw ConditionSyntaxError(
                column: parser.current.column, message: "unexpected \(parser.describe(parser.current.token)) in show-if condition",
                hint: "join conditions with 'and' or 'or', e.g. 'show if: cough = yes and cough_days > 14'")
        }
        return result
    }

    private var current: (token: Token, column: Int) { tokens[position] }

    private mutating func advance() { position = min(position + 1, tokens.count - 1) }

    private mutating func tokenize(_ chars: [Character], startColumn: Int) throws(ConditionSyntaxError) {
        var i = 0
        while i < chars.count {
            let c = chars[i], column = startColumn + i
            if c.isWhitespace {
                i += 1
            } else if c == "\"" {
                var j = i + 1
                var value = ""
                while j < chars.count, chars[j] != "\"" { value.append(chars[j]); j += 1 }
                guard j < chars.count else {
                    throw ConditionSyntaxError(column: column, message: "unterminated quoted value", hint: "close it with \"")
                }
                tokens.append((.quoted(value), column))
                i = j + 1
            } else if "(),".contains(c) {
                tokens.append((.symbol(String(c)), column))
                i += 1
            } else if "=<>!".contains(c) {
                var op = ""
                while i < chars.count, "=<>!".contains(chars[i]) { op.append(chars[i]); i += 1 }
                guard ComparisonOperator(rawValue: op) != nil else {
                    throw ConditionSyntaxError(
                        column: column, message: "unknown operator '\(op)'", hint: "use one of = != < <= > >=")
                }
                tokens.append((.symbol(op), column))
            } else {
                var word = ""
                while i < chars.count, !chars[i].isWhitespace, !"()=<>!,\"".contains(chars[i]) {
                    word.append(chars[i]); i += 1
                }
                tokens.append((.word(word), column))
            }
        }
        tokens.append((.end, startColumn + chars.count))
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .word(let w): "'\(w)'"
        case .quoted(let q): "\"\(q)\""
        case .symbol(let s): "'\(s)'"
        case .end: "end of condition"
        }
    }

    private func isKeyword(_ keyword: String) -> Bool {
        if case .word(let w) = current.token { return w.lowercased() == keyword }
        return false
    }

    private mutating func parseOr() throws(ConditionSyntaxError) -> ConditionSyntax {
        var parts = [try parseAnd()]
        while isKeyword("or") {
            advance()
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws(ConditionSyntaxError) -> ConditionSyntax {
        var parts = [try parseUnary()]
        while isKeyword("and") {
            advance()
            parts.append(try parseUnary())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func parseUnary() throws(ConditionSyntaxError) -> ConditionSyntax {
        if isKeyword("not") {
            advance()
            return .not(try parseUnary())
        }
        if current.token == .symbol("(") {
            advance()
            let inner = try parseOr()
            try expect(.symbol(")"), "close the parenthesis with ')'")
            return inner
        }
        guard case .word(let id) = current.token, Self.isIdentifier(id) else {
            throw ConditionSyntaxError(
                column: current.column, message: "expected a question id, found \(describe(current.token))",
                hint: "conditions compare an earlier question's id with a value, e.g. 'cough = yes'")
        }
        let reference = ConditionSyntax.Reference(id: id, column: current.column)
        advance()
        return try parseTest(on: reference)
    }

    private mutating func parseTest(on reference: ConditionSyntax.Reference) throws(ConditionSyntaxError)
        -> ConditionSyntax
    {
        if case .symbol(let s) = current.token, let op = ComparisonOperator(rawValue: s) {
            advance()
            return .compare(reference, op, try parseLiteral())
        }
        if isKeyword("any") {
            advance()
            guard isKeyword("of") else {
                throw ConditionSyntaxError(column: current.column, message: "expected 'of' after 'any'", hint: "write 'x any of (a, b)'")
            }
            advance()
            try expect(.symbol("("), "list the values in parentheses: 'x any of (a, b)'")
            var values = [try parseLiteral()]
            while current.token == .symbol(",") {
                advance()
                values.append(try parseLiteral())
            }
            try expect(.symbol(")"), "close the list of values with ')'")
            return .anyOf(reference, values)
        }
        if isKeyword("is") {
            advance()
            var expected = true
            if isKeyword("not") { expected = false; advance() }
            guard isKeyword("answered") else {
                throw ConditionSyntaxError(
                    column: current.column, message: "expected 'answered'", hint: "write 'x is answered' or 'x is not answered'")
            }
            advance()
            return .answered(reference, expected)
        }
        throw ConditionSyntaxError(
            column: current.column, message: "expected a comparison after '\(reference.id)', found \(describe(current.token))",
            hint: "use = != < <= > >=, 'any of (…)', or 'is answered'")
    }

    private mutating func parseLiteral() throws(ConditionSyntaxError) -> ConditionSyntax.Literal {
        switch current.token {
        case .word(let w), .quoted(let w):
            let literal = ConditionSyntax.Literal(text: w, column: current.column)
            advance()
            return literal
        default:
            throw ConditionSyntaxError(
                column: current.column, message: "expected a value, found \(describe(current.token))",
                hint: "write the value after the operator; quote values with spaces: \"night sweats\"")
        }
    }

    private mutating func expect(_ token: Token, _ hint: String) throws(ConditionSyntaxError) {
        guard current.token == token else {
            throw ConditionSyntaxError(
                column: current.column, message: "expected \(describe(token)), found \(describe(current.token))", hint: hint)
        }
        advance()
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.isASCIILetter || first == "_" else {
            return false
        }
        return s.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
    }
}
