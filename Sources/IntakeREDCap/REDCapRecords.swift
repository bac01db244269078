import Foundation
import IntakeCore
import IntakeExport

/// Records in REDCap's flat format, both ways: a row per record (and a row per instance of each
/// repeating instrument), every value a string, `""` for no answer; a checkbox a column per
/// choice, `"0"`/`"1"`; `<form>_complete` `"2"` for a complete record and `"0"` for a draft.
struct REDCapRows {
    let project: REDCapProject
    /// The questionnaire of each version, by version.
    let versions: [String: Questionnaire]
    /// The follow-up questionnaires' versions, by id and version (``visitKey(_:)``).
    var followUpVersions: [String: Questionnaire] = [:]

    static func visitKey(_ reference: QuestionnaireReference) -> String { reference.id + "\u{0}" + reference.version }

    enum Values {
        case raw
        case labels(checkboxLabels: Bool)
    }

    /// The column names of an export of these fields (nil: all), in the project's order.
    func columns(fields wanted: Set<String>?) -> [String] {
        var columns = [REDCapProject.recordIdField]
        if project.hasRepeats { columns += ["redcap_repeat_instrument", "redcap_repeat_instance"] }
        for instrument in project.instruments {
            for field in project.fields(of: instrument.name) where field.holdsData && field.name != REDCapProject.recordIdField {
                guard wanted.map({ $0.contains(field.name) }) ?? true else { continue }
                columns += field.exportNames.map(\.name)
            }
            if wanted.map({ $0.contains("\(instrument.name)_complete") }) ?? true { columns.append("\(instrument.name)_complete") }
        }
        return columns
    }

    /// The rows of one record: its base row, then a row per instance of each repeating
    /// instrument, then a row per visit of the case it opened (`visits`, in the order made), in
    /// its follow-up's instrument.
    func rows(_ item: ExportRecord, visits: [ExportRecord] = [], columns: [String], values: Values) -> [[String: String]] {
        let record = item.record
        guard let questionnaire = versions[record.questionnaire.version] else { return [] }
        let id = record.id.uuidString.lowercased()
        let complete = record.status == .complete ? "2" : "0"
        var base: [String: String] = [REDCapProject.recordIdField: id]
        var instances: [(form: String, number: Int, values: [String: String])] = []
        for field in project.fields where field.holdsData && field.followUp == nil {
            if let patient = field.patient {
                let text = Self.patient(record.patient, patient)
                if case .labels = values, !text.isEmpty {
                    base[field.name] = field.choices.first { $0.code == text }?.label ?? text
                } else {
                    base[field.name] = text
                }
                continue
            }
            guard let key = field.questionKey, let question = questionnaire.question(id: key) ?? Self.question(key, in: questionnaire)
            else { continue }
            if let repeatKey = field.repeatKey {
                guard let group = questionnaire.question(id: repeatKey) ?? Self.question(repeatKey, in: questionnaire),
                    case .instances(let list)? = record[group.position]
                else { continue }
                for (number, instance) in zip(1..., list) {
                    var cells: [String: String] = [:]
                    fill(&cells, field, answer: instance[question.position.index], values: values)
                    if let at = instances.firstIndex(where: { $0.form == field.form && $0.number == number }) {
                        instances[at].values.merge(cells) { $1 }
                    } else {
                        instances.append((field.form, number, cells))
                    }
                }
            } else {
                fill(&base, field, answer: record[question.position], values: values)
            }
        }
        for instrument in project.instruments where !instrument.repeating { base["\(instrument.name)_complete"] = complete }
        // Each visit, numbered within its follow-up's instrument in the order given.
        var visitNumbers: [String: Int] = [:]
        for visit in visits {
            guard let form = project.followUpInstruments[visit.record.questionnaire.id],
                let questionnaire = followUpVersions[Self.visitKey(visit.record.questionnaire)]
            else { continue }
            let number = (visitNumbers[form] ?? 0) + 1
            visitNumbers[form] = number
            var cells: [String: String] = [:]
            for field in project.fields(of: form) where field.holdsData {
                guard let key = field.questionKey else {
                    cells[field.name] = visit.record.id.uuidString.lowercased()
                    continue
                }
                guard let question = questionnaire.question(id: key) ?? Self.question(key, in: questionnaire) else { continue }
                fill(&cells, field, answer: visit.record[question.position], values: values)
            }
            instances.append((form, number, cells))
        }
        let visitForms = Set(project.followUpInstruments.values)
        var rows: [[String: String]] = []
        func row(_ cells: [String: String], form: String, instance: Int?) -> [String: String] {
            var out: [String: String] = [:]
            for column in columns { out[column] = cells[column] ?? "" }
            out[REDCapProject.recordIdField] = id
            if project.hasRepeats {
                out["redcap_repeat_instrument"] = form
                out["redcap_repeat_instance"] = instance.map(String.init) ?? ""
            }
            if let instance, instance > 0, columns.contains("\(form)_complete") {
                // A visit is a complete record of its own (only those are a case's visits).
                out["\(form)_complete"] = visitForms.contains(form) ? "2" : complete
            }
            return out
        }
        rows.append(row(base, form: "", instance: nil))
        for instrument in project.instruments where instrument.repeating {
            for entry in instances.filter({ $0.form == instrument.name }).sorted(by: { $0.number < $1.number }) {
                rows.append(row(entry.values, form: entry.form, instance: entry.number))
            }
        }
        return rows
    }

    /// One part of the patient's identification as text (`""` when absent, as de-identified).
    static func patient(_ identification: PatientIdentification, _ part: String) -> String {
        switch part {
        case "givenName": identification.givenName
        case "familyName": identification.familyName
        case "dateOfBirth": identification.dateOfBirth?.description ?? ""
        case "sex": identification.sex?.rawValue ?? ""
        default: identification.externalId ?? ""
        }
    }

    /// A question by its key (`s2_q5` for one without an id).
    static func question(_ key: String, in questionnaire: Questionnaire) -> Question? {
        for section in questionnaire.sections {
            if let question = section.questions.first(where: { $0.key == key }) { return question }
        }
        return nil
    }

    private func fill(_ cells: inout [String: String], _ field: REDCapProject.Field, answer: Answer?, values: Values) {
        var answer = answer
        if let part = field.part {
            if case .dictionary(let parts)? = answer { answer = parts[part] } else { answer = nil }
        }
        if field.type == "checkbox" {
            let chosen: Set<String>
            if case .choices(let codes)? = answer { chosen = Set(codes) } else { chosen = [] }
            for (name, code) in field.exportNames {
                guard let code else { continue }
                let checked = chosen.contains(code)
                // Unanswered is unchecked, as REDCap exports it.
                switch values {
                case .raw: cells[name] = checked ? "1" : "0"
                case .labels(let checkboxLabels):
                    if checkboxLabels {
                        cells[name] = checked ? (field.choices.first { $0.code == code }?.label ?? code) : ""
                    } else {
                        cells[name] = checked ? "Checked" : "Unchecked"
                    }
                }
            }
            return
        }
        guard let answer else {
            cells[field.name] = ""
            return
        }
        let raw = Self.raw(answer)
        switch (values, answer) {
        case (.labels, .yesNo(let value)): cells[field.name] = value ? "Yes" : "No"
        case (.labels, .choice(let code)): cells[field.name] = field.choices.first { $0.code == code }?.label ?? code
        default: cells[field.name] = raw
        }
    }

    /// An answer as REDCap's raw text.
    static func raw(_ answer: Answer) -> String {
        switch answer {
        case .text(let value), .choice(let value): value
        case .integer(let value): String(value)
        case .decimal(let value): ExportPlan.number(value)  // 61, not 61.0: the exports' own rule
        case .date(let value): value.description
        case .yesNo(let value): value ? "1" : "0"
        case .choices(let codes): codes.joined(separator: ",")
        case .geopoint(let point):
            ([point.latitude, point.longitude] + [point.altitude, point.accuracy].compactMap { $0 }).map { "\($0)" }.joined(separator: " ")
        case .attachment(let ref): ref.fileName
        case .dictionary, .instances: ""
        }
    }
}

/// `filterLogic`: comparisons of a field with a value (`[age] > 30`, `[sex] = '1'`,
/// `[symptoms(fever)] = '1'`), joined by `and` / `or` (and before or), with parentheses.
/// REDCap's functions and events are not supported: such logic is refused, never ignored.
indirect enum REDCapLogic {
    case compare(field: String, op: String, value: String)
    case and(REDCapLogic, REDCapLogic)
    case or(REDCapLogic, REDCapLogic)

    struct Unsupported: Error {
        var message: String
    }

    static func parse(_ text: String) throws(Unsupported) -> REDCapLogic {
        var tokens = try tokenize(text)
        let logic = try parseOr(&tokens, depth: 0)
        guard tokens.isEmpty else { throw Unsupported(message: "unexpected '\(tokens[0])' in filterLogic") }
        return logic
    }

    private static func tokenize(_ text: String) throws(Unsupported) -> [String] {
        guard text.utf8.count <= 4096 else { throw Unsupported(message: "filterLogic is longer than 4096 bytes") }
        var tokens: [String] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character.isWhitespace {
                index = text.index(after: index)
            } else if character == "[" {
                guard let end = text[index...].firstIndex(of: "]") else {
                    throw Unsupported(message: "a [field] in filterLogic is not closed")
                }
                tokens.append(String(text[index...end]))
                index = text.index(after: end)
            } else if character == "'" || character == "\"" {
                guard let end = text[text.index(after: index)...].firstIndex(of: character) else {
                    throw Unsupported(message: "a quoted value in filterLogic is not closed")
                }
                tokens.append(String(text[index...end]))
                index = text.index(after: end)
            } else if character == "]" {
                throw Unsupported(message: "a ']' in filterLogic closes no [field]")
            } else if "()".contains(character) {
                tokens.append(String(character))
                index = text.index(after: index)
            } else if "=<>!".contains(character) {
                var op = String(character)
                let next = text.index(after: index)
                if next < text.endIndex, "=>".contains(text[next]), op != "=" {
                    op.append(text[next])
                    index = text.index(after: next)
                } else {
                    index = next
                }
                tokens.append(op)
            } else {
                var end = index
                while end < text.endIndex, !text[end].isWhitespace, !"[]()=<>!'\"".contains(text[end]) { end = text.index(after: end) }
                guard end > index else { throw Unsupported(message: "filterLogic cannot be read at '\(character)'") }
                tokens.append(String(text[index..<end]))
                index = end
            }
        }
        return tokens
    }

    private static func parseOr(_ tokens: inout [String], depth: Int) throws(Unsupported) -> REDCapLogic {
        var left = try parseAnd(&tokens, depth: depth)
        while tokens.first?.lowercased() == "or" {
            tokens.removeFirst()
            left = .or(left, try parseAnd(&tokens, depth: depth))
        }
        return left
    }

    private static func parseAnd(_ tokens: inout [String], depth: Int) throws(Unsupported) -> REDCapLogic {
        var left = try parseTerm(&tokens, depth: depth)
        while tokens.first?.lowercased() == "and" {
            tokens.removeFirst()
            left = .and(left, try parseTerm(&tokens, depth: depth))
        }
        return left
    }

    private static func parseTerm(_ tokens: inout [String], depth: Int) throws(Unsupported) -> REDCapLogic {
        guard depth < 16 else { throw Unsupported(message: "filterLogic nests more than 16 parentheses deep") }
        guard let first = tokens.first else { throw Unsupported(message: "filterLogic ends where a comparison should be") }
        if first == "(" {
            tokens.removeFirst()
            let inner = try parseOr(&tokens, depth: depth + 1)
            guard tokens.first == ")" else { throw Unsupported(message: "a '(' in filterLogic is not closed") }
            tokens.removeFirst()
            return inner
        }
        guard first.hasPrefix("["), first.hasSuffix("]"), tokens.count >= 3 else {
            throw Unsupported(
                message: "filterLogic supports comparisons of a [field] with a value, joined by and/or; '\(first)' is not one")
        }
        var field = String(first.dropFirst().dropLast())
        // [field(code)]: one checkbox choice.
        if let open = field.firstIndex(of: "("), field.hasSuffix(")") {
            field =
                "\(field[..<open])___\(REDCapProject.checkboxSuffix(String(field[field.index(after: open)..<field.index(before: field.endIndex)])))"
        }
        let op = tokens[1]
        guard ["=", "<>", "!=", "<", ">", "<=", ">="].contains(op) else {
            throw Unsupported(message: "'\(op)' is not a comparison filterLogic supports")
        }
        var value = tokens[2]
        if value.hasPrefix("["), value.hasSuffix("]") {
            throw Unsupported(message: "filterLogic compares a field with a value, not with another field")
        }
        if (value.hasPrefix("'") && value.hasSuffix("'")) || (value.hasPrefix("\"") && value.hasSuffix("\"")), value.count >= 2 {
            value = String(value.dropFirst().dropLast())
        }
        tokens.removeFirst(3)
        return .compare(field: field, op: op, value: value)
    }

    /// The fields the logic reads.
    var fields: Set<String> {
        switch self {
        case .compare(let field, _, _): [field]
        case .and(let a, let b), .or(let a, let b): a.fields.union(b.fields)
        }
    }

    /// Whether the row's raw values satisfy it: numbers compare as numbers when both sides are
    /// numbers, text as text otherwise; an empty value equals only `''`.
    func holds(_ row: [String: String]) -> Bool {
        switch self {
        case .and(let a, let b): return a.holds(row) && b.holds(row)
        case .or(let a, let b): return a.holds(row) || b.holds(row)
        case .compare(let field, let op, let value):
            let cell = row[field] ?? ""
            let ordering: ComparisonResult
            if let left = Double(cell), let right = Double(value) {
                ordering = left < right ? .orderedAscending : (left > right ? .orderedDescending : .orderedSame)
            } else {
                if cell.isEmpty != value.isEmpty, op != "=" && op != "<>" && op != "!=" { return false }
                ordering = cell < value ? .orderedAscending : (cell > value ? .orderedDescending : .orderedSame)
            }
            switch op {
            case "=": return ordering == .orderedSame
            case "<>", "!=": return ordering != .orderedSame
            case "<": return ordering == .orderedAscending
            case ">": return ordering == .orderedDescending
            case "<=": return ordering != .orderedDescending
            default: return ordering != .orderedAscending
            }
        }
    }
}
