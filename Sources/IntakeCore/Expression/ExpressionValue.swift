import Foundation

/// What an expression evaluates to. `missing` stands for an unanswered (or hidden) question and
/// for what cannot be computed: arithmetic with a missing value, a division by zero, a date out of
/// range. Comparisons with a missing value are false; `and`, `or`, `not` and `if()` take missing
/// as false; `concat()` takes it as empty text; `coalesce()` skips it.
public enum ExpressionValue: Sendable, Hashable {
    case number(Double)
    case text(String)
    case bool(Bool)
    case date(LocalDate)
    /// A multiple choice's codes.
    case choices([String])
    case missing

    /// The value of an answer (a compound answer has none).
    public init(_ answer: Answer?) {
        switch answer {
        case .integer(let value): self = .number(Double(value))
        case .decimal(let value): self = .number(value)
        case .text(let value), .choice(let value): self = .text(value)
        case .yesNo(let value): self = .bool(value)
        case .date(let value): self = .date(value)
        case .choices(let codes): self = .choices(codes)
        case .geopoint(let point): self = .text(point.description)
        case .attachment(let ref): self = .text(ref.fileName)
        case .dictionary, .instances, nil: self = .missing
        }
    }

    /// Whether it counts as true: a true yes/no, a non-zero number, non-empty text or choices.
    public var isTrue: Bool {
        switch self {
        case .bool(let value): value
        case .number(let value): value != 0 && !value.isNaN
        case .text(let value): !value.isEmpty
        case .choices(let codes): !codes.isEmpty
        case .date: true
        case .missing: false
        }
    }

    /// As text, for `concat()` and notes: numbers without a needless `.0`.
    public var text: String {
        switch self {
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        case .text(let value): return value
        case .bool(let value): return value ? "yes" : "no"
        case .date(let value): return value.description
        case .choices(let codes): return codes.joined(separator: " ")
        case .missing: return ""
        }
    }
}

/// Evaluates expressions against a record's answers.
public struct ExpressionEvaluator: Sendable {
    /// The day `today()` means.
    public var today: LocalDate

    public init(today: LocalDate = .today()) {
        self.today = today
    }

    /// The value of `expression`, reading answers by question id (nil: unanswered or hidden).
    public func evaluate(_ expression: Expression, answer: (String) -> Answer?) -> ExpressionValue {
        var names: [String] = []
        let compiled = CompiledExpression(expression) { name in
            if let slot = names.firstIndex(of: name) { return slot }
            names.append(name)
            return names.count - 1
        }
        return evaluate(compiled) { answer(names[$0]) }
    }

    /// The value of a compiled expression, reading the answer of each of its reads by number.
    func evaluate(_ expression: CompiledExpression, read: (Int) -> Answer?) -> ExpressionValue {
        switch expression {
        case .value(let value): return value
        case .read(let slot): return ExpressionValue(read(slot))
        case .negate(let inner):
            guard case .number(let value) = evaluate(inner, read: read) else { return .missing }
            return .number(-value)
        case .arithmetic(let op, let a, let b):
            return Self.arithmetic(op, evaluate(a, read: read), evaluate(b, read: read))
        case .compare(let op, let a, let b):
            guard let order = Self.order(evaluate(a, read: read), evaluate(b, read: read), op) else { return .bool(false) }
            return .bool(op.holds(for: order))
        case .answered(let inner, let expected):
            let value = evaluate(inner, read: read)
            return .bool((value != .missing) == expected)
        case .and(let parts): return .bool(parts.allSatisfy { evaluate($0, read: read).isTrue })
        case .or(let parts): return .bool(parts.contains { evaluate($0, read: read).isTrue })
        case .not(let inner): return .bool(!evaluate(inner, read: read).isTrue)
        case .call(let function, let arguments):
            return call(function, count: arguments.count) { index in
                index < arguments.count ? evaluate(arguments[index], read: read) : .missing
            }
        case .total(let function, let slot):
            // Over a repeat: the question reads as each instance's value under index 1 (BoundExpression).
            // A repeat not answered (not reached, or hidden) has no total; one with no instance has 0.
            guard let slot, case .instances(let list)? = read(slot) else { return .missing }
            let values = list.compactMap { $0[1] }
            if function == .count { return .number(Double(values.count)) }
            return .number(
                values.reduce(0) { total, answer in
                    if case .number(let number) = ExpressionValue(answer) { return total + number }
                    return total
                })
        case .unknownCall: return .missing
        }
    }

    static func arithmetic(_ op: Expression.ArithmeticOperator, _ a: ExpressionValue, _ b: ExpressionValue) -> ExpressionValue {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            let result: Double
            switch op {
            case .add: result = x + y
            case .subtract: result = x - y
            case .multiply: result = x * y
            case .divide:
                guard y != 0 else { return .missing }
                result = x / y
            case .modulo:
                guard y != 0 else { return .missing }
                result = x.truncatingRemainder(dividingBy: y)
            }
            return result.isFinite ? .number(result) : .missing
        case (.date(let day), .number(let days)) where op == .add || op == .subtract:
            return Self.date(day, plus: op == .add ? days : -days)
        case (.number(let days), .date(let day)) where op == .add:
            return Self.date(day, plus: days)
        case (.date(let x), .date(let y)) where op == .subtract:
            return .number(Double(x.ordinal - y.ordinal))
        default:
            return .missing
        }
    }

    static func date(_ day: LocalDate, plus days: Double) -> ExpressionValue {
        guard days.rounded() == days, abs(days) < 3_000_000 else { return .missing }
        let ordinal = day.ordinal + Int(days)
        // Within the years a date is written in (0001 to 9999).
        guard ordinal >= 0, ordinal < LocalDate(year: 10000, month: 1, day: 1).map(\.ordinal) ?? 3_652_059 else { return .missing }
        return .date(LocalDate(ordinal: ordinal))
    }

    /// How two values compare, or nil when they cannot be (a missing value, different kinds).
    /// A multiple choice equals a code it holds.
    static func order(_ a: ExpressionValue, _ b: ExpressionValue, _ op: ComparisonOperator) -> ValueOrder? {
        func compare<T: Comparable>(_ x: T, _ y: T) -> ValueOrder { x < y ? .orderedAscending : x == y ? .orderedSame : .orderedDescending }
        switch (a, b) {
        case (.number(let x), .number(let y)): return compare(x, y)
        case (.date(let x), .date(let y)): return compare(x, y)
        case (.text(let x), .text(let y)): return op.isOrdering ? compare(x, y) : (x == y ? .orderedSame : .orderedAscending)
        case (.bool(let x), .bool(let y)) where !op.isOrdering: return x == y ? .orderedSame : .orderedAscending
        case (.choices(let codes), .text(let code)) where !op.isOrdering, (.text(let code), .choices(let codes)) where !op.isOrdering:
            return codes.contains(code) ? .orderedSame : .orderedAscending
        default: return nil
        }
    }

    /// A function's value; `value(i)` is its i-th argument's (missing past the last of `count`),
    /// worked out only when the function asks for it.
    func call(_ function: ExpressionFunction, count: Int, value: (Int) -> ExpressionValue) -> ExpressionValue {
        func numbers() -> [Double]? {
            var result: [Double] = []
            for index in 0..<count {
                guard case .number(let number) = value(index) else { return nil }
                result.append(number)
            }
            return result
        }
        switch function {
        case .if: return value(0).isTrue ? value(1) : value(2)
        case .coalesce:
            for index in 0..<count {
                let given = value(index)
                if given != .missing { return given }
            }
            return .missing
        case .concat: return .text((0..<count).map { value($0).text }.joined())
        case .round:
            guard case .number(let number) = value(0) else { return .missing }
            var digits = 0.0
            if count > 1 {
                guard case .number(let given) = value(1), given.rounded() == given, (0...10).contains(given) else { return .missing }
                digits = given
            }
            let scale = pow(10, digits)
            let rounded = (number * scale).rounded(.toNearestOrAwayFromZero) / scale
            return rounded.isFinite ? .number(rounded) : .number(number)
        case .int:
            guard case .number(let number) = value(0) else { return .missing }
            return .number(number.rounded(.towardZero))
        case .pow:
            guard case .number(let base) = value(0), case .number(let exponent) = value(1) else { return .missing }
            let result = pow(base, exponent)
            return result.isFinite ? .number(result) : .missing
        case .length:
            let given = value(0)
            guard case .text(let text) = given else { return given == .missing ? .missing : .number(Double(given.text.count)) }
            return .number(Double(text.count))
        case .contains:
            let (haystack, needle) = (value(0), value(1))
            guard haystack != .missing, needle != .missing else { return .bool(false) }
            // Case folded the same on every device, whatever its locale.
            return .bool(haystack.text.lowercased().contains(needle.text.lowercased()))
        case .matches:
            // A regular expression the whole text matches; an invalid one matches nothing.
            let text = value(0)
            guard case .text(let pattern) = value(1), text != .missing, let compiled = CompiledPattern.cached(pattern) else {
                return .bool(false)
            }
            return .bool(compiled.matches(text.text))
        case .lower, .upper:
            let text = value(0)
            guard text != .missing else { return .missing }
            return .text(function == .lower ? text.text.lowercased() : text.text.uppercased())
        case .substr:
            // substr(text, start, length): characters from `start` (0 is the first).
            let text = value(0)
            guard text != .missing, case .number(let start) = value(1), start >= 0, start.rounded() == start else { return .missing }
            let characters = Array(text.text)
            let from = min(Int(min(start, 1e9)), characters.count)
            var to = characters.count
            if count > 2 {
                guard case .number(let length) = value(2), length >= 0, length.rounded() == length else { return .missing }
                to = min(characters.count, from + Int(min(length, 1e9)))
            }
            return .text(String(characters[from..<to]))
        case .number:
            // A choice coded by number (a score's 0 to 3) as that number.
            switch value(0) {
            case .number(let number): return .number(number)
            case .text(let text):
                return Double(text.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? .number($0) : nil } ?? .missing
            case .bool(let flag): return .number(flag ? 1 : 0)
            default: return .missing
            }
        case .abs:
            guard case .number(let number) = value(0) else { return .missing }
            return .number(abs(number))
        case .min: return numbers().flatMap { $0.min() }.map { .number($0) } ?? .missing
        case .max: return numbers().flatMap { $0.max() }.map { .number($0) } ?? .missing
        case .today: return .date(today)
        case .age: return Self.years(value(0), .date(today))
        case .yearsBetween: return Self.years(value(0), value(1))
        case .daysBetween:
            guard case .date(let from) = value(0), case .date(let to) = value(1) else { return .missing }
            return .number(Double(to.ordinal - from.ordinal))
        case .countSelected:
            switch value(0) {
            case .choices(let codes): return .number(Double(codes.count))
            case .text: return .number(1)
            default: return .number(0)
            }
        case .selected:
            guard case .text(let code) = value(1) else { return .bool(false) }
            switch value(0) {
            case .choices(let codes): return .bool(codes.contains(code))
            case .text(let chosen): return .bool(chosen == code)
            default: return .bool(false)
            }
        case .sum, .count:
            // Read across a repeat's instances: compiled to `.total`, which needs the read itself.
            return .missing
        }
    }

    /// Whole years from `from` to `to` (an age on a day), or missing.
    static func years(_ from: ExpressionValue, _ to: ExpressionValue) -> ExpressionValue {
        guard case .date(let start) = from, case .date(let end) = to else { return .missing }
        var years = end.year - start.year
        if (end.month, end.day) < (start.month, start.day) { years -= 1 }
        return .number(Double(years))
    }
}
