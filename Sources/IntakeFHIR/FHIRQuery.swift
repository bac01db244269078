import Foundation
import HTTPTypes
import Hummingbird
import IntakeCore

/// A search's query, read from the raw query string: form encoding as `requests` (fhirclient)
/// sends it, `+` a space and `%2B` a plus, decoded here once (Hummingbird decodes no keys).
/// Each parameter keeps its modifier (`subject:Patient`) apart from its name, and repeats stay
/// repeats: repeated parameters AND together, a value's commas OR.
///
/// Unknown parameters are **ignored**, as FHIR R4 says a server does by default (search, 3.1.1.4.2):
/// they are left out of the Bundle's `self` and `next` links, so a client can see what was used.
/// With `Prefer: handling=strict` they are refused (400) instead. A known parameter with a
/// modifier it does not take, or a value that cannot be read, is always refused.
struct FHIRQuery {
    struct Parameter: Sendable {
        var name: String
        var modifier: String?
        /// Decoded, with FHIR's escapes (`\,`) still in.
        var value: String

        /// The comma-separated values (OR), with `\,` `\|` `\$` `\\` unescaped.
        var alternatives: [String] {
            var parts: [String] = []
            var current = ""
            var escaped = false
            for character in value {
                if escaped {
                    if character != "," && character != "|" && character != "$" && character != "\\" { current.append("\\") }
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "," {
                    parts.append(current)
                    current = ""
                } else {
                    current.append(character)
                }
            }
            if escaped { current.append("\\") }
            parts.append(current)
            return parts
        }

        var fullName: String { modifier.map { "\(name):\($0)" } ?? name }
    }

    var parameters: [Parameter] = []
    /// `Prefer: handling=strict`: unknown parameters are refused rather than ignored.
    var strict = false

    init(_ request: Request) {
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.decoded(parts[0])
            guard !key.isEmpty else { continue }
            let value = parts.count > 1 ? Self.decoded(parts[1]) : ""
            let (name, modifier) = Self.split(key)
            parameters.append(Parameter(name: name, modifier: modifier, value: value))
        }
        if let prefer = request.headers[HTTPField.Name("Prefer")!] {
            let tokens = prefer.lowercased().split(whereSeparator: { $0 == "," || $0 == ";" }).map {
                $0.replacingOccurrences(of: " ", with: "")
            }
            strict = tokens.contains("handling=strict")
        }
    }

    static func decoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    static func split(_ key: String) -> (String, String?) {
        guard let colon = key.firstIndex(of: ":") else { return (key, nil) }
        return (String(key[..<colon]), String(key[key.index(after: colon)...]))
    }

    /// Percent-encodes a link's key or value: unreserved characters, and `:` and `,` which FHIR
    /// links keep as they are.
    static func encoded(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~:,")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// What a resource type's search takes: each parameter by name, with the modifiers it accepts.
struct FHIRSearchSpec {
    var parameters: [String: Set<String>]

    /// Paging: how many a page holds, and where the next one starts.
    static let countDefault = 50
    static let countMost = 500

    /// The query's parameters this search uses, checked; the page size and cursor. Unknown
    /// parameters are ignored (or refused with `Prefer: handling=strict`, see ``FHIRQuery``).
    func read(_ query: FHIRQuery) throws -> (used: [FHIRQuery.Parameter], count: Int, cursor: String?) {
        var used: [FHIRQuery.Parameter] = []
        var count = Self.countDefault
        var cursor: String?
        var ignored: [String] = []
        for parameter in query.parameters {
            switch parameter.name {
            case "_count":
                guard parameter.modifier == nil else { throw FHIRError.badModifier(parameter) }
                guard let number = Int(parameter.value.trimmingCharacters(in: .whitespaces)), number >= 0 else {
                    throw FHIRError.invalid("_count must be a whole number, 0 or more (at most \(Self.countMost) are sent a page).")
                }
                count = min(number, Self.countMost)
            case "_format":
                continue  // negotiated before the search (JSON only; anything else was 406)
            case "_cursor":
                guard parameter.modifier == nil, !parameter.value.isEmpty, parameter.value.count <= 200 else {
                    throw FHIRError.invalid("_cursor is the value a Bundle's next link gives; follow that link.")
                }
                cursor = parameter.value
            default:
                guard let modifiers = parameters[parameter.name] else {
                    ignored.append(parameter.fullName)
                    continue
                }
                if let modifier = parameter.modifier, !modifiers.contains(modifier) { throw FHIRError.badModifier(parameter) }
                used.append(parameter)
            }
        }
        if query.strict, !ignored.isEmpty {
            throw FHIRError.invalid(
                "Unknown search parameter(s) \(ignored.map { String($0.prefix(60)) }.joined(separator: ", ")) (Prefer: handling=strict); "
                    + "this server's search parameters are in GET /fhir/metadata.")
        }
        return (used, count, cursor)
    }
}

/// A `date` search value with its prefix: `ge2024-01-01`, `>=2024-01-01` (fhirclient's legacy
/// spelling), `2024-05-01T10:00:00Z`. The value is a range as its precision says (a day, a
/// month, a second…); a time without a zone is UTC.
struct FHIRDateSearch: Equatable {
    enum Comparator: String { case eq, ne, gt, lt, ge, le, sa, eb }
    var comparator: Comparator
    /// The value's range in microseconds since 1970: from `lower`, up to but not including `upper`.
    var lower: Int64
    var upper: Int64

    /// Whether a target range [from, to) (microseconds since 1970) meets the search, as FHIR R4
    /// defines each prefix.
    func matches(from: Int64, to: Int64) -> Bool {
        let contained = lower <= from && to <= upper
        switch comparator {
        case .eq: return contained
        case .ne: return !contained
        case .gt: return to > upper
        case .lt: return from < lower
        case .ge: return to > upper || contained
        case .le: return from < lower || contained
        case .sa: return from >= upper
        case .eb: return to <= lower
        }
    }

    /// A moment, to the millisecond as a response's `authored` is written.
    func matches(_ instant: Date) -> Bool {
        let from = Int64((instant.timeIntervalSince1970 * 1000).rounded()) * 1000
        return matches(from: from, to: from + 1000)
    }

    static func parse(_ text: String, parameter: String) throws -> FHIRDateSearch {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var comparator = Comparator.eq
        for (spelling, meaning) in [(">=", Comparator.ge), ("<=", .le), (">", .gt), ("<", .lt)] where rest.hasPrefix(spelling) {
            comparator = meaning
            rest = rest.dropFirst(spelling.count)
            break
        }
        if comparator == .eq, rest.count > 2, rest.prefix(2).allSatisfy(\.isLetter) {
            let prefix = String(rest.prefix(2))
            if prefix == "ap" {
                throw FHIRError(
                    status: .badRequest, code: "not-supported",
                    message: "The prefix ap (approximately) is not supported for \(parameter); give a range with ge and le.")
            }
            guard let known = Comparator(rawValue: prefix) else { throw invalid(text, parameter) }
            comparator = known
            rest = rest.dropFirst(2)
        }
        guard let (lower, upper) = range(String(rest)) else { throw invalid(text, parameter) }
        return FHIRDateSearch(comparator: comparator, lower: lower, upper: upper)
    }

    static func invalid(_ text: String, _ parameter: String) -> FHIRError {
        FHIRError.invalid(
            "\(parameter)=\(text.prefix(60)) is not a date search: give a date or dateTime (2024-05-01, 2024-05, 2024-05-01T10:00:00Z), "
                + "optionally after eq, ne, gt, lt, ge, le, sa, eb or >, <, >=, <=.")
    }

    /// The range a date or dateTime covers, in microseconds since 1970; nil when it is none.
    static func range(_ text: String) -> (Int64, Int64)? {
        // A `+` of an offset sent unencoded arrives as a space.
        let value = text.replacingOccurrences(of: " ", with: "+")
        let bytes = Array(value.utf8)
        var at = 0
        func number(_ width: Int) -> Int? {
            guard at + width <= bytes.count else { return nil }
            var result = 0
            for byte in bytes[at..<(at + width)] {
                guard byte >= 48, byte <= 57 else { return nil }
                result = result * 10 + Int(byte - 48)
            }
            at += width
            return result
        }
        func expect(_ character: Character) -> Bool {
            guard at < bytes.count, bytes[at] == character.asciiValue else { return false }
            at += 1
            return true
        }
        let second: Int64 = 1_000_000
        func seconds(_ year: Int, _ month: Int, _ day: Int) -> Int64? {
            guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
            let days = CivilDays.days(year: year, month: month, day: day)
            let back = CivilDays.date(fromDays: days)
            guard back.year == year, back.month == month, back.day == day else { return nil }  // no February 30
            return days * 86_400 * second
        }
        func start(_ year: Int, _ month: Int) -> Int64 { CivilDays.days(year: year, month: month, day: 1) * 86_400 * second }
        guard let year = number(4), year >= 1 else { return nil }
        guard expect("-") else {
            guard at == bytes.count else { return nil }
            return (start(year, 1), start(year + 1, 1))
        }
        guard let month = number(2), (1...12).contains(month) else { return nil }
        guard expect("-") else {
            guard at == bytes.count else { return nil }
            let next = month == 12 ? start(year + 1, 1) : start(year, month + 1)
            return (start(year, month), next)
        }
        guard let day = number(2), let midnight = seconds(year, month, day) else { return nil }
        guard expect("T") else {
            guard at == bytes.count else { return nil }
            return (midnight, midnight + 86_400 * second)
        }
        guard let hour = number(2), hour < 24, expect(":"), let minute = number(2), minute < 60 else { return nil }
        var start = midnight + Int64(hour * 3600 + minute * 60) * second
        var width: Int64 = 60 * second
        if expect(":") {
            guard let seconds = number(2), seconds < 60 else { return nil }
            start += Int64(seconds) * second
            width = second
            if expect(".") {
                // To the microsecond: digits past the sixth are read and left out.
                var digits = 0
                while at < bytes.count, bytes[at] >= 48, bytes[at] <= 57 {
                    digits += 1
                    if digits <= 6 {
                        width /= 10
                        start += Int64(bytes[at] - 48) * width
                    }
                    at += 1
                }
                guard digits > 0, digits <= 12 else { return nil }
            }
        }
        if expect("Z") {
        } else if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[at] == UInt8(ascii: "+") ? 1 : -1
            at += 1
            guard let hours = number(2), hours <= 14, expect(":"), let minutes = number(2), minutes < 60 else { return nil }
            start -= sign * Int64(hours * 3600 + minutes * 60) * second
        }
        guard at == bytes.count else { return nil }
        return (start, start + width)
    }
}

/// A reference search value's id of the type wanted: `Patient/abc`, `abc`, or an absolute
/// `https://host/fhir/Patient/abc` (any host: the address a client used may differ from ours).
/// `.some(nil)` when it names another resource type (it matches nothing); the version after `|`
/// of a canonical, when given.
enum FHIRReference {
    static func id(_ value: String, type: String) -> (id: String?, version: String?) {
        var text = value.trimmingCharacters(in: .whitespaces)
        var version: String?
        if let bar = text.firstIndex(of: "|") {
            version = String(text[text.index(after: bar)...])
            text = String(text[..<bar])
        }
        let segments = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.count == 1 { return (text, version) }
        guard segments.count >= 2, let last = segments.last, !last.isEmpty else { return (nil, version) }
        // `Type/id`, or `…/Type/id` at the end of a URL; `Type/id/_history/n` is a version of it.
        if segments.count >= 4, segments[segments.count - 2] == "_history", segments[segments.count - 4] == type {
            return (segments[segments.count - 3], version)
        }
        return segments[segments.count - 2] == type ? (last, version) : (nil, version)
    }
}

/// The smallest `count + 1` items after a cursor, by key, out of any number seen (memory stays
/// at a few pages whatever the search matches); with the number seen, for the Bundle's `total`.
struct FHIRPageCollector<Item> {
    let count: Int
    let after: String?
    private(set) var total = 0
    private var kept: [(key: String, item: Item)] = []

    init(count: Int, after: String?) {
        self.count = count
        self.after = after
    }

    mutating func add(_ key: String, _ item: @autoclosure () -> Item) {
        total += 1
        if let after, key <= after { return }
        kept.append((key, item()))
        if kept.count > 2 * (count + 1) + 64 { trim() }
    }

    private mutating func trim() {
        kept.sort { $0.key < $1.key }
        if kept.count > count + 1 { kept.removeLast(kept.count - count - 1) }
    }

    /// The page, in key order, and whether another follows it.
    mutating func page() -> (items: [(key: String, item: Item)], more: Bool) {
        trim()
        return (Array(kept.prefix(count)), kept.count > count)
    }
}
