import IntakeCore

/// How answers, types and choices are shown to the person filling the form.
package struct AnswerDisplay {
    var language: String?

    package init(language: String?) {
        self.language = language
    }

    /// Lists with more choices than this are searched by typing instead of shown in full.
    static let shortListLimit = 15

    package func text(of answer: Answer, for type: QuestionType) -> String {
        switch (answer, type) {
        case (.yesNo(let value), _): return value ? "yes" : "no"
        case (.choice(let code), _): return label(code, in: type.choices)
        case (.choices(let codes), _): return codes.map { label($0, in: type.choices) }.joined(separator: ", ")
        case (.dictionary(let parts), .compound(let fields)):
            return fields.compactMap { field in
                parts[field.key].map { "\(field.label.text(in: language)): \(text(of: $0, for: field.type))" }
            }.joined(separator: "; ")
        case (.text(let value), _): return value
        case (.integer(let value), _): return String(value)
        case (.decimal(let value), _): return Self.number(value)
        case (.date(let value), _): return value.description
        case (.dictionary, _): return "(\(answer.kind))"
        }
    }

    private func label(_ code: String, in set: ChoiceSet?) -> String {
        set?.choice(code: code)?.label.text(in: language) ?? code
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A short description of what to type: `whole number 0–120`, `yes/no`, `date YYYY-MM-DD, up to today`.
    func hint(for type: QuestionType) -> String {
        switch type {
        case .text: return "text"
        case .yesNo: return "yes/no"
        case .integer(let bounds): return "whole number" + Self.range(bounds.lower.map(String.init), bounds.upper.map(String.init))
        case .decimal(let bounds): return "number" + Self.range(bounds.lower.map(Self.number), bounds.upper.map(Self.number))
        case .date(let bounds): return "date YYYY-MM-DD" + Self.range(bounds.lower?.description, bounds.upper?.description)
        case .singleChoice(let set):
            return set.choices.count > Self.shortListLimit
                ? "choose one of \(set.choices.count): type part of a name or a code (:list shows all)"
                : "choose one: type its number, code or name"
        case .multipleChoice(let set):
            return set.choices.count > Self.shortListLimit
                ? "choose one or more of \(set.choices.count), separated by commas (:list shows all)"
                : "choose one or more, separated by commas"
        case .compound(let fields): return "\(fields.count) parts: " + fields.map { $0.label.text(in: language) }.joined(separator: ", ")
        }
    }

    private static func range(_ lower: String?, _ upper: String?) -> String {
        switch (lower, upper) {
        case let (lower?, upper?): " from \(lower) to \(upper)"
        case let (lower?, nil): " from \(lower)"
        case let (nil, upper?): " up to \(upper)"
        case (nil, nil): ""
        }
    }

    /// `    1) Syria [SY]`, one line a choice; choices coded by number show just their code.
    func choiceLines(_ choices: [Choice], numbersFrom all: [Choice]) -> [String] {
        let byCode = Self.isNumbered(byCode: ChoiceSet(choices: all))
        return choices.map { choice in
            if byCode { return "    \(choice.code)) \(choice.label.text(in: language))" }
            let number = (all.firstIndex(of: choice) ?? 0) + 1
            return "    \(number)) \(choice.label.text(in: language)) [\(choice.code)]"
        }
    }

    /// Whether every code is a whole number, as in scales coded 0–3; such choices are typed by code.
    static func isNumbered(byCode set: ChoiceSet) -> Bool {
        !set.choices.isEmpty && set.choices.allSatisfy { Int($0.code) != nil }
    }
}
