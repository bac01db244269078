import IntakeCore

/// What every column of the wide CSV holds: one entry per column, described from the newest
/// version that has the question.
struct CodebookEntry {
    var column: ExportColumn
    var question: Question?
    var questionnaire: Questionnaire?
    /// The compound field the column reads, if any.
    var field: CompoundField?
    /// The multiple-choice code the column indicates, if any.
    var choice: Choice?
    /// The repeat instance the column holds, for a question asked in a repeat.
    var instance: Int?
    /// Every version with this column, and where the question stands in it.
    var versions: [(version: String, position: QuestionPosition)]
    var codes: [String]

    /// Every entry of a plan, in column order.
    static func entries(_ plan: ExportPlan) -> [CodebookEntry] {
        plan.columns.map { column in
            guard case .answer(let key, let path) = column.source, let planned = plan.questions.first(where: { $0.key == key }) else {
                return CodebookEntry(column: column, versions: [], codes: [])
            }
            var versions: [(String, QuestionPosition)] = []
            var newest: (Question, Questionnaire)?
            for appearance in planned.appearances {
                guard appearance.question.type.part(at: path[...]) != nil else { continue }
                versions.append((appearance.version, appearance.question.position))
                newest = (appearance.question, plan.versions.first { $0.version == appearance.version }!)
            }
            let question = newest?.0 ?? planned.latest
            var type = question.type
            var field: CompoundField?
            var choice: Choice?
            var instance: Int?
            for step in path {
                switch (step, type) {
                case (.instance(let number), _): instance = number
                case (.field(let name), _) where type.parts != nil:
                    field = type.parts!.first { $0.key == name }
                    type = field?.type ?? .text
                case (.choice(let code), _):
                    choice = type.choices?.choice(code: code) ?? Choice(code: code, label: LocalizedText(code))
                default: break
                }
            }
            return CodebookEntry(
                column: column, question: question, questionnaire: newest?.1, field: field, choice: choice, instance: instance,
                versions: versions, codes: plan.codes(of: column))
        }
    }

    /// The type the column's part of the answer has (the field's type inside a compound).
    var partType: QuestionType? { field?.type ?? question?.type }

    /// The question text, with the field and choice the column reads.
    func label(in language: String?) -> String {
        if let fixed = column.fixedDescription { return language == nil ? fixed : "" }
        guard let question else { return "" }
        var text = question.text.text(in: language)
        if let field { text += " — " + field.label.text(in: language) }
        if let choice { text += ": " + choice.label.text(in: language) }
        if let instance { text += " [#\(instance)]" }
        if question.isRepeat { text += language == nil ? " (number of instances)" : "" }
        return text
    }

    /// `code=label` pairs of a single-choice column, joined by ` | `.
    func choiceList(in language: String?) -> String {
        guard choice == nil, let set = partType?.choices else { return "" }
        return codes.map { code in "\(code)=\(set.choice(code: code)?.label.text(in: language) ?? code)" }.joined(separator: " | ")
    }

    var range: String {
        switch partType {
        case .integer(let bounds)?: return Self.range(bounds.lower.map(String.init), bounds.upper.map(String.init))
        case .decimal(let bounds)?: return Self.range(bounds.lower.map(ExportPlan.number), bounds.upper.map(ExportPlan.number))
        case .date(let bounds)?: return Self.range(bounds.lower?.description, bounds.upper?.description)
        default: return ""
        }
    }

    private static func range(_ lower: String?, _ upper: String?) -> String {
        switch (lower, upper) {
        case (nil, nil): ""
        case (let lower?, nil): "≥ \(lower)"
        case (nil, let upper?): "≤ \(upper)"
        case (let lower?, let upper?): "\(lower) to \(upper)"
        }
    }

    var showIf: String {
        guard let condition = question?.showIf, let questionnaire else { return "" }
        return ConditionText.text(condition, in: questionnaire)
    }

    /// How a calculated question's value is computed, as the questionnaire writes it.
    var calculation: String {
        guard field == nil, choice == nil else { return "" }
        return question?.calculation?.description ?? ""
    }

    /// What an answer had to satisfy beyond its type and range: the constraint (with its
    /// message), the pattern, `required if`, the filter of its choices.
    var rules: String {
        guard let question, field == nil else { return "" }
        var rules: [String] = []
        if let expression = question.constraint?.expression { rules.append("constraint: \(expression)") }
        if let pattern = question.constraint?.pattern { rules.append("pattern: \(pattern)") }
        if let message = question.constraint?.message?.base { rules.append("message: \(message)") }
        if let requiredIf = question.requiredIf { rules.append("required if: \(requiredIf)") }
        if let filter = question.choiceFilter, let parent = questionnaire?.question(at: filter) { rules.append("filter: \(parent.key)") }
        return rules.joined(separator: "; ")
    }

    var typeName: String {
        if case .meta = column.source { return column.type.rawValue }
        if case .dataGroup = column.source { return "indicator (0/1)" }
        if choice != nil { return "indicator (0/1)" }
        if case .yesNo? = partType { return "yesno (1 = yes, 0 = no)" }
        return partType?.keyword ?? column.type.rawValue
    }

    var versionList: String { versions.map { "\($0.version)@\($0.position)" }.joined(separator: " ") }
}

/// The codebook as CSV: one row per wide-CSV column.
public final class CodebookCSVFormatter: ExportFormatter {
    let plan: ExportPlan

    public init(plan: ExportPlan) {
        self.plan = plan
    }

    var translations: [String] {
        var languages: [String] = []
        for version in plan.versions {
            for language in version.languages.dropFirst() where !languages.contains(language) { languages.append(language) }
        }
        return languages
    }

    /// The codebook's own columns: one text column per translation.
    var columnNames: [String] {
        ["column", "type", "section", "index", "question_id", "field", "choice_code", "text"] + translations.map { "text_\($0)" }
            + ["choices", "range", "required", "show_if", "calculation", "rules", "versions"]
    }

    public func header() -> String {
        var out = CSV.line(columnNames)
        for row in rows() { out += CSV.line(row.map { CSV.escape($0, marker: nil) }) }
        return out
    }

    /// One row per column of the wide table, in ``columnNames`` order, as written (before the
    /// CSV's escaping): the codebook.csv rows, and the xlsx's codebook sheet.
    func rows() -> [[String]] {
        let languages = translations
        return CodebookEntry.entries(plan).map { entry in
            let position = entry.versions.last?.position
            var row = [
                entry.column.name, entry.typeName, position.map { String($0.section) } ?? "", position.map { String($0.index) } ?? "",
                entry.question?.key ?? "", entry.field?.key ?? "", entry.choice?.code ?? "", entry.label(in: nil),
            ]
            row += languages.map { entry.question == nil ? "" : entry.label(in: $0) }
            let required = entry.field?.isRequired ?? entry.question?.isRequired
            row += [
                entry.choiceList(in: nil), entry.range, required.map { $0 ? "yes" : "no" } ?? "", entry.showIf, entry.calculation,
                entry.rules,
                entry.versionList,
            ]
            return row
        }
    }

    public func row(_ record: ExportRecord) -> String { "" }
    public var readsRecords: Bool { false }
    public func footer() -> String { "" }
}
