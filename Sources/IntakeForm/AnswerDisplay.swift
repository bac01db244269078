import IntakeCore

/// How answers, types and choices are shown to the person filling the form.
package struct AnswerDisplay {
    var language: String?

    /// What hints and yes or no say: the form's language.
    var say: FormLanguage

    package init(language: String?, say: FormLanguage? = nil) {
        self.language = language
        self.say = say ?? FormLanguage(language)
    }

    /// Lists with more choices than this are searched by typing instead of shown in full.
    static let shortListLimit = 15

    package func text(of answer: Answer, for type: QuestionType) -> String {
        switch (answer, type) {
        case (.yesNo(let value), _): return say(value ? .yes : .no)
        case (.choice(let code), _): return label(code, in: type.choices)
        case (.choices(let codes), _): return codes.map { label($0, in: type.choices) }.joined(separator: say.isRightToLeft ? "، " : ", ")
        case (.dictionary(let parts), .compound(let fields)):
            // Label, then answer, in the reading direction: `Dose: 500; Unit: mg`, `الجرعة: 500؛ الوحدة: ملغ`.
            return fields.compactMap { field in
                parts[field.key].map { "\(field.label.text(in: language)): \(text(of: $0, for: field.type))" }
            }.joined(separator: say.isRightToLeft ? "؛ " : "; ")
        case (.text(let value), _): return value
        case (.integer(let value), _): return String(value)
        case (.decimal(let value), _):
            return say.writesDecimalComma ? Self.number(value).replacingOccurrences(of: ".", with: ",") : Self.number(value)
        case (.date(let value), _): return value.description
        case (.geopoint(let point), _): return point.description
        case (.instances(let list), _): return say(.instanceCount(list.count))
        case (.attachment(let ref), _):
            let kind: AttachmentKind = if case .attachment(let kind) = type { kind } else { .document }
            return say(
                .fileAnswer(
                    kind: kind, type: AttachmentType(mediaType: ref.mediaType)?.name ?? ref.mediaType,
                    size: AttachmentKind.describe(ref.size),
                    digest: String(ref.sha256.prefix(8))))
        case (.dictionary, _): return "(\(answer.kind))"
        }
    }

    /// An answer as plain text without its question (codes for choices, a compound's parts by
    /// key in order), the same on every run.
    package static func plain(_ answer: Answer) -> String {
        switch answer {
        case .text(let value): value
        case .integer(let value): String(value)
        case .decimal(let value): number(value)
        case .date(let value): value.description
        case .yesNo(let value): value ? "yes" : "no"
        case .choice(let code): code
        case .choices(let codes): codes.joined(separator: ", ")
        case .dictionary(let parts): parts.sorted { $0.key < $1.key }.map { "\($0.key): \(plain($0.value))" }.joined(separator: "; ")
        case .geopoint(let point): point.description
        case .instances(let list): "\(list.count) instance\(list.count == 1 ? "" : "s")"
        case .attachment(let ref): "file \(ref.mediaType), \(AttachmentKind.describe(ref.size)), \(ref.sha256.prefix(8))"
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
        let hint: FormText.Hint
        switch type {
        case .text: hint = .text
        case .yesNo: hint = .yesNo
        case .integer(let bounds): hint = .wholeNumber(from: bounds.lower.map(String.init), to: bounds.upper.map(String.init))
        case .decimal(let bounds): hint = .number(from: bounds.lower.map(Self.number), to: bounds.upper.map(Self.number))
        case .date(let bounds): hint = .date(from: bounds.lower?.description, to: bounds.upper?.description)
        case .singleChoice(let set):
            hint = set.choices.count > Self.shortListLimit ? .chooseOneOfLong(set.choices.count) : .chooseOne
        case .multipleChoice(let set):
            hint = set.choices.count > Self.shortListLimit ? .chooseSomeOfLong(set.choices.count) : .chooseSome
        case .compound(let fields):
            return say(.compoundParts(count: fields.count, labels: fields.map { $0.label.text(in: language) }))
        case .note, .repeatGroup:
            return ""
        case .attachment(let kind):
            return say(.fileHint(kind: kind))
        case .geopoint: hint = .geopoint
        }
        return say(.hint(hint))
    }

    /// `    1) Syria [SY]`, one line a choice; choices coded by number show just their code.
    func choiceLines(_ choices: [Choice], numbersFrom all: [Choice]) -> [String] {
        let byCode = Self.isNumbered(byCode: ChoiceSet(choices: all))
        return choices.map { choice in
            if byCode { return "    \(choice.code)) \(choice.label.text(in: language))" }
            return "    \(Self.number(of: choice, in: all))) \(choice.label.text(in: language)) [\(choice.code)]"
        }
    }

    /// The number each of `choices` is shown with by ``choiceLines(_:numbersFrom:)``.
    func numbers(_ choices: [Choice], numbersFrom all: [Choice]) -> [Int: Choice] {
        let byCode = Self.isNumbered(byCode: ChoiceSet(choices: all))
        return Dictionary(choices.map { (byCode ? Int($0.code) ?? 0 : Self.number(of: $0, in: all), $0) }) { first, _ in first }
    }

    /// A choice's number when it is numbered by its place in `all`, from 1.
    private static func number(of choice: Choice, in all: [Choice]) -> Int { (all.firstIndex(of: choice) ?? 0) + 1 }

    /// Whether every code is a whole number, as in scales coded 0–3; such choices are typed by code.
    static func isNumbered(byCode set: ChoiceSet) -> Bool {
        !set.choices.isEmpty && set.choices.allSatisfy { Int($0.code) != nil }
    }
}
