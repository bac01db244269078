import Crypto
import Foundation
import IntakeCore
import IntakeExport

/// REDCap flat rows read back into records of the questionnaire's newest version: a base row per
/// record and a row per instance of a repeating instrument. Every problem is found before
/// anything is stored, and each names the record and field (never the value).
struct REDCapImport {
    let project: REDCapProject
    let questionnaire: Questionnaire
    let teamId: Int64

    struct Problem: Error {
        var message: String
    }

    /// The record's id for a `record_id`: the UUID itself, or for any other name a UUID made from
    /// it, the questionnaire and the team, so importing the same name again reaches the same record.
    func recordId(_ name: String) -> UUID {
        if let uuid = UUID(uuidString: name) { return uuid }
        var bytes = Array(SHA256.hash(data: Array("redcap\u{0}\(questionnaire.id)\u{0}\(teamId)\u{0}\(name)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 style: a name-based UUID
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// A record read from its rows, and whether they said its completeness (`<form>_complete`).
    struct Imported {
        var record: PatientResponse
        var statusGiven: Bool
    }

    func records(_ rows: [[String: String]], collector: String) throws(Problem) -> [Imported] {
        // Which field each export column is (a checkbox's columns, each with its code).
        var columns: [String: (field: REDCapProject.Field, code: String?)] = [:]
        for field in project.fields where field.holdsData {
            for (name, code) in field.exportNames { columns[name] = (field, code) }
        }
        let completes = Set(project.instruments.map { "\($0.name)_complete" })
        let pseudo: Set<String> = ["redcap_repeat_instrument", "redcap_repeat_instance", "redcap_event_name", "redcap_data_access_group"]
        var unknown = Set<String>()
        for row in rows {
            for key in row.keys where columns[key] == nil && !completes.contains(key) && !pseudo.contains(key) { unknown.insert(key) }
        }
        guard unknown.isEmpty else {
            throw Problem(message: "The following fields were not found in the project as real data fields: \(unknown.sorted().joined(separator: ", "))")
        }
        var order: [String] = []
        var byRecord: [String: [[String: String]]] = [:]
        for (number, row) in rows.enumerated() {
            guard let name = row[REDCapProject.recordIdField]?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
                throw Problem(message: "Row \(number + 1) has no \(REDCapProject.recordIdField); every row names its record.")
            }
            guard name.utf8.count <= 100 else { throw Problem(message: "Row \(number + 1): the record name is longer than 100 characters.") }
            if byRecord[name] == nil { order.append(name) }
            byRecord[name, default: []].append(row)
        }
        var records: [Imported] = []
        for name in order {
            records.append(try record(name, rows: byRecord[name] ?? [], columns: columns, collector: collector))
        }
        return records
    }

    private func record(
        _ name: String, rows: [[String: String]], columns: [String: (field: REDCapProject.Field, code: String?)], collector: String
    ) throws(Problem) -> Imported {
        var answers: [Int: [Int: Answer]] = [:]
        var patient = PatientIdentification()
        var instances: [String: [Int: [Int: Answer]]] = [:]  // repeat key → instance number → answers
        var complete = true
        var statusGiven = false
        for row in rows {
            let form = row["redcap_repeat_instrument"] ?? ""
            let instanceText = row["redcap_repeat_instance"] ?? ""
            var instance: Int?
            if !form.isEmpty {
                guard project.instruments.contains(where: { $0.name == form && $0.repeating }) else {
                    throw Problem(message: "Record \(name): '\(form)' is not a repeating instrument of this project.")
                }
                guard let number = Int(instanceText), (1...10_000).contains(number) else {
                    throw Problem(message: "Record \(name): redcap_repeat_instance must be a number from 1 for a row of \(form).")
                }
                instance = number
            }
            var checked: [String: Set<String>] = [:]  // checkbox field → codes ticked
            var seen: Set<String> = []  // checkbox fields with a column given
            var parts: [String: [String: Answer]] = [:]
            for (column, text) in row {
                if column.hasSuffix("_complete"), project.instruments.contains(where: { "\($0.name)_complete" == column }) {
                    if !text.isEmpty { statusGiven = true }
                    if !text.isEmpty && text != "2" { complete = false }
                    continue
                }
                guard let (field, code) = columns[column], field.name != REDCapProject.recordIdField else { continue }
                if let part = field.patient {
                    guard instance == nil || text.isEmpty else {
                        throw Problem(message: "Record \(name): \(column) belongs to the patient instrument; give it in the record's row without redcap_repeat_instrument.")
                    }
                    try Self.identify(&patient, part, text, field: field.name, record: name)
                    continue
                }
                guard (field.repeatKey == nil) == (instance == nil), instance == nil || field.form == form || text.isEmpty else {
                    if text.isEmpty { continue }
                    throw Problem(
                        message: "Record \(name): \(column) belongs to the instrument \(field.form); give it in "
                            + (field.repeatKey == nil ? "the record's row without redcap_repeat_instrument." : "a row of \(field.form) with its instance."))
                }
                if let code {
                    seen.insert(field.name)
                    switch text {
                    case "1", "Checked": checked[field.name, default: []].insert(code)
                    case "0", "", "Unchecked": break
                    default: throw Problem(message: "Record \(name): \(column) is a checkbox; give 1 (checked) or 0.")
                    }
                    continue
                }
                guard !text.isEmpty, let key = field.questionKey, let question = REDCapRows.question(key, in: questionnaire) else { continue }
                if question.calculation != nil { continue }  // computed by Intake from the other answers
                let answer = try Self.answer(text, field: field, question: question, record: name)
                if let part = field.part {
                    parts[key, default: [:]][part] = answer
                } else {
                    put(answer, question: question, instance: instance, answers: &answers, instances: &instances)
                }
            }
            for (key, fields) in parts {
                guard let question = REDCapRows.question(key, in: questionnaire) else { continue }
                put(.dictionary(fields), question: question, instance: instance, answers: &answers, instances: &instances)
            }
            for fieldName in seen {
                guard let field = project.fields.first(where: { $0.name == fieldName }), let key = field.questionKey,
                    let question = REDCapRows.question(key, in: questionnaire), let codes = checked[fieldName], !codes.isEmpty
                else { continue }
                let ordered = field.choices.map(\.code).filter { codes.contains($0) }
                put(.choices(ordered), question: question, instance: instance, answers: &answers, instances: &instances)
            }
        }
        for (key, numbered) in instances {
            guard let group = REDCapRows.question(key, in: questionnaire) else { continue }
            let numbers = numbered.keys.sorted()
            guard numbers == Array(1...numbers.count) else {
                throw Problem(message: "Record \(name): the instances of \(key) must be numbered 1, 2, 3… without gaps.")
            }
            answers[group.position.section, default: [:]][group.position.index] = .instances(numbers.map { numbered[$0] ?? [:] })
        }
        let record = PatientResponse(
            id: recordId(name), questionnaire: questionnaire.reference, patient: patient, answers: answers, status: complete ? .complete : .draft, collector: collector,
            deviceId: "redcap-api")
        return Imported(record: record, statusGiven: statusGiven)
    }

    /// An import over a stored record of the same version: with `overwrite`, the import is the
    /// record (a blank is no answer); otherwise (REDCap's `normal`) each value given replaces the
    /// stored one and a blank keeps it, inside a repeat's instances and a compound's parts too.
    static func merged(_ imported: Imported, over stored: PatientResponse, overwrite: Bool) -> PatientResponse {
        var record = stored
        record.updatedAt = PatientResponse.now()
        if imported.statusGiven { record.status = imported.record.status }
        let given = imported.record.patient
        if overwrite {
            record.patient = given
            record.answers = imported.record.answers
            return record
        }
        if !given.givenName.isEmpty { record.patient.givenName = given.givenName }
        if !given.familyName.isEmpty { record.patient.familyName = given.familyName }
        if let date = given.dateOfBirth { record.patient.dateOfBirth = date }
        if let sex = given.sex { record.patient.sex = sex }
        if let external = given.externalId { record.patient.externalId = external }
        for (section, answers) in imported.record.answers {
            for (index, answer) in answers {
                record.answers[section, default: [:]][index] = overlay(answer, on: record.answers[section]?[index])
            }
        }
        return record
    }

    private static func overlay(_ answer: Answer, on old: Answer?) -> Answer {
        switch (answer, old) {
        case (.dictionary(let parts), .dictionary(var kept)?):
            kept.merge(parts) { $1 }
            return .dictionary(kept)
        case (.instances(let list), .instances(var kept)?):
            for (number, instance) in list.enumerated() {
                if number < kept.count {
                    for (index, inner) in instance { kept[number][index] = overlay(inner, on: kept[number][index]) }
                } else {
                    kept.append(instance)
                }
            }
            return .instances(kept)
        default: return answer
        }
    }

    private func put(_ answer: Answer, question: Question, instance: Int?, answers: inout [Int: [Int: Answer]], instances: inout [String: [Int: [Int: Answer]]]) {
        if let instance, let group = question.group, let groupQuestion = questionnaire.question(at: group) {
            instances[groupQuestion.key, default: [:]][instance, default: [:]][question.position.index] = answer
        } else {
            answers[question.position.section, default: [:]][question.position.index] = answer
        }
    }

    static func identify(_ patient: inout PatientIdentification, _ part: String, _ text: String, field: String, record: String) throws(Problem) {
        guard !text.isEmpty else { return }
        switch part {
        case "givenName": patient.givenName = text
        case "familyName": patient.familyName = text
        case "dateOfBirth":
            guard let date = LocalDate(iso: text) else { throw Problem(message: "Record \(record): \(field) takes a date, YYYY-MM-DD.") }
            patient.dateOfBirth = date
        case "sex":
            guard let sex = PatientIdentification.Sex(rawValue: text.lowercased()) else {
                throw Problem(message: "Record \(record): \(field) takes female, male, other or unknown.")
            }
            patient.sex = sex
        default: patient.externalId = text
        }
    }

    /// A raw REDCap value as the answer the field's question takes.
    static func answer(_ text: String, field: REDCapProject.Field, question: Question, record: String) throws(Problem) -> Answer {
        var type = question.type
        if let part = field.part, case .compound(let parts) = question.type, let defined = parts.first(where: { $0.key == part }) { type = defined.type }
        func refuse(_ what: String) -> Problem { Problem(message: "Record \(record): \(field.name) takes \(what).") }
        switch type {
        case .text: return .text(text)
        case .yesNo:
            switch text.lowercased() {
            case "1", "yes": return .yesNo(true)
            case "0", "no": return .yesNo(false)
            default: throw refuse("1 (yes) or 0 (no)")
            }
        case .singleChoice(let set):
            if set.contains(code: text) { return .choice(text) }
            if let choice = set.choices.first(where: { $0.label.base == text }) { return .choice(choice.code) }
            throw refuse("one of the codes \(set.choices.map(\.code).joined(separator: ", "))")
        case .multipleChoice(let set):
            let codes = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard codes.allSatisfy({ set.contains(code: $0) }) else { throw refuse("its checkbox columns \(field.name)___code, each 1 or 0") }
            return .choices(codes)
        case .integer:
            guard let value = Int(text) else { throw refuse("a whole number") }
            return .integer(value)
        case .decimal:
            guard let value = Double(text), value.isFinite else { throw refuse("a number") }
            return .decimal(value)
        case .date:
            guard let date = LocalDate(iso: text) else { throw refuse("a date, YYYY-MM-DD") }
            return .date(date)
        case .geopoint:
            let numbers = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { Double($0) }
            guard (2...4).contains(numbers.count), numbers.allSatisfy({ $0 != nil }), let latitude = numbers[0], let longitude = numbers[1] else {
                throw refuse("a place: latitude longitude [altitude [accuracy]]")
            }
            return .geopoint(GeoPoint(latitude: latitude, longitude: longitude, altitude: numbers.count > 2 ? numbers[2] : nil, accuracy: numbers.count > 3 ? numbers[3] : nil))
        case .attachment: throw Problem(message: "Record \(record): \(field.name) is a file; files are not taken through the REDCap API (send the record with intake).")
        case .note, .compound, .repeatGroup: throw refuse("no value")
        }
    }
}
