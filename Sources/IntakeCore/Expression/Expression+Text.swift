import Foundation

extension Expression: CustomStringConvertible {
    /// The expression as it would be written in a question file, with the parentheses it needs.
    public var description: String { text(precedence: 0) }

    /// Binding strength: or 1, and 2, not 3, comparison 4, sum 5, product 6, unary 7.
    private func text(precedence outer: Int) -> String {
        let (body, own): (String, Int)
        switch self {
        case .number(let value): (body, own) = (ExpressionValue.number(value).text, 8)
        case .text(let value): (body, own) = (value.contains("\"") ? "'\(value)'" : "\"\(value)\"", 8)
        case .date(let value): (body, own) = (value.description, 8)
        case .bool(let value): (body, own) = (value ? "yes" : "no", 8)
        case .name(let name, _): (body, own) = (name, 8)
        case .negate(let inner): (body, own) = ("-" + inner.text(precedence: 7), 7)
        case .arithmetic(let op, let a, let b):
            let level = op == .add || op == .subtract ? 5 : 6
            (body, own) = ("\(a.text(precedence: level)) \(op.rawValue) \(b.text(precedence: level + 1))", level)
        case .compare(let op, let a, let b): (body, own) = ("\(a.text(precedence: 5)) \(op.rawValue) \(b.text(precedence: 5))", 4)
        case .answered(let inner, let expected): (body, own) = ("\(inner.text(precedence: 5)) is \(expected ? "" : "not ")answered", 4)
        case .and(let parts): (body, own) = (parts.map { $0.text(precedence: 3) }.joined(separator: " and "), 2)
        case .or(let parts): (body, own) = (parts.map { $0.text(precedence: 2) }.joined(separator: " or "), 1)
        case .not(let inner): (body, own) = ("not " + inner.text(precedence: 3), 3)
        case .call(let name, let arguments, _): (body, own) = ("\(name)(\(arguments.map(\.description).joined(separator: ", ")))", 8)
        }
        return own < outer ? "(\(body))" : body
    }

    /// Whether the value depends on the day it is computed (`today()`, `age()`).
    public var usesToday: Bool {
        switch self {
        case .number, .text, .date, .bool, .name: false
        case .negate(let inner), .answered(let inner, _), .not(let inner): inner.usesToday
        case .arithmetic(_, let a, let b), .compare(_, let a, let b): a.usesToday || b.usesToday
        case .and(let parts), .or(let parts): parts.contains { $0.usesToday }
        case .call(let name, let arguments, _): name == "today" || name == "age" || arguments.contains { $0.usesToday }
        }
    }

    /// The expression with every `name` replaced by `replacement` (`.` by the question's id).
    public func renaming(_ name: String, to replacement: String) -> Expression {
        func rename(_ e: Expression) -> Expression { e.renaming(name, to: replacement) }
        switch self {
        case .number, .text, .date, .bool: return self
        case .name(let found, let column): return found == name ? .name(replacement, column: column) : self
        case .negate(let inner): return .negate(rename(inner))
        case .answered(let inner, let expected): return .answered(rename(inner), expected)
        case .not(let inner): return .not(rename(inner))
        case .arithmetic(let op, let a, let b): return .arithmetic(op, rename(a), rename(b))
        case .compare(let op, let a, let b): return .compare(op, rename(a), rename(b))
        case .and(let parts): return .and(parts.map(rename))
        case .or(let parts): return .or(parts.map(rename))
        case .call(let function, let arguments, let column): return .call(function, arguments.map(rename), column: column)
        }
    }
}
