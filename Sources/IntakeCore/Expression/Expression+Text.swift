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
    public var usesToday: Bool { dayReadingColumn != nil }

    /// The column of the first `today()` or `age()` call, if any.
    public var dayReadingColumn: Int? {
        switch self {
        case .number, .text, .date, .bool, .name: nil
        case .negate(let inner), .answered(let inner, _), .not(let inner): inner.dayReadingColumn
        case .arithmetic(_, let a, let b), .compare(_, let a, let b): a.dayReadingColumn ?? b.dayReadingColumn
        case .and(let parts), .or(let parts): parts.lazy.compactMap(\.dayReadingColumn).first
        case .call(let name, let arguments, let column):
            name == "today" || name == "age" ? column : arguments.lazy.compactMap(\.dayReadingColumn).first
        }
    }
}
