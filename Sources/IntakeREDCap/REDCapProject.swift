import IntakeCore
import IntakeExport

/// A questionnaire as a REDCap project sees it: a section is an instrument, a repeat group at
/// the top of a section a repeating instrument of its own, a question a field (a compound
/// question a field per part), a multiple choice a checkbox field whose export columns are
/// `field___code`. The record id field, `record_id`, comes first.
///
/// Built from an export plan, so a project covers every published version of the questionnaire
/// and leaves out what a de-identified export leaves out (identifying questions); a record of
/// any version fills the fields of its own questions, found by question key.
struct REDCapProject {
    static let recordIdField = "record_id"

    struct Instrument {
        var name: String
        var label: String
        var repeating: Bool
        /// The follow-up questionnaire whose visits it holds (a repeating instrument, read only).
        var followUp: String? = nil
    }

    /// One REDCap field, and where its value comes from.
    struct Field {
        var name: String
        var form: String
        var type: String
        var label: String
        var choices: [(code: String, label: String)] = []
        var validation = ""
        var minimum = ""
        var maximum = ""
        var note = ""
        var required = false
        var identifier = false
        var sectionHeader = ""
        /// The question it reads (nil for `record_id`), and the compound field it is a part of.
        var questionKey: String?
        var part: String?
        /// The repeat group (by key) whose instances it is answered in.
        var repeatKey: String?
        /// The patient's identification it holds (`givenName`, `familyName`, `dateOfBirth`, `sex`, `externalId`).
        var patient: String?
        /// The follow-up questionnaire whose visits it is answered in (its question is that
        /// questionnaire's); with no question, the visit's own record id.
        var followUp: String?
        /// When it is shown, in REDCap's branching logic (`[sex] = 'female' and [age] >= 15`).
        var branching = ""

        /// The columns of a record export: one, or one per choice for a checkbox (`field___code`,
        /// the code as REDCap spells it, made unique when two codes spell alike).
        var exportNames: [(name: String, code: String?)] {
            guard type == "checkbox" else { return [(name, nil)] }
            var used: Set<String> = []
            return choices.map { choice in
                var suffix = REDCapProject.checkboxSuffix(choice.code)
                let base = suffix
                var number = 2
                while !used.insert(suffix).inserted {
                    suffix = "\(base)_\(number)"
                    number += 1
                }
                return ("\(name)___\(suffix)", choice.code)
            }
        }
        var holdsData: Bool { type != "descriptive" }
    }

    let questionnaireId: String
    let title: String
    var instruments: [Instrument] = []
    var fields: [Field] = []
    /// Question key → field names (one, or one per compound part).
    var fieldsOfQuestion: [String: [Int]] = [:]
    var hasRepeats: Bool { instruments.contains(where: \.repeating) }
    /// The repeating instruments that hold follow-up visits, by the follow-up questionnaire's id.
    var followUpInstruments: [String: String] {
        Dictionary(
            instruments.compactMap { instrument in instrument.followUp.map { ($0, instrument.name) } }, uniquingKeysWith: { a, _ in a })
    }
    /// The repeat group (by question key) each repeating instrument holds.
    private(set) var repeatOfInstrument: [String: String] = [:]

    func repeatKey(of instrument: String) -> String? { repeatOfInstrument[instrument] }

    /// - Parameter followUps: the questionnaires that follow the cases this one opens: each a
    ///   repeating instrument whose instances are the visits of the case a record opened.
    init(plan: ExportPlan, followUps: [ExportPlan] = []) {
        questionnaireId = plan.questionnaireId
        let newest = plan.versions[plan.versions.count - 1]
        title = newest.title.base
        var used: Set<String> = [Self.recordIdField]
        func unique(_ raw: String, prefix: String) -> String {
            var name = Self.fieldName(raw, prefix: prefix)
            var suffix = 2
            let base = name
            while used.contains(name) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            used.insert(name)
            return name
        }
        var shownWhen: [(indexes: [Int], condition: Condition)] = []
        var instrumentOfSection: [Int: String] = [:]
        var instrumentOfRepeat: [String: String] = [:]
        var formNames: Set<String> = []
        func instrument(_ raw: String, label: String, repeating: Bool) -> String {
            var name = Self.fieldName(raw, prefix: "form_")
            var suffix = 2
            let base = name
            // An instrument's `<name>_complete` column is no field's name either.
            while formNames.contains(name) || used.contains("\(name)_complete") {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            formNames.insert(name)
            used.insert("\(name)_complete")
            instruments.append(Instrument(name: name, label: label, repeating: repeating))
            return name
        }
        // The patient's identification first, with the record id, as Intake's form asks it: what
        // an import must give for a complete record. An export is de-identified, so the identifier
        // fields come back empty (and sex as it is).
        let patientForm = instrument("patient", label: "Patient", repeating: false)
        fields.append(Field(name: Self.recordIdField, form: patientForm, type: "text", label: "Record ID (the Intake record's id)"))
        for (name, label, patient) in [
            ("given_name", "Given name", "givenName"), ("family_name", "Family name", "familyName"),
            ("date_of_birth", "Date of birth", "dateOfBirth"),
            ("sex", "Sex", "sex"), ("external_id", "Registration number from another system", "externalId"),
        ] {
            used.insert(name)
            var field = Field(name: name, form: patientForm, type: "text", label: label, identifier: patient != "sex", patient: patient)
            if patient == "dateOfBirth" { field.validation = "date_ymd" }
            if patient == "sex" {
                field.type = "radio"
                field.choices = PatientIdentification.Sex.allCases.map {
                    ($0.rawValue, $0.rawValue.prefix(1).uppercased() + $0.rawValue.dropFirst())
                }
            }
            fields.append(field)
        }
        for section in newest.sections {
            instrumentOfSection[section.number] = instrument(section.name, label: section.title.base, repeating: false)
        }
        for planned in plan.questions {
            let question = planned.latest
            if plan.leavesOut(question) { continue }
            let sectionNumber = question.position.section
            guard let sectionForm = instrumentOfSection[sectionNumber] ?? instruments.first?.name else { continue }
            var form = sectionForm
            if question.isRepeat {
                // Only a repeat at the top of a section is an instrument: REDCap repeats forms, not
                // groups inside them (a repeat inside a repeat is left out; see docs/researchers.md).
                guard question.group == nil else { continue }
                let name = instrument(question.key, label: question.text.base, repeating: true)
                instrumentOfRepeat[question.key] = name
                repeatOfInstrument[name] = question.key
                continue
            }
            var repeatKey: String?
            if let group = question.group {
                guard
                    let groupQuestion = newest.question(at: group) ?? plan.questions.first(where: { $0.latest.position == group })?.latest,
                    groupQuestion.group == nil, let repeatForm = instrumentOfRepeat[groupQuestion.key]
                else { continue }
                form = repeatForm
                repeatKey = groupQuestion.key
            }
            let made = Self.fields(of: question, form: form) { unique($0, prefix: "f_") }
            if made.isEmpty { continue }
            var indexes: [Int] = []
            for var field in made {
                field.repeatKey = repeatKey
                indexes.append(fields.count)
                fields.append(field)
            }
            fieldsOfQuestion[question.key] = indexes
            if let showIf = question.showIf { shownWhen.append((indexes, showIf)) }
        }
        // Each follow-up: one repeating instrument of its questions (the patient's fields and
        // repeats aside), each field named after the instrument so it never meets the record's
        // own, and first the visit's record id.
        for followUp in followUps {
            let newestVisit = followUp.versions[followUp.versions.count - 1]
            let form = instrument(followUp.questionnaireId, label: newestVisit.title.base, repeating: true)
            instruments[instruments.count - 1].followUp = followUp.questionnaireId
            var visitId = Field(
                name: unique("\(form)_record_id", prefix: "f_"), form: form, type: "text",
                label: "The visit's record id (its record in \(followUp.questionnaireId))")
            visitId.followUp = followUp.questionnaireId
            fields.append(visitId)
            for planned in followUp.questions {
                let question = planned.latest
                guard !followUp.leavesOut(question), question.group == nil, !question.isRepeat else { continue }
                let made = Self.fields(of: question, form: form) { unique("\(form)_\($0)", prefix: "f_") }
                for var field in made {
                    field.followUp = followUp.questionnaireId
                    fields.append(field)
                }
            }
        }
        // REDCap keeps an instrument's fields together in its data dictionary: a section's
        // fields, then each repeating instrument's (a repeat's questions come between a section's
        // own in Intake's order).
        let order = Dictionary(uniqueKeysWithValues: instruments.enumerated().map { ($0.element.name, $0.offset) })
        let sorted = fields.indices.sorted { (order[fields[$0].form] ?? 0, $0) < (order[fields[$1].form] ?? 0, $1) }
        let moved = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($0.element, $0.offset) })
        fields = sorted.map { fields[$0] }
        fieldsOfQuestion = fieldsOfQuestion.mapValues { $0.map { moved[$0]! } }
        // Show-if conditions as branching logic, where REDCap's can say them.
        for (indexes, condition) in shownWhen {
            guard let logic = branching(condition, in: newest) else { continue }
            for index in indexes { fields[moved[index]!].branching = logic }
        }
    }

    /// The fields of one question in `form`: one, or one per part of a compound question (none
    /// for a repeat, which is an instrument); `name` makes each field's name unique from its raw one.
    static func fields(of question: Question, form: String, name: (String) -> String) -> [Field] {
        switch question.type {
        case .compound(let parts):
            return parts.map { part in
                var field = Self.field(
                    for: part.type, name: name("\(question.key)_\(part.key)"), form: form,
                    label: "\(question.text.base): \(part.label.base)")
                field.questionKey = question.key
                field.part = part.key
                field.required = question.isRequired && part.isRequired
                field.identifier = question.isIdentifying
                return field
            }
        case .repeatGroup: return []
        default:
            var field = Self.field(for: question.type, name: name(question.key), form: form, label: question.text.base)
            field.questionKey = question.key
            field.required = question.isRequired
            field.identifier = question.isIdentifying
            if question.calculation != nil { field.note = "Calculated by Intake" }
            return [field]
        }
    }

    /// Intake's show-if in REDCap's branching logic: comparisons of a field with a value, a
    /// checkbox's choice ticked (`[symptoms(cough)] = '1'`), answered or not, and, or. Nil for
    /// what REDCap's logic cannot say as plainly (a `not` of a combination, Intake's functions).
    func branching(_ condition: Condition, in questionnaire: Questionnaire) -> String? {
        func field(_ position: QuestionPosition) -> Field? {
            guard let key = questionnaire.question(at: position)?.key, let index = fieldsOfQuestion[key]?.first,
                fieldsOfQuestion[key]?.count == 1
            else { return nil }
            return fields[index]
        }
        func literal(_ value: ConditionValue) -> String {
            switch value {
            case .yesNo(let yes): "'\(yes ? 1 : 0)'"
            case .code(let code): "'\(code)'"
            case .integer(let number): "\(number)"
            case .decimal(let number): ExportPlan.number(number)
            case .date(let date): "'\(date)'"
            case .text(let text): "'\(text.replacingOccurrences(of: "'", with: "\\'"))'"
            }
        }
        func code(_ value: ConditionValue) -> String? {
            if case .code(let code) = value { return code }
            return nil
        }
        func write(_ condition: Condition, negated: Bool) -> String? {
            switch condition {
            case .compare(let position, let op, let value):
                guard let field = field(position) else { return nil }
                if field.type == "checkbox" {
                    guard let code = code(value), op == .equal || op == .notEqual else { return nil }
                    return "[\(field.name)(\(code))] = '\((op == .equal) != negated ? 1 : 0)'"
                }
                let ops: [ComparisonOperator: (String, String)] = [
                    .equal: ("=", "<>"), .notEqual: ("<>", "="), .less: ("<", ">="), .lessOrEqual: ("<=", ">"), .greater: (">", "<="),
                    .greaterOrEqual: (">=", "<"),
                ]
                guard let (plain, inverse) = ops[op] else { return nil }
                return "[\(field.name)] \(negated ? inverse : plain) \(literal(value))"
            case .anyOf(let position, let values):
                guard let field = field(position), !values.isEmpty else { return nil }
                let each = values.map { value -> String? in
                    if field.type == "checkbox" { return code(value).map { "[\(field.name)(\($0))] = '\(negated ? 0 : 1)'" } }
                    return "[\(field.name)] \(negated ? "<>" : "=") \(literal(value))"
                }
                guard each.allSatisfy({ $0 != nil }) else { return nil }
                return each.count == 1 ? each[0] : "(" + each.compactMap { $0 }.joined(separator: negated ? " and " : " or ") + ")"
            case .answered(let position, let answered):
                guard let field = field(position) else { return nil }
                if field.type == "checkbox" {
                    let ticked = field.choices.map { "[\(field.name)(\($0.code))] = '1'" }
                    guard !ticked.isEmpty, answered != negated else { return nil }
                    return "(" + ticked.joined(separator: " or ") + ")"
                }
                return "[\(field.name)] \(answered != negated ? "<>" : "=") ''"
            case .and(let parts), .or(let parts):
                let isAnd = { if case .and = condition { return true } else { return false } }() != negated
                let written = parts.map { write($0, negated: negated) }
                guard !written.isEmpty, written.allSatisfy({ $0 != nil }) else { return nil }
                return "(" + written.compactMap { $0 }.joined(separator: isAnd ? " and " : " or ") + ")"
            case .not(let inner):
                return write(inner, negated: !negated)
            case .expression:
                return nil
            }
        }
        guard var logic = write(condition, negated: false) else { return nil }
        if logic.hasPrefix("("), logic.hasSuffix(")"), !logic.dropFirst().dropLast().contains("(") {
            logic = String(logic.dropFirst().dropLast())
        }
        return logic
    }

    static func field(for type: QuestionType, name: String, form: String, label: String) -> Field {
        var field = Field(name: name, form: form, type: "text", label: label)
        switch type {
        case .text: field.type = "notes"
        case .yesNo: field.type = "yesno"
        case .singleChoice(let set):
            field.type = "radio"
            field.choices = set.choices.map { ($0.code, $0.label.base) }
        case .multipleChoice(let set):
            field.type = "checkbox"
            field.choices = set.choices.map { ($0.code, $0.label.base) }
        case .integer(let bounds):
            field.validation = "integer"
            field.minimum = bounds.lower.map { "\($0)" } ?? ""
            field.maximum = bounds.upper.map { "\($0)" } ?? ""
        case .decimal(let bounds):
            field.validation = "number"
            field.minimum = bounds.lower.map { "\($0)" } ?? ""
            field.maximum = bounds.upper.map { "\($0)" } ?? ""
        case .date: field.validation = "date_ymd"
        case .note: field.type = "descriptive"
        case .geopoint: field.note = "latitude longitude [altitude [accuracy]], as ODK writes a place"
        case .attachment: field.type = "file"
        case .compound, .repeatGroup: break
        }
        return field
    }

    /// A REDCap variable name: lower case letters, digits and `_`, starting with a letter.
    static func fieldName(_ raw: String, prefix: String) -> String {
        var name = ""
        for scalar in raw.lowercased().unicodeScalars {
            name.unicodeScalars.append(("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? scalar : "_")
        }
        if name.first.map({ !$0.isLetter }) ?? true { name = prefix + name }
        return String(name.prefix(100))
    }

    /// A choice code as REDCap writes it after `___`: lower case, anything else `_`.
    static func checkboxSuffix(_ code: String) -> String {
        var out = ""
        for scalar in code.lowercased().unicodeScalars {
            out.unicodeScalars.append(("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) ? scalar : "_")
        }
        return out
    }

    func fields(of form: String) -> [Field] { fields.filter { $0.form == form } }

    /// The data dictionary rows, each with REDCap's 18 keys in its order.
    func metadata(fields wanted: Set<String>?, forms: Set<String>?) -> [[(String, String)]] {
        fields.filter { field in
            (wanted.map { $0.contains(field.name) } ?? true) && (forms.map { $0.contains(field.form) } ?? true)
        }.map { field in
            [
                ("field_name", field.name), ("form_name", field.form), ("section_header", field.sectionHeader), ("field_type", field.type),
                ("field_label", field.label),
                (
                    "select_choices_or_calculations",
                    field.choices.map { "\($0.code), \($0.label.replacingOccurrences(of: "|", with: "/"))" }.joined(separator: " | ")
                ),
                ("field_note", field.note), ("text_validation_type_or_show_slider_number", field.validation),
                ("text_validation_min", field.minimum), ("text_validation_max", field.maximum), ("identifier", field.identifier ? "y" : ""),
                ("branching_logic", field.branching), ("required_field", field.required ? "y" : ""), ("custom_alignment", ""),
                ("question_number", ""),
                ("matrix_group_name", ""), ("matrix_ranking", ""),
                (
                    "field_annotation",
                    field.questionKey.map {
                        "@INTAKE-QUESTION=\(field.followUp.map { "\($0):" } ?? "")\($0)\(field.part.map { "/\($0)" } ?? "")"
                    }
                        ?? ""
                ),
            ]
        }
    }
}
