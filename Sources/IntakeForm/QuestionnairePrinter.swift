import IntakeCore

/// Renders a questionnaire as a field worker sees it, for `intake questionnaire show`.
public struct QuestionnairePrinter {
    public var language: String?

    public init(language: String? = nil) {
        self.language = language
    }

    public func lines(for questionnaire: Questionnaire) -> [String] {
        let display = AnswerDisplay(language: language)
        var lines = [
            "\(questionnaire.title.text(in: language)) (\(questionnaire.id), version \(questionnaire.version))",
            "\(questionnaire.sections.count) sections, \(questionnaire.questionCount) questions; languages: \(questionnaire.languages.joined(separator: ", "))",
            "* marks a required question.",
        ]
        for section in questionnaire.sections {
            lines.append("")
            lines.append("── Section \(section.number): \(section.title.text(in: language)) ──")
            for question in section.questions {
                let id = question.id.map { " {\($0)}" } ?? ""
                // A repeat's questions are indented under it, a level per repeat.
                var depth = 0
                var group = question.group
                while let current = group {
                    depth += 1
                    group = questionnaire.question(at: current)?.group
                }
                let indent = String(repeating: "  ", count: depth)
                let start = lines.count
                lines.append("[\(question.position)] \(question.text.text(in: language))\(question.isRequired ? " *" : "")\(id)")
                defer { if depth > 0 { for index in start..<lines.count { lines[index] = indent + lines[index] } } }
                if case .repeatGroup(let bounds) = question.type {
                    var text = "    repeat: asked once per instance"
                    switch (bounds.lower, bounds.upper) {
                    case (let lower?, let upper?): text += ", \(lower) to \(upper) instances"
                    case (let lower?, nil): text += ", at least \(lower)"
                    case (nil, let upper?): text += ", at most \(upper)"
                    case (nil, nil): break
                    }
                    if let count = question.repeatCount { text += "; as many as \(count)" }
                    lines.append(text)
                } else if question.type == .note {
                    lines.append("    note (shown, not answered)")
                } else if let calculation = question.calculation {
                    lines.append("    calculated: \(calculation)")
                } else {
                    lines.append("    " + display.hint(for: question.type))
                }
                if let set = question.type.choices, set.choices.count <= AnswerDisplay.shortListLimit {
                    lines += display.choiceLines(set.choices, numbersFrom: set.choices)
                } else if let list = question.type.choices?.listName {
                    lines.append("    choices from the list '\(list)'")
                }
                if case .compound(let fields) = question.type {
                    for field in fields {
                        lines.append(
                            "    - \(field.label.text(in: language)): \(display.hint(for: field.type))\(field.isRequired ? ", required" : "")"
                        )
                    }
                }
                if let help = question.help?.text(in: language), !help.isEmpty { lines.append("    help: \(help)") }
                if let condition = question.showIf { lines.append("    shown if: \(questionnaire.describe(condition))") }
                if let filter = question.choiceFilter, let parent = questionnaire.question(at: filter) {
                    lines.append("    choices follow the answer to \(parent.key)")
                }
                if let requiredIf = question.requiredIf { lines.append("    required if: \(requiredIf)") }
                if let constraint = question.constraint {
                    let rule = [constraint.expression.map { "\($0)" }, constraint.pattern.map { "pattern \($0)" }].compactMap { $0 }
                    let message = constraint.message.map { " (\($0.text(in: language)))" } ?? ""
                    lines.append("    must hold: \(rule.joined(separator: "; "))\(message)")
                }
                if let defaultValue = question.defaultValue { lines.append("    default: \(defaultValue)") }
                if let alert = question.alert {
                    lines.append("    alerts the coordinators if \(alert.condition): \(alert.message.text(in: language))")
                }
            }
        }
        return lines
    }
}
