import Foundation
import IntakeCore

/// Reads what a person typed as an answer of a given type.
struct AnswerInput {
    var language: String?
    var validator: Validator
    /// What refusals say: the form's language.
    var say: FormLanguage

    init(language: String?, validator: Validator, say: FormLanguage? = nil) {
        self.language = language
        self.validator = validator
        self.say = say ?? FormLanguage(language)
    }

    enum Failure: Error, Equatable {
        /// The input cannot be read; the message says what is expected.
        case invalid(String)
        /// Several choices match; the person should pick one of these.
        case ambiguous([Choice])
        /// The person left a pick among several matches: nothing is answered (already said).
        case unsettled
    }

    /// Reads `raw` as an answer of `type`. `numbered` is what the screen numbered last for this
    /// question (number → choice): a number typed means that choice, or is refused; nil reads a
    /// number as the choice's place in the whole list. `settle` picks among several choices that
    /// match an item (nil when the person leaves it); without it, they are the failure.
    func parse(
        _ raw: String, as type: QuestionType, numbered: [Int: Choice]? = nil, settle: ((String, [Choice]) -> Choice?)? = nil
    ) throws(Failure) -> Answer {
        var text = raw.trimmingCharacters(in: .whitespaces)
        // Numbers, dates and choice numbers may be typed in Arabic-Indic digits (٣٧٫٥, ٢٠٢٤-٠٣-١٥).
        switch type {
        case .text, .yesNo, .compound, .note, .geopoint, .repeatGroup, .attachment: break
        default: text = TextFold.asciiDigits(text)
        }
        let answer: Answer
        switch type {
        case .text:
            answer = .text(text)
        case .yesNo:
            guard let value = Self.yesNo(text) else { throw .invalid(say(.answerYesOrNo)) }
            answer = .yesNo(value)
        case .singleChoice(let set):
            answer = .choice(try settled(text, in: set, numbered: numbered, settle: settle).code)
        case .multipleChoice(let set):
            var codes: [String] = []
            // The Arabic comma and semicolon separate too. An item that matches several choices is
            // settled alone: the items before and after it keep what they matched.
            for item in text.split(whereSeparator: { $0 == "," || $0 == "\u{060C}" || $0 == "\u{061B}" || $0 == ";" })
                .map({ $0.trimmingCharacters(in: .whitespaces) })
            where !item.isEmpty {
                let code = try settled(item, in: set, numbered: numbered, settle: settle).code
                if !codes.contains(code) { codes.append(code) }
            }
            guard !codes.isEmpty else { throw .invalid(say(.chooseAtLeastOne)) }
            answer = .choices(set.choices.map(\.code).filter(codes.contains))
        case .integer:
            guard let value = Int(text) else { throw .invalid(say(.wholeNumber)) }
            answer = .integer(value)
        case .decimal:
            let normalized = Self.decimalComma(text)
            guard let value = Double(normalized), value.isFinite, !normalized.contains(where: \.isLetter) else {
                throw .invalid(say(.number))
            }
            answer = .decimal(value)
        case .date:
            guard let date = Self.isToday(text) ? validator.today : LocalDate(iso: text) else {
                throw .invalid(LocalDate.impossibleDay(iso: text).map { say(.noSuchDay(text, $0)) } ?? say(.date))
            }
            answer = .date(date)
        case .compound:
            throw .invalid("A compound answer is entered field by field.")
        case .note:
            throw .invalid("A note takes no answer.")
        case .repeatGroup:
            throw .invalid(say(.repeatAnswer))
        case .attachment(let kind):
            throw .invalid(say(.fileHint(kind: kind)))
        case .geopoint:
            // Arabic-Indic digits and the Arabic comma and decimal separator are read too.
            let latin = TextFold.asciiDigits(text).replacingOccurrences(of: "\u{060C}", with: ",")
            guard let point = GeoPoint(parsing: latin) else { throw .invalid(say(.geopoint)) }
            answer = .geopoint(point)
        }
        if let problem = validator.answerProblem(with: answer, type: type) {
            if let bound = problem.bound, problem.field == nil { throw .invalid(say(.outOfRange(below: bound.below, limit: bound.limit))) }
            throw .invalid(say(.answerProblem(problem.text)))
        }
        return answer
    }

    /// `today`, in English, Arabic or French.
    static func isToday(_ text: String) -> Bool {
        ["today", "اليوم", "aujourd'hui", "aujourd’hui", "aujourdhui"].contains(TextFold.fold(text))
    }

    /// `37,5` → `37.5`; `1,000` stays as it is (and is rejected) rather than becoming 1.0.
    static func decimalComma(_ text: String) -> String {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard !text.contains("."), parts.count == 2, (1...2).contains(parts[1].count) else { return text }
        return parts.joined(separator: ".")
    }

    static func yesNo(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "y", "yes", "1", "true", "نعم", "بلی", "هو", "o", "oui": true
        case "n", "no", "0", "false", "لا", "نه", "نه خیر", "non": false
        default: nil
        }
    }

    /// The choice `text` names; when it names several, the one `settle` picks.
    private func settled(
        _ text: String, in set: ChoiceSet, numbered: [Int: Choice]?, settle: ((String, [Choice]) -> Choice?)?
    ) throws(Failure) -> Choice {
        do {
            return try choice(text, in: set, numbered: numbered)
        } catch {
            guard case .ambiguous(let matches) = error, let settle else { throw error }
            guard let picked = settle(text, matches) else { throw .unsettled }
            return picked
        }
    }

    /// A choice by its number on the screen (`numbered`; without it, its place in the list), its
    /// code, its label, the start of a label or of one of its words, or any part of a label; case,
    /// accents and Arabic letter variants do not count (`tur` and `turkiye` find Türkiye, `cote`
    /// Côte d'Ivoire, `kurmanji` Kurdish (Kurmanji)). `y` and `n` are yes and no where the choices
    /// have them. A near miss (`turkey`) is offered, not taken.
    func choice(_ text: String, in set: ChoiceSet, numbered: [Int: Choice]? = nil) throws(Failure) -> Choice {
        if let number = Int(text) {
            // Choices coded 0, 1, 2… (scales) are picked by code; others by the number shown.
            if AnswerDisplay.isNumbered(byCode: set) {
                if let choice = set.choice(code: text) ?? set.choices.first(where: { Int($0.code) == number }) { return choice }
            } else if let numbered {
                // A number means what the screen shows now, never a place in a list it hides;
                // or a choice coded or named so (a year, a ward's number).
                if let choice = numbered[number], set.contains(code: choice.code) { return choice }
                let typed = TextFold.fold(text)
                if let named = set.choices.first(where: {
                    TextFold.fold($0.code) == typed || TextFold.fold($0.label.text(in: language)) == typed
                }) {
                    return named
                }
                throw .invalid(say(.numberNotShown(text)))
            } else if set.choices.indices.contains(number - 1) {
                return set.choices[number - 1]
            }
        }
        let typed = TextFold.fold(text)
        guard !typed.isEmpty else { throw .invalid(say(.typeAChoice)) }
        func labels(_ choice: Choice) -> [String] {
            [choice.label.base, choice.label.text(in: language)].map(TextFold.fold)
        }
        if let exact = set.choices.first(where: { TextFold.fold($0.code) == typed || labels($0).contains(typed) }) {
            return exact
        }
        // y / n: the choice that is yes or no, when the typed letter stands for it.
        if let yes = Self.yesNo(text) {
            let word = yes ? "yes" : "no"
            let named = set.choices.filter { TextFold.fold($0.code) == word || labels($0).contains(word) }
            if named.count == 1 { return named[0] }
        }
        func words(_ label: String) -> [Substring] { label.split(whereSeparator: { !$0.isLetter && !$0.isNumber }) }
        let starting = set.choices.filter { choice in
            labels(choice).contains { label in label.hasPrefix(typed) || words(label).contains { $0.hasPrefix(typed) } }
        }
        let matches = starting.isEmpty ? set.choices.filter { labels($0).contains { $0.contains(typed) } } : starting
        switch matches.count {
        case 1: return matches[0]
        case 0:
            // A near miss of a label or one of its words (at least 4 letters typed): offered, not taken.
            let near =
                typed.count < 4
                ? []
                : set.choices.filter { choice in
                    labels(choice).contains { label in
                        TextFold.distance(typed, label) <= 2 || words(label).contains { TextFold.distance(typed, String($0)) <= 2 }
                    }
                }
            if !near.isEmpty { throw .ambiguous(near) }
            throw .invalid(say(.notAChoice(text)))
        default: throw .ambiguous(matches)
        }
    }
}
