import Foundation

/// OData `$filter` as Central takes it on submissions: `__id`, `__system/submissionDate`,
/// `__system/updatedAt`, `__system/reviewState`, `__system/submitterId` and
/// `__system/deletedAt` compared (`eq ne lt le gt ge`) with text, dates and `null`, joined with
/// `and`, `or`, `not` and parentheses. Anything else is refused as unsupported (501).
indirect enum ODKFilter {
    case compare(String, Operator, Literal)
    case and(ODKFilter, ODKFilter)
    case or(ODKFilter, ODKFilter)
    case not(ODKFilter)

    enum Operator: String { case eq, ne, lt, le, gt, ge }

    enum Literal: Equatable {
        case text(String), date(Date), null, number(Double)
    }

    struct Unsupported: Error { var what: String }

    static let fields: Set<String> = [
        "__id", "__system/submissionDate", "__system/updatedAt", "__system/reviewState", "__system/submitterId", "__system/deletedAt",
    ]

    static func parse(_ text: String) throws -> ODKFilter {
        guard text.count <= 2_000 else { throw Unsupported(what: "longer than 2000 characters") }
        var parser = Parser(tokens: try tokens(text))
        let filter = try parser.or()
        guard parser.index == parser.tokens.count else { throw Unsupported(what: "'\(parser.tokens[parser.index])'") }
        return filter
    }

    static func tokens(_ text: String) throws -> [String] {
        var tokens: [String] = []
        var chars = Array(text)[...]
        while let c = chars.first {
            if c.isWhitespace {
                chars.removeFirst()
            } else if c == "(" || c == ")" {
                tokens.append(String(c))
                chars.removeFirst()
            } else if c == "'" {
                chars.removeFirst()
                var literal = ""
                while true {
                    guard let next = chars.popFirst() else { throw Unsupported(what: "an unclosed text") }
                    if next == "'" {
                        if chars.first == "'" {
                            literal.append("'")
                            chars.removeFirst()
                            continue
                        }
                        break
                    }
                    literal.append(next)
                }
                tokens.append("'" + literal)
            } else {
                var word = ""
                while let next = chars.first, !next.isWhitespace, next != "(", next != ")" {
                    word.append(next)
                    chars.removeFirst()
                }
                tokens.append(word)
            }
        }
        return tokens
    }

    struct Parser {
        var tokens: [String]
        var index = 0
        var depth = 0

        var current: String? { index < tokens.count ? tokens[index] : nil }

        mutating func or() throws -> ODKFilter {
            var left = try and()
            while current == "or" {
                index += 1
                left = .or(left, try and())
            }
            return left
        }

        mutating func and() throws -> ODKFilter {
            var left = try unary()
            while current == "and" {
                index += 1
                left = .and(left, try unary())
            }
            return left
        }

        mutating func unary() throws -> ODKFilter {
            depth += 1
            defer { depth -= 1 }
            guard depth <= 32 else { throw Unsupported(what: "nested deeper than 32") }
            if current == "not" {
                index += 1
                return .not(try unary())
            }
            if current == "(" {
                index += 1
                let inner = try or()
                guard current == ")" else { throw Unsupported(what: "an unclosed '('") }
                index += 1
                return inner
            }
            guard let field = current, ODKFilter.fields.contains(field) else { throw Unsupported(what: "'\(current ?? "")'") }
            index += 1
            guard let name = current, let op = Operator(rawValue: name) else { throw Unsupported(what: "'\(current ?? "")'") }
            index += 1
            guard let literal = current else { throw Unsupported(what: "a comparison without a value") }
            index += 1
            var value = try Self.literal(literal)
            // A date field is compared with a date: a text that is none is an error, not false.
            if field.hasSuffix("Date") || field.hasSuffix("At"), case .text(let text) = value {
                guard let date = ODKTime.date(text) else { throw Unsupported(what: "the date '\(text)'") }
                value = .date(date)
            }
            return .compare(field, op, value)
        }

        static func literal(_ token: String) throws -> Literal {
            if token.hasPrefix("'") { return .text(String(token.dropFirst())) }
            if token == "null" { return .null }
            if let date = ODKTime.date(token) { return .date(date) }
            if let number = Double(token) { return .number(number) }
            throw Unsupported(what: "the value '\(token)'")
        }
    }

    func holds(for row: ODKOData.Row) -> Bool {
        switch self {
        case .and(let a, let b): return a.holds(for: row) && b.holds(for: row)
        case .or(let a, let b): return a.holds(for: row) || b.holds(for: row)
        case .not(let inner): return !inner.holds(for: row)
        case .compare(let field, let op, let literal):
            let value: Literal =
                switch field {
                case "__id": .text(row.id)
                case "__system/submissionDate": .date(row.submitted)
                case "__system/updatedAt": row.updated.map(Literal.date) ?? .null
                case "__system/reviewState": row.reviewState.map(Literal.text) ?? .null
                case "__system/submitterId": row.submitter.map { .number(Double($0)) } ?? .null
                default: .null
                }
            return Self.compare(value, op, literal)
        }
    }

    static func compare(_ value: Literal, _ op: Operator, _ literal: Literal) -> Bool {
        let order: ComparisonResult?
        switch (value, literal) {
        case (.null, .null): order = .orderedSame
        case (.null, _), (_, .null): return op == .ne
        case (.date(let a), .date(let b)): order = a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        case (.date(let a), .text(let b)):
            guard let b = ODKTime.date(b) else { return op == .ne }
            order = a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        case (.text(let a), .text(let b)): order = a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        case (.number(let a), .number(let b)): order = a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        // A submitter written as text ('4') is the same actor as 4.
        case (.number(let a), .text(let b)):
            guard let b = Double(b) else { return op == .ne }
            order = a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        default: order = nil
        }
        guard let order else { return op == .ne }
        return switch op {
        case .eq: order == .orderedSame
        case .ne: order != .orderedSame
        case .lt: order == .orderedAscending
        case .le: order != .orderedDescending
        case .gt: order == .orderedDescending
        case .ge: order != .orderedAscending
        }
    }
}
