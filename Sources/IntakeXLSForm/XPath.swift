import Foundation
import IntakeCore

/// XLSForm's expressions (ODK's XPath subset, questions written `${name}`) read into Intake's
/// expression language, and Intake's written back: one place for both directions, so what is
/// exported reads back as it was.
///
/// | XLSForm | Intake |
/// |---|---|
/// | `${q}`, `.` | `q`, `.` |
/// | `'text'`, `"text"`, `12`, `date('2024-03-15')`, `true()`, `false()` | the same literals |
/// | `div`, `mod`, `=`, `!=`, `<` … `and`, `or`, `not(x)` | `/`, `mod`, the same, `not x` |
/// | `${q} = ''`, `${q} != ''` | `q is not answered`, `q is answered` |
/// | `${yn} = 'yes'` (a yes/no question) | `yn = yes` |
/// | `selected(${q}, 'a')` on a multiple choice | `selected(q, "a")` (written back as `q = a` reads) |
/// | `string-length(x)`, `regex(x, 'p')`, `substr(s, start, end)` | `length(x)`, `matches(x, …)`, `substr(s, start, length)` |
/// | `if`, `coalesce`, `concat`, `round`, `int`, `pow`, `abs`, `min`, `max`, `number`, `sum`, `count`, `count-selected`, `selected`, `today`, `contains` | the same |
///
/// Intake's `age()`, `years-between()`, `days-between()`, `lower()`, `upper()` are written as
/// they are (pyxform keeps them; ODK Collect does not know them).
enum XPath {
    struct Failure: Error {
        var message: String
        var hint: String
    }

    /// What reading needs to know of the form's questions.
    struct Names {
        /// Questions answered yes or no: `'yes'` compared with one is Intake's `yes`.
        var yesNo: Set<String> = []
        /// Multiple-choice questions: `= code` is written back with `selected()`.
        var multiple: Set<String> = []
        /// Every question and patient field a `${…}` may name.
        var known: Set<String> = []
        /// Names Intake gave questions whose XLSForm names it cannot take: `${a-b}` reads `a_b`.
        var renamed: [String: String] = [:]
        /// Codes Intake gave choices whose names it cannot take, by question: `'24/7'` is `24_7`.
        var codes: [String: [String: String]] = [:]
    }

    // MARK: Reading

    static func read(_ text: String, names: Names) throws(Failure) -> Expression {
        var parser = Parser(tokens: try lex(text), names: names)
        let expression = try parser.or()
        guard parser.position == parser.tokens.count else {
            throw Failure(
                message: "unexpected \(parser.tokens[parser.position].shown) in '\(text)'",
                hint: "join parts with an operator, 'and' or 'or'")
        }
        return expression
    }

    enum Token: Equatable {
        case reference(String), dot, number(Double), text(String), name(String), symbol(String)

        var shown: String {
            switch self {
            case .reference(let name): "${\(name)}"
            case .dot: "'.'"
            case .number(let value): "\(value)"
            case .text(let value): "'\(value)'"
            case .name(let name): "'\(name)'"
            case .symbol(let symbol): "'\(symbol)'"
            }
        }
    }

    static func lex(_ text: String) throws(Failure) -> [Token] {
        let chars = Array(text)
        var tokens: [Token] = []
        var index = 0
        while index < chars.count {
            let c = chars[index]
            if c.isWhitespace {
                index += 1
            } else if c == "$", index + 1 < chars.count, chars[index + 1] == "{" {
                guard let close = chars[index...].firstIndex(of: "}") else {
                    throw Failure(message: "'${' is not closed in '\(text)'", hint: "write ${question_name}")
                }
                tokens.append(.reference(String(chars[(index + 2)..<close]).trimmingCharacters(in: .whitespaces)))
                index = close + 1
            } else if c == "'" || c == "\"" {
                guard let close = chars[(index + 1)...].firstIndex(of: c) else {
                    throw Failure(message: "a text in '\(text)' is not closed", hint: "end it with \(c)")
                }
                tokens.append(.text(String(chars[(index + 1)..<close])))
                index = close + 1
            } else if c.isASCII && c.isNumber
                || c == "." && index + 1 < chars.count && chars[index + 1].isASCII && chars[index + 1].isNumber
            {
                var end = index
                while end < chars.count, chars[end].isASCII, chars[end].isNumber || chars[end] == "." { end += 1 }
                guard let value = Double(String(chars[index..<end])) else {
                    throw Failure(message: "'\(String(chars[index..<end]))' is not a number", hint: "write numbers as 12 or 37.5")
                }
                tokens.append(.number(value))
                index = end
            } else if c == "." {
                guard !(index + 1 < chars.count && chars[index + 1] == ".") else {
                    throw Failure(
                        message: "'..' (the parent node) in '\(text)' has no Intake equivalent", hint: "name the question with ${name}")
                }
                tokens.append(.dot)
                index += 1
            } else if c.isLetter || c == "_" {
                var end = index
                while end < chars.count, chars[end].isLetter || chars[end].isNumber || "_-.:".contains(chars[end]) { end += 1 }
                tokens.append(.name(String(chars[index..<end])))
                index = end
            } else if let symbol = ["!=", "<=", ">=", "=", "<", ">", "+", "-", "*", "(", ")", ","].first(where: {
                chars[index...].starts(with: Array($0))
            }) {
                tokens.append(.symbol(symbol))
                index += symbol.count
            } else {
                throw Failure(
                    message: "'\(c)' in '\(text)' has no Intake equivalent",
                    hint: c == "/"
                        ? "divide with 'div'; paths to other nodes cannot be read, name the question with ${name}"
                        : "Intake reads ${name}, literals, arithmetic, comparisons, and, or, not() and functions")
            }
        }
        return tokens
    }

    struct Parser {
        var tokens: [Token]
        var names: Names
        var position = 0
        var depth = 0

        init(tokens: [Token], names: Names) {
            self.tokens = tokens
            self.names = names
        }

        var current: Token? { position < tokens.count ? tokens[position] : nil }

        mutating func take(_ token: Token) -> Bool {
            guard current == token else { return false }
            position += 1
            return true
        }

        /// An operator word (`and`, `div`): where an operator may stand, a name is one.
        mutating func takeWord(_ word: String) -> Bool {
            guard current == .name(word) else { return false }
            position += 1
            return true
        }

        mutating func or() throws(Failure) -> Expression {
            var parts = [try and()]
            while takeWord("or") { parts.append(try and()) }
            return parts.count == 1 ? parts[0] : .or(parts)
        }

        mutating func and() throws(Failure) -> Expression {
            var parts = [try equality()]
            while takeWord("and") { parts.append(try equality()) }
            return parts.count == 1 ? parts[0] : .and(parts)
        }

        mutating func equality() throws(Failure) -> Expression {
            let left = try relational()
            for (symbol, op) in [("=", ComparisonOperator.equal), ("!=", .notEqual)] where take(.symbol(symbol)) {
                let right = try relational()
                if case .symbol(let next)? = current, next == "=" || next == "!=" {
                    throw Failure(message: "comparisons are chained ('a = b = c')", hint: "join comparisons with 'and'")
                }
                return compare(op, left, right)
            }
            return left
        }

        /// A choice's name compared with a question, as Intake codes it.
        func coded(_ value: Expression, for subject: Expression) -> Expression {
            guard case .name(let id, _) = subject, case .text(let code) = value, let renamed = names.codes[id]?[code] else { return value }
            return .text(renamed)
        }

        /// A comparison, with XLSForm's idioms turned into Intake's.
        func compare(_ op: ComparisonOperator, _ left: Expression, _ right: Expression) -> Expression {
            let (left, right) = (coded(left, for: right), coded(right, for: left))
            // `${q} = ''`: unanswered.
            for (subject, other) in [(left, right), (right, left)] {
                if case .text("") = other, op == .equal || op == .notEqual, isAnswer(subject) {
                    return .answered(subject, op == .notEqual)
                }
            }
            // `${symptoms} = 'fever'` compares the whole answer: only that one choice is selected.
            for (subject, other) in [(left, right), (right, left)] {
                if case .name(let id, _) = subject, names.multiple.contains(id), case .text(let code) = other, !code.isEmpty,
                    !code.contains(" "), op == .equal || op == .notEqual
                {
                    let exactly = Expression.and([
                        .call("selected", [subject, .text(code)], column: 1),
                        .compare(.equal, .call("count-selected", [subject], column: 1), .number(1)),
                    ])
                    return op == .equal ? exactly : .not(exactly)
                }
            }
            // `${smoker} = 'yes'` for a yes/no question.
            if case .name(let id, _) = left, names.yesNo.contains(id), case .text(let word) = right, word == "yes" || word == "no" {
                return .compare(op, left, .bool(word == "yes"))
            }
            if case .name(let id, _) = right, names.yesNo.contains(id), case .text(let word) = left, word == "yes" || word == "no" {
                return .compare(op, .bool(word == "yes"), right)
            }
            return .compare(op, left, right)
        }

        private func isAnswer(_ expression: Expression) -> Bool {
            if case .name = expression { return true }
            return false
        }

        mutating func relational() throws(Failure) -> Expression {
            var left = try additive()
            while true {
                guard case .symbol(let symbol)? = current,
                    let op = ["<": ComparisonOperator.less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual][symbol]
                else {
                    return left
                }
                position += 1
                if case .compare = left {
                    throw Failure(message: "comparisons are chained ('a < b < c')", hint: "join comparisons with 'and'")
                }
                left = .compare(op, left, try additive())
            }
        }

        mutating func additive() throws(Failure) -> Expression {
            var left = try multiplicative()
            while true {
                if take(.symbol("+")) {
                    left = .arithmetic(.add, left, try multiplicative())
                } else if take(.symbol("-")) {
                    left = .arithmetic(.subtract, left, try multiplicative())
                } else {
                    return left
                }
            }
        }

        mutating func multiplicative() throws(Failure) -> Expression {
            var left = try unary()
            while true {
                if take(.symbol("*")) {
                    left = .arithmetic(.multiply, left, try unary())
                } else if takeWord("div") {
                    left = .arithmetic(.divide, left, try unary())
                } else if takeWord("mod") {
                    left = .arithmetic(.modulo, left, try unary())
                } else {
                    return left
                }
            }
        }

        mutating func unary() throws(Failure) -> Expression {
            if take(.symbol("-")) {
                let inner = try unary()
                if case .number(let value) = inner { return .number(-value) }
                return .negate(inner)
            }
            return try primary()
        }

        mutating func primary() throws(Failure) -> Expression {
            depth += 1
            defer { depth -= 1 }
            guard depth <= 64 else {
                throw Failure(message: "the expression nests deeper than 64 levels", hint: "split it into calculations of their own")
            }
            guard let token = current else {
                throw Failure(
                    message: "the expression ends where a value was expected",
                    hint: "finish the expression, or remove the operator at its end")
            }
            position += 1
            switch token {
            case .number(let value): return .number(value)
            case .text(let value): return .text(value)
            case .dot: return .name(".", column: 1)
            case .reference(let written):
                let name = names.renamed[written] ?? written
                guard names.known.contains(name) else {
                    throw Failure(
                        message: "${\(name)} names no question of the form",
                        hint: "check the spelling against the survey sheet's 'name' column")
                }
                return .name(name, column: 1)
            case .symbol("("):
                let inner = try or()
                guard take(.symbol(")")) else { throw Failure(message: "a '(' is not closed", hint: "close it with ')'") }
                return inner
            case .name(let name):
                guard take(.symbol("(")) else {
                    throw Failure(
                        message: "'\(name)' is neither a ${question} nor a quoted value",
                        hint: "write ${\(name)} for the question, or '\(name)' for the text")
                }
                var arguments: [Expression] = []
                if !take(.symbol(")")) {
                    repeat { arguments.append(try or()) } while take(.symbol(","))
                    guard take(.symbol(")")) else { throw Failure(message: "\(name)( is not closed", hint: "close the call with ')'") }
                }
                return try call(name, arguments)
            case .symbol(let symbol):
                throw Failure(message: "unexpected '\(symbol)'", hint: "check the expression's parentheses and operators")
            }
        }

        func call(_ name: String, _ arguments: [Expression]) throws(Failure) -> Expression {
            func wants(_ count: ClosedRange<Int>) throws(Failure) {
                guard count.contains(arguments.count) else {
                    throw Failure(
                        message:
                            "\(name)() takes \(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)") arguments, not \(arguments.count)",
                        hint: "check the call's commas")
                }
            }
            switch name {
            case "selected" where arguments.count == 2:
                // A followed case's multiple-choice property: Intake's `case.name = code` (includes).
                if case .name(let id, _) = arguments[0], id.hasPrefix("case.") {
                    return .compare(.equal, arguments[0], coded(arguments[1], for: arguments[0]))
                }
                return .call(name, [arguments[0], coded(arguments[1], for: arguments[0])], column: 1)
            case "not":
                try wants(1...1)
                return .not(arguments[0])
            case "true", "false":
                try wants(0...0)
                return .bool(name == "true")
            case "string-length":
                try wants(1...1)
                return .call("length", arguments, column: 1)
            case "string":
                try wants(1...1)
                return .call("concat", arguments, column: 1)
            case "date":
                try wants(1...1)
                guard case .text(let text) = arguments[0], let date = LocalDate(iso: text) else {
                    throw Failure(
                        message: "date() reads a date written 'YYYY-MM-DD' here",
                        hint: "write date('2024-03-15'); other conversions have no Intake equivalent")
                }
                return .date(date)
            case "regex":
                try wants(2...2)
                guard case .text(let pattern) = arguments[1] else {
                    throw Failure(message: "regex() takes its pattern as a quoted text here", hint: "write regex(., '[0-9]+')")
                }
                // Intake's matches() reads the whole text; regex() searches in it.
                if pattern.hasPrefix("^(?:"), pattern.hasSuffix(")$") {
                    return .call("matches", [arguments[0], .text(String(pattern.dropFirst(4).dropLast(2)))], column: 1)
                }
                return .call("matches", [arguments[0], .text(".*(?:" + pattern + ").*")], column: 1)
            case "substr":
                try wants(2...3)
                guard arguments.count == 3 else { return .call("substr", arguments, column: 1) }
                let (start, end) = (arguments[1], arguments[2])
                let length: Expression
                if case .number(let a) = start, case .number(let b) = end {
                    length = .number(b - a)
                } else if case .arithmetic(.add, let a, let l) = end, a == start {
                    length = l
                } else {
                    length = .arithmetic(.subtract, end, start)
                }
                return .call("substr", [arguments[0], start, length], column: 1)
            default:
                guard let arity = Expression.functions[name], !["length", "matches", "substr"].contains(name) else {
                    throw Failure(
                        message: "\(name)() has no Intake equivalent",
                        hint:
                            "Intake's functions are if, coalesce, concat, round, int, pow, abs, min, max, number, sum, count, count-selected, selected, today, string-length, regex, contains, substr, date('YYYY-MM-DD'), true(), false() and not()"
                    )
                }
                try wants(arity)
                return .call(name, arguments, column: 1)
            }
        }
    }

    // MARK: Writing

    /// What writing needs: how each name read is a question, a patient field or a choice code.
    struct Writing {
        var questions: Set<String>
        var yesNo: Set<String>
        var multiple: Set<String>
        /// The case list a follow-up's `case.name` reads, through the question that picks the
        /// case (ODK's `instance('list')/root/item[name=${picker}]/name`); nil: written as text.
        var caseList: String? = nil
        /// That question's name (``casePicker``, unless a question has it).
        var picker = casePicker
        static let casePicker = "intake_case"
    }

    static func write(_ expression: Expression, _ context: Writing) -> String {
        text(expression, context, outer: 0)
    }

    /// Levels: or 1, and 2, = and != 3, < <= > >= 4, + - 5, * div mod 6, unary 7, primary 8.
    private static func text(_ expression: Expression, _ context: Writing, outer: Int) -> String {
        let (body, own): (String, Int)
        switch expression {
        case .number(let value): (body, own) = (ExpressionValue.number(value).text, value < 0 ? 7 : 8)
        case .text(let value): (body, own) = (quoted(value), 8)
        case .date(let value): (body, own) = ("date('\(value)')", 8)
        case .bool(let value): (body, own) = (value ? "true()" : "false()", 8)
        case .name(let name, _): (body, own) = (reference(name, context), 8)
        case .negate(let inner): (body, own) = ("-" + text(inner, context, outer: 7), 7)
        case .arithmetic(let op, let a, let b):
            let level = op == .add || op == .subtract ? 5 : 6
            let symbol =
                switch op {
                case .add: "+"
                case .subtract: "-"
                case .multiply: "*"
                case .divide: "div"
                case .modulo: "mod"
                }
            (body, own) = ("\(text(a, context, outer: level)) \(symbol) \(text(b, context, outer: level + 1))", level)
        case .compare(let op, let a, let b):
            if op == .equal || op == .notEqual, let (id, code) = multipleAndCode(a, b, context) ?? multipleAndCode(b, a, context) {
                let selected = "selected(\(reference(id, context)), \(quoted(code)))"
                (body, own) = (op == .equal ? selected : "not(\(selected))", 8)
            } else {
                let level = op == .equal || op == .notEqual ? 3 : 4
                (body, own) = ("\(side(a, other: b, context)) \(op.rawValue) \(side(b, other: a, context))", level)
            }
        case .answered(let inner, let expected): (body, own) = ("\(text(inner, context, outer: 4)) \(expected ? "!=" : "=") ''", 3)
        case .and(let parts): (body, own) = (parts.map { text($0, context, outer: 3) }.joined(separator: " and "), 2)
        case .or(let parts): (body, own) = (parts.map { text($0, context, outer: 2) }.joined(separator: " or "), 1)
        case .not(let inner): (body, own) = ("not(\(text(inner, context, outer: 0)))", 8)
        case .call(let name, let arguments, _): (body, own) = (call(name, arguments, context), 8)
        }
        return own < outer ? "(\(body))" : body
    }

    /// One side of a comparison; yes and no beside a yes/no question are its choices' codes.
    private static func side(_ expression: Expression, other: Expression, _ context: Writing) -> String {
        if case .bool(let value) = expression, case .name(let id, _) = other, context.yesNo.contains(id) {
            return value ? "'yes'" : "'no'"
        }
        return text(expression, context, outer: 5)
    }

    /// A multiple choice's id and the code it is compared with (Intake's `=` reads "includes").
    private static func multipleAndCode(_ subject: Expression, _ other: Expression, _ context: Writing) -> (String, String)? {
        guard case .name(let id, _) = subject, context.multiple.contains(id), let code = code(other, context) else { return nil }
        return (id, code)
    }

    /// The code a value is, when compared with a multiple choice (a bare word or a text).
    private static func code(_ expression: Expression, _ context: Writing) -> String? {
        switch expression {
        case .text(let value): value
        case .name(let name, _) where !context.questions.contains(name) && name != ".": name
        default: nil
        }
    }

    private static func reference(_ name: String, _ context: Writing) -> String {
        if name == "." { return "." }
        if let list = context.caseList, name.hasPrefix("case.") {
            return "instance('\(list)')/root/item[name=${\(context.picker)}]/\(name.dropFirst(5))"
        }
        if context.questions.contains(name) || PatientIdentification.expressionFields[name] != nil { return "${\(name)}" }
        return quoted(name)  // a choice's code written bare
    }

    private static func call(_ name: String, _ arguments: [Expression], _ context: Writing) -> String {
        func list(_ items: [Expression]) -> String { items.map { text($0, context, outer: 0) }.joined(separator: ", ") }
        switch name {
        case "length": return "string-length(\(list(arguments)))"
        case "matches":
            if arguments.count == 2, case .text(let pattern) = arguments[1] {
                return "regex(\(list([arguments[0]])), \(quoted("^(?:" + pattern + ")$")))"
            }
            return "regex(\(list(arguments)))"
        case "substr" where arguments.count == 3:
            let end: Expression
            if case .number(let start) = arguments[1], case .number(let length) = arguments[2] {
                end = .number(start + length)
            } else {
                end = .arithmetic(.add, arguments[1], arguments[2])
            }
            return "substr(\(list([arguments[0], arguments[1], end])))"
        default: return "\(name)(\(list(arguments)))"
        }
    }

    /// A text literal; XPath has no escapes, so a text with both quotes is written with concat().
    static func quoted(_ value: String) -> String {
        if !value.contains("'") { return "'\(value)'" }
        if !value.contains("\"") { return "\"\(value)\"" }
        let parts = value.split(separator: "'", omittingEmptySubsequences: false).map { "'\($0)'" }
        return "concat(" + parts.joined(separator: ", \"'\", ") + ")"
    }
}

/// Intake's expression, not Foundation's predicate type of the same name.
typealias Expression = IntakeCore.Expression

extension XPath.Writing {
    /// What writing a questionnaire's expressions needs: its ids, yes/no and multiple choices.
    init(_ questionnaire: Questionnaire) {
        var yesNo: Set<String> = []
        var multiple: Set<String> = []
        for question in questionnaire.allQuestions {
            if question.type == .yesNo { yesNo.insert(question.key) }
            if case .multipleChoice = question.type { multiple.insert(question.key) }
        }
        self.init(questions: Set(questionnaire.allQuestions.compactMap(\.id)), yesNo: yesNo, multiple: multiple)
    }
}
