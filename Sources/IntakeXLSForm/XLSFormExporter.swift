import Foundation
import IntakeCore

/// Writes an Intake questionnaire as an XLSForm: a group per section, a row per question, its
/// lists on the choices sheet. What XLSForm has no column for (yes/no, ranges, identifying,
/// patterns, alerts, compound questions) goes in an `intake` column, which pyxform and ODK pass
/// over and Intake's import reads back, so importing the export gives the questionnaire again.
public enum XLSFormExporter {
    /// The questionnaire's XLSForm as an .xlsx file; `casesText` is its `cases.txt`, when it has one.
    public static func xlsx(_ questionnaire: Questionnaire, casesText: String? = nil) throws -> Data {
        try XLSXWriter.data(workbook(questionnaire, casesText: casesText))
    }

    /// A question's show-if as XLSForm's `relevant` writes it.
    static func relevance(of question: Question, in questionnaire: Questionnaire) -> String? {
        let writer = FormWriter(questionnaire)
        return question.showIf.map { XPath.write(writer.expression($0), writer.context) }
    }

    /// The workbook. A questionnaire's cases go two ways: as ODK's entities (an `entities` sheet
    /// and `save_to` cells, for ODK's tools), when it opens or follows one list; and whole, the
    /// `cases.txt` lines (`casesText`) in the settings' `intake` cell, which Intake's import reads
    /// back (property types, due dates, closing and assignment, which entities cannot say).
    public static func workbook(_ questionnaire: Questionnaire, casesText: String? = nil) -> Workbook {
        var writer = FormWriter(questionnaire)
        writer.casesText = casesText
        return writer.run()
    }
}

private struct FormWriter {
    let questionnaire: Questionnaire
    let languages: [String]
    let context: XPath.Writing
    var survey: [[String: String]] = []
    var choices: [[String: String]] = []
    var listContents: [String: ChoiceSet] = [:]
    /// By list: the choices column holding its tags (named after the question that filters it).
    var filterColumns: [String: String] = [:]
    var filterColumnOrder: Set<String> = []
    var casesText: String?
    /// The one entity ODK's sheet holds: its list, and the property each question saves to.
    let entity: ODKEntity?

    init(_ questionnaire: Questionnaire) {
        self.questionnaire = questionnaire
        languages = questionnaire.languages.isEmpty ? ["en"] : questionnaire.languages
        context = XPath.Writing(odkForm: questionnaire)
        entity = ODKEntity(questionnaire)
    }

    func header(_ field: String, _ language: String) -> String { "\(field)::\(Languages.header(for: language, in: questionnaire))" }

    /// The texts of a localized text under `field::Language (xx)` columns.
    func localized(_ field: String, _ text: LocalizedText?, into row: inout [String: String], transform: (String) -> String = { $0 }) {
        guard let text else { return }
        for (offset, language) in languages.enumerated() {
            let value = offset == 0 ? text.base : text.translations[language] ?? ""
            if !value.isEmpty { row[header(field, language)] = transform(value) }
        }
    }

    mutating func run() -> Workbook {
        let patientFields = usedPatientFields()
        if !patientFields.isEmpty {
            // Expressions read the patient's identification; XLSForm needs questions for them.
            survey.append(["type": "begin group", "name": "intake_patient", header("label", languages[0]): "Patient", "intake": "patient"])
            if patientFields.contains("date_of_birth") {
                survey.append([
                    "type": "date", "name": "date_of_birth", header("label", languages[0]): "Date of birth", "intake": "patient",
                ])
            }
            if patientFields.contains("sex") {
                survey.append(["type": "select_one intake_sex", "name": "sex", header("label", languages[0]): "Sex", "intake": "patient"])
                for code in ["female", "male", "other", "unknown"] {
                    choices.append([
                        "list_name": "intake_sex", "name": code,
                        header("label", languages[0]): code.prefix(1).uppercased() + code.dropFirst(),
                    ])
                }
            }
            survey.append(["type": "end group", "intake": "patient"])
        }
        if let entity, entity.follows {
            // The case to follow, picked from the list's entities (ODK's way); Intake's form
            // names it outside (intake fill --case), and its import leaves this question out.
            survey.append([
                "type": "select_one_from_file \(entity.list).csv", "name": context.picker,
                header("label", languages[0]): "Case", "required": "yes",
            ])
        }
        let keys = Set(questionnaire.allQuestions.map(\.key))
        for section in questionnaire.sections {
            // pyxform wants every name read by ${…} unique in the whole form, groups' too.
            var row = ["type": "begin group", "name": keys.contains(section.name) ? "\(section.name)_section" : section.name]
            if keys.contains(section.name) { row["intake"] = "section: \(section.name)" }
            localized("label", section.title, into: &row)
            survey.append(row)
            var open: [QuestionPosition] = []
            for question in section.questions {
                while let innermost = open.last, question.group != innermost {
                    survey.append(["type": "end repeat"])
                    open.removeLast()
                }
                add(question)
                if question.isRepeat { open.append(question.position) }
            }
            for _ in open { survey.append(["type": "end repeat"]) }
            survey.append(["type": "end group"])
        }
        var sheets = [
            sheet(
                "survey", survey, fixed: ["type", "name"],
                order: [
                    "label", "hint", "required", "relevant", "constraint", "constraint_message", "calculation", "default", "choice_filter",
                    "repeat_count", "appearance", "save_to", "intake",
                ]),
            sheet("choices", choices, fixed: ["list_name", "name"], order: ["label"] + filterColumnOrder.sorted()),
            sheet("settings", [settings()], fixed: ["form_title", "form_id", "version", "default_language"], order: ["intake"]),
        ]
        if let entity {
            var row = ["list_name": entity.list]
            if entity.follows {
                row["entity_id"] = "${\(context.picker)}"
            } else {
                // ODK names an entity by its label; Intake names a case by its record's patient.
                row["label"] = "'\(entity.list)'"
                if let condition = entity.condition { row["create_if"] = XPath.write(condition, context) }
            }
            let columns = ["list_name", "label", "create_if", "entity_id"].filter { $0 == "list_name" || row[$0] != nil }
            sheets.append(Sheet(name: "entities", cells: [columns, columns.map { row[$0] ?? "" }]))
        }
        return Workbook(sheets: sheets)
    }

    func settings() -> [String: String] {
        var row = [
            "form_title": questionnaire.title.base, "form_id": questionnaire.id, "version": questionnaire.version,
            "default_language": Languages.header(for: languages[0], in: questionnaire),
        ]
        let titles = languages.dropFirst().compactMap { language in
            questionnaire.title.translations[language].map { "title.\(language): \($0)" }
        }
        // The case rules whole, a line each after `case:`, for Intake's import to read back.
        let cases = (casesText ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }.map { "case: \($0)" }
        if !titles.isEmpty || !cases.isEmpty { row["intake"] = (titles + cases).joined(separator: "\n") }
        return row
    }

    /// A sheet with its columns in a fixed order: the fixed ones, then each field's language
    /// columns in the questionnaire's language order.
    func sheet(_ name: String, _ rows: [[String: String]], fixed: [String], order: [String]) -> Sheet {
        var columns = fixed
        for field in order {
            if rows.contains(where: { $0[field] != nil }) { columns.append(field) }
            for language in languages where rows.contains(where: { $0[header(field, language)] != nil }) {
                columns.append(header(field, language))
            }
        }
        return Sheet(
            name: name,
            cells: [columns]
                + rows.map { row in
                    var cells = columns.map { row[$0] ?? "" }
                    while cells.last == "" { cells.removeLast() }  // as a spreadsheet reads back
                    return cells
                })
    }

    func usedPatientFields() -> Set<String> {
        var used: Set<String> = []
        func visit(_ bound: BoundExpression?) {
            guard let bound else { return }
            for name in bound.positions.keys where PatientIdentification.expressionFields[name] != nil && !context.questions.contains(name)
            {
                used.insert(name)
            }
        }
        for question in questionnaire.allQuestions {
            for bound in [
                question.calculation, question.constraint?.expression, question.requiredIf, question.defaultValue,
                question.alert?.condition, question.repeatCount,
            ] {
                visit(bound)
            }
        }
        // The entity's create_if is written too.
        if questionnaire.cases.follows == nil, questionnaire.cases.opens.count == 1 { visit(questionnaire.cases.opens[0].condition) }
        return used
    }

    // MARK: A question

    mutating func add(_ question: Question) {
        var row: [String: String] = ["name": question.key]
        if let property = entity?.saves[question.key], question.group == nil { row["save_to"] = property }
        var intake: [String] = []
        var translatedIntake: [String: [String]] = [:]
        let isCalculateRow =
            question.calculation != nil && question.text.base == question.key
            && question.text.translations.values.allSatisfy { $0 == question.key }
            && [.text, .yesNo, .integer(.unbounded), .decimal(.unbounded), .date(.unbounded)].contains(question.type.withoutBounds)
        if !isCalculateRow {
            localized("label", question.text, into: &row) { question.type == .note ? Self.noteReferences($0) : $0 }
        }
        localized("hint", question.help, into: &row)
        switch question.type {
        case .text: row["type"] = "text"
        case .yesNo:
            row["type"] = "select_one yes_no"
            intake.append("yesno")
            addYesNoList()
        case .singleChoice(let set), .multipleChoice(let set):
            let keyword = if case .singleChoice = question.type { "select_one" } else { "select_multiple" }
            let list = addList(set, for: question)
            row["type"] = "\(keyword) \(list)"
            if set.listName != nil, questionnaire.allQuestions.filter({ $0.type.choices?.listName == set.listName }).count == 1 {
                intake.append("from list")
            }
        case .integer(let bounds):
            row["type"] = "integer"
            if bounds != .unbounded { intake.append("integer \(Self.bounds(bounds))") }
        case .decimal(let bounds):
            row["type"] = "decimal"
            if bounds != .unbounded { intake.append("decimal \(Self.bounds(bounds))") }
        case .date(let bounds):
            row["type"] = "date"
            if bounds != .unbounded { intake.append("date \(Self.bounds(bounds))") }
        case .compound(let fields):
            row["type"] = "text"
            intake.append("compound: " + fields.map(Self.field).joined(separator: "; "))
            for language in languages.dropFirst() {
                var parts: [String] = []
                let names = fields.compactMap { field in field.label.translations[language].map { "\(field.key)=\($0)" } }
                if !names.isEmpty { parts.append("fields: " + names.joined(separator: ", ")) }
                let labels = fields.flatMap { field in
                    (field.type.choices?.listName == nil ? field.type.choices?.choices ?? [] : []).compactMap { choice in
                        choice.label.translations[language].map { "\(field.key).\(choice.code)=\($0)" }
                    }
                }
                if !labels.isEmpty { parts.append("labels: " + labels.joined(separator: ", ")) }
                translatedIntake[language, default: []] += parts
            }
        case .note: row["type"] = "note"
        case .geopoint: row["type"] = "geopoint"
        case .repeatGroup(let bounds):
            row["type"] = "begin repeat"
            if bounds != .unbounded { intake.append("repeat \(Self.bounds(bounds))") }
        case .attachment(let kind):
            switch kind {
            case .photo: row["type"] = "image"
            case .signature:
                row["type"] = "image"
                row["appearance"] = "signature"
            case .document: row["type"] = "file"
            case .audio: row["type"] = "audio"
            }
        }
        if isCalculateRow {
            row["type"] = "calculate"
            intake = [Self.typeSpec(question.type)]
        }
        if question.isRequired { row["required"] = "yes" }
        if let requiredIf = question.requiredIf { row["required"] = XPath.write(requiredIf.expression, context) }
        if question.isIdentifying { intake.append("identifying") }
        if let showIf = question.showIf { row["relevant"] = XPath.write(expression(showIf), context) }
        if let calculation = question.calculation { row["calculation"] = XPath.write(calculation.expression, context) }
        if let constraint = question.constraint {
            if let expression = constraint.expression { row["constraint"] = XPath.write(expression.expression, context) }
            if let pattern = constraint.pattern { intake.append("pattern: \(pattern)") }
            localized("constraint_message", constraint.message, into: &row)
        }
        if let value = question.defaultValue { row["default"] = defaultText(value.expression) }
        if let parent = question.choiceFilter, let key = questionnaire.question(at: parent)?.key,
            let list = row["type"]?.split(separator: " ").last
        {
            row["choice_filter"] = "\(filterColumns[String(list)] ?? "filter") = ${\(key)}"
        }
        if let count = question.repeatCount { row["repeat_count"] = XPath.write(count.expression, context) }
        if let alert = question.alert {
            intake.append("alert if: \(alert.condition.expression)")
            intake.append("alert: \(alert.message.base)")
            for language in languages.dropFirst() {
                if let message = alert.message.translations[language] {
                    translatedIntake[language, default: []].append("alert: \(message)")
                }
            }
        }
        if !intake.isEmpty { row["intake"] = intake.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") }
        for (language, parts) in translatedIntake where !parts.isEmpty {
            row[header("intake", language)] = parts.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ")
        }
        survey.append(row)
    }

    /// A default that is a plain value is written as one (XLSForm reads `default` as a value
    /// unless it is an expression); any other default as an expression.
    func defaultText(_ expression: Expression) -> String {
        switch expression {
        case .number(let value): ExpressionValue.number(value).text
        case .date(let date): date.description
        case .bool(let value): value ? "yes" : "no"
        case .text(let value) where !value.contains("(") && !value.contains("${") && value != ".": value
        case .name(let name, _)
        where !context.questions.contains(name) && name != "." && PatientIdentification.expressionFields[name] == nil: name
        default: XPath.write(expression, context)
        }
    }

    func expression(_ condition: Condition) -> Expression {
        ConditionExpression(questionnaire: questionnaire).expression(condition)
    }

    // MARK: Lists

    mutating func addYesNoList() {
        guard listContents["yes_no"] == nil else { return }
        listContents["yes_no"] = ChoiceSet(choices: [])
        for (code, index) in [("yes", 0), ("no", 1)] {
            var row = ["list_name": "yes_no", "name": code]
            for language in languages {
                if let words = Languages.yesNo(language) { row[header("label", language)] = index == 0 ? words.yes : words.no }
            }
            if row[header("label", languages[0])] == nil { row[header("label", languages[0])] = code == "yes" ? "Yes" : "No" }
            choices.append(row)
        }
    }

    /// Puts a question's choices on the choices sheet once (a shared list under its own name,
    /// inline choices under the question's) and returns the list's name.
    mutating func addList(_ set: ChoiceSet, for question: Question) -> String {
        var name = set.listName ?? question.key
        if let existing = listContents[name], existing != set {
            name = "\(question.key)_choices"
        }
        if listContents[name] == nil {
            listContents[name] = set
            for choice in set.choices {
                var row = ["list_name": name, "name": choice.code]
                localized("label", choice.label, into: &row)
                if let tag = choice.filter {
                    // The column is named after the question that filters, as XLSForms do.
                    let parent = questionnaire.allQuestions.first { $0.type.choices == set && $0.choiceFilter != nil }?.choiceFilter
                    let key = parent.flatMap { questionnaire.question(at: $0)?.key } ?? "filter"
                    let column =
                        ["list_name", "name", "label", "intake", "image", "audio", "video", "media"].contains(key) ? "filter_\(key)" : key
                    filterColumns[name] = column
                    row[column] = tag
                    filterColumnOrder.insert(column)
                }
                choices.append(row)
            }
        }
        return name
    }

    // MARK: Intake's own spellings

    static func bounds<T>(_ bounds: ClosedBounds<T>) -> String {
        func text(_ value: T?) -> String {
            guard let value else { return "" }
            if let number = value as? Double { return ExpressionValue.number(number).text }
            return "\(value)"
        }
        return "\(text(bounds.lower))..\(text(bounds.upper))"
    }

    /// A type as a question line writes it (for calculated rows and compound fields).
    static func typeSpec(_ type: QuestionType) -> String {
        switch type {
        case .text: "text"
        case .yesNo: "yesno"
        case .integer(let b): b == .unbounded ? "integer" : "integer \(bounds(b))"
        case .decimal(let b): b == .unbounded ? "decimal" : "decimal \(bounds(b))"
        case .date(let b): b == .unbounded ? "date" : "date \(bounds(b))"
        case .singleChoice(let set), .multipleChoice(let set):
            (type.keyword)
                + (set.listName.map { " from \($0)" } ?? ": " + set.choices.map { "\($0.code)=\($0.label.base)" }.joined(separator: ", "))
        default: type.keyword
        }
    }

    static func field(_ field: CompoundField) -> String {
        "\(field.key)\(field.isRequired ? "*" : "") \(typeSpec(field.type))"
    }

    /// A note's `{bmi}` is XLSForm's `${bmi}`.
    static func noteReferences(_ text: String) -> String {
        var out = ""
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            if c == "{", let close = chars.firstIndex(of: "}"),
                chars[chars.startIndex..<close].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), close > chars.startIndex
            {
                out += "${" + String(chars[chars.startIndex..<close]) + "}"
                chars = chars[(close + 1)...]
            } else {
                out.append(c)
            }
        }
        return out
    }
}

extension QuestionType {
    /// The type with any bounds dropped, to ask what kind of type it is.
    fileprivate var withoutBounds: QuestionType {
        switch self {
        case .integer: .integer(.unbounded)
        case .decimal: .decimal(.unbounded)
        case .date: .date(.unbounded)
        default: self
        }
    }
}

/// A show-if condition as the expression it means (Intake's shorter forms included), for
/// writing it as XPath.
struct ConditionExpression {
    let questionnaire: Questionnaire

    /// A show-if as an expression (Intake's shorter forms included).
    func expression(_ condition: Condition) -> Expression {
        func name(_ position: QuestionPosition) -> Expression {
            if let key = questionnaire.question(at: position)?.key { return .name(key, column: 1) }
            let field = PatientIdentification.expressionFields.first { $0.value == position }?.key
            return .name(field ?? "\(position)", column: 1)
        }
        func value(_ value: ConditionValue) -> Expression {
            switch value {
            case .yesNo(let answer): .bool(answer)
            case .code(let code): .text(code)
            case .integer(let number): .number(Double(number))
            case .decimal(let number): .number(number)
            case .date(let date): .date(date)
            case .text(let text): .text(text)
            }
        }
        switch condition {
        case .compare(let position, let op, let given): return .compare(op, name(position), value(given))
        case .anyOf(let position, let values):
            let parts = values.map { Expression.compare(.equal, name(position), value($0)) }
            return parts.count == 1 ? parts[0] : .or(parts)
        case .answered(let position, let expected): return .answered(name(position), expected)
        case .and(let parts): return .and(parts.map(expression))
        case .or(let parts): return .or(parts.map(expression))
        case .not(let inner): return .not(expression(inner))
        case .expression(let bound): return bound.expression
        }
    }
}
