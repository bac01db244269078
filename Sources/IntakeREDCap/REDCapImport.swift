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
    func recordId(_ name: String) -> UUID { Self.recordId(name, questionnaireId: questionnaire.id, teamId: teamId) }

    static func recordId(_ name: String, questionnaireId: String, teamId: Int64) -> UUID {
        if let uuid = UUID(uuidString: name) { return uuid }
        var bytes = Array(SHA256.hash(data: Array("redcap\u{0}\(questionnaireId)\u{0}\(teamId)\u{0}\(name)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 style: a name-based UUID
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// What an import says of one record: every cell it sent, as edits to apply to the stored
    /// record (or to an empty one), so that a cell not sent never touches what is stored.
    struct Imported {
        /// The `record_id` as sent, and the record's id.
        var name: String
        var id: UUID
        /// Patient columns sent, by part (`givenName`…), blank included.
        var patient: [(part: String, text: String, field: String)] = []
        /// `<form>_complete` sent: nil when none was.
        var complete: Bool?
        var edits: [Edit] = []
        /// Instances of repeats that have a row, by repeat key: created even when their cells are blank.
        var instanceRows: [(key: String, number: Int)] = []
    }

    struct Edit {
        var question: Question
        /// The repeat instance (from 1) for a question asked in a repeat.
        var instance: Int?
        /// The compound question's part.
        var part: String?
        var value: Value
        /// The column, for messages.
        var column: String

        enum Value {
            case answer(Answer)
            /// An empty cell: no change, or with `overwrite`, no answer.
            case blank
            /// A checkbox's columns: codes given 1 and codes given 0.
            case checkbox(ticked: Set<String>, unticked: Set<String>)
        }
    }

    func records(_ rows: [[String: String]]) throws(Problem) -> [Imported] {
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
            throw Problem(
                message:
                    "The following fields were not found in the project as real data fields: \(unknown.sorted().prefix(20).joined(separator: ", "))"
            )
        }
        // Follow-up visits are read here, not written: a visit is a record of its follow-up's
        // own project. A visit's row, or a visit's cell in a record's row, is refused unless
        // blank (an export sent back with its visit rows emptied imports as it was).
        let visitForms = project.followUpInstruments
        if !visitForms.isEmpty {
            let visitColumns = Set(
                project.fields.filter { $0.followUp != nil }.flatMap { $0.exportNames.map(\.name) }
                    + visitForms.values.map { "\($0)_complete" })
            for (number, row) in rows.enumerated() {
                let form = row["redcap_repeat_instrument"] ?? ""
                let isVisit = visitForms.values.contains(form)
                let filled = row.filter { key, value in
                    !value.isEmpty && (isVisit ? !pseudo.contains(key) && key != REDCapProject.recordIdField : visitColumns.contains(key))
                }
                if let followUp = visitForms.first(where: { $0.value == form })?.key
                    ?? (filled.isEmpty ? nil : visitForms.keys.sorted().first),
                    !filled.isEmpty
                {
                    throw Problem(
                        message:
                            "Row \(number + 1) gives a visit of \(followUp) (\(filled.keys.sorted().prefix(3).joined(separator: ", "))): follow-up visits are exported here, not imported; import them in /redcap/\(followUp)/api/ (its record_id is the visit's record id), or leave those rows out."
                    )
                }
            }
        }
        let rows = rows.filter { !visitForms.values.contains($0["redcap_repeat_instrument"] ?? "") }
        var order: [String] = []
        var byRecord: [String: [[String: String]]] = [:]
        for (number, row) in rows.enumerated() {
            guard let name = row[REDCapProject.recordIdField]?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
                throw Problem(message: "Row \(number + 1) has no \(REDCapProject.recordIdField); every row names its record.")
            }
            guard name.utf8.count <= 100 else {
                throw Problem(message: "Row \(number + 1): the record name is longer than 100 characters.")
            }
            if byRecord[name] == nil { order.append(name) }
            byRecord[name, default: []].append(row)
        }
        // Every bad cell of every record is said, a line each (as REDCap lists its validation
        // errors), not only the first: nothing is imported until all are fixed.
        var records: [Imported] = []
        var cells: [String] = []
        for name in order {
            records.append(try record(name, rows: byRecord[name] ?? [], columns: columns, problems: &cells))
        }
        guard cells.isEmpty else {
            let shown = cells.prefix(100).joined(separator: "\n")
            throw Problem(message: cells.count > 100 ? shown + "\n(and \(cells.count - 100) more)" : shown)
        }
        return records
    }

    private func record(
        _ name: String, rows: [[String: String]], columns: [String: (field: REDCapProject.Field, code: String?)], problems: inout [String]
    ) throws(Problem) -> Imported {
        var imported = Imported(name: name, id: recordId(name))
        var seenInstances: Set<String> = []
        for row in rows {
            let form = row["redcap_repeat_instrument"] ?? ""
            var instance: Int?
            if !form.isEmpty {
                guard let instrument = project.instruments.first(where: { $0.name == form && $0.repeating }) else {
                    throw Problem(message: "Record \(name): '\(form.prefix(100))' is not a repeating instrument of this project.")
                }
                guard let number = Self.wholeNumber(row["redcap_repeat_instance"] ?? ""), (1...10_000).contains(number) else {
                    throw Problem(message: "Record \(name): redcap_repeat_instance must be a number from 1 to 10000 for a row of \(form).")
                }
                instance = number
                if let key = project.repeatKey(of: instrument.name), seenInstances.insert("\(key)\u{0}\(number)").inserted {
                    imported.instanceRows.append((key, number))
                }
            }
            var checkboxes: [String: (field: REDCapProject.Field, ticked: Set<String>, unticked: Set<String>)] = [:]
            for (column, text) in row.sorted(by: { $0.key < $1.key }) {
                if completes(column) {
                    if !text.isEmpty {
                        let status = Self.wholeNumber(text)
                        guard let status, (0...2).contains(status) else {
                            problems.append("Record \(name): \(column) is 0 (incomplete), 1 (unverified) or 2 (complete).")
                            continue
                        }
                        imported.complete = (imported.complete ?? true) && status == 2
                    }
                    continue
                }
                // A visit's columns were checked blank above: they change nothing of the record.
                guard let (field, code) = columns[column], field.name != REDCapProject.recordIdField, field.followUp == nil else {
                    continue
                }
                if let part = field.patient {
                    guard instance == nil || text.isEmpty else {
                        throw Problem(
                            message:
                                "Record \(name): \(column) belongs to the patient instrument; give it in the record's row without redcap_repeat_instrument."
                        )
                    }
                    if instance == nil {
                        // Checked here too, so a bad patient cell is said with the others.
                        var scratch = PatientIdentification()
                        do {
                            try Self.identify(&scratch, part, text, field: field.name, record: name)
                        } catch {
                            problems.append(error.message)
                            continue
                        }
                        imported.patient.append((part, text, field.name))
                    }
                    continue
                }
                guard (field.repeatKey == nil) == (instance == nil), instance == nil || field.form == form else {
                    if text.isEmpty { continue }  // the other instruments' columns of a row, left blank
                    throw Problem(
                        message: "Record \(name): \(column) belongs to the instrument \(field.form); give it in "
                            + (field.repeatKey == nil
                                ? "the record's row without redcap_repeat_instrument." : "a row of \(field.form) with its instance."))
                }
                if let code {
                    var entry = checkboxes[field.name] ?? (field, [], [])
                    switch Self.wholeNumber(text).map(String.init) ?? text {
                    case "1", "Checked": entry.ticked.insert(code)
                    case "0", "Unchecked": entry.unticked.insert(code)
                    case "": break
                    default:
                        problems.append("Record \(name): \(column) is a checkbox; give 1 (checked) or 0.")
                        continue
                    }
                    checkboxes[field.name] = entry
                    continue
                }
                guard let key = field.questionKey, let question = REDCapRows.question(key, in: questionnaire) else { continue }
                if question.calculation != nil { continue }  // computed by Intake from the other answers
                let value: Edit.Value
                if text.isEmpty {
                    value = .blank
                } else {
                    do {
                        value = .answer(try Self.answer(text, field: field, question: question, record: name))
                    } catch {
                        problems.append(error.message)
                        continue
                    }
                }
                imported.edits.append(Edit(question: question, instance: instance, part: field.part, value: value, column: column))
            }
            for (_, entry) in checkboxes.sorted(by: { $0.key < $1.key }) where !(entry.ticked.isEmpty && entry.unticked.isEmpty) {
                guard let key = entry.field.questionKey, let question = REDCapRows.question(key, in: questionnaire) else { continue }
                imported.edits.append(
                    Edit(
                        question: question, instance: instance, part: entry.field.part,
                        value: .checkbox(ticked: entry.ticked, unticked: entry.unticked), column: entry.field.name))
            }
        }
        return imported
    }

    private func completes(_ column: String) -> Bool {
        column.hasSuffix("_complete") && project.instruments.contains { "\($0.name)_complete" == column }
    }

    /// The record an import makes of `base` (the stored record, or an empty one): each value sent
    /// replaces the stored one, inside a repeat's instances and a compound's parts too; a checkbox
    /// column ticks or unticks its code; an empty cell keeps what is stored, or with `overwrite`
    /// (REDCap's "blank values overwrite") removes it. What was not sent is never touched.
    func applied(_ imported: Imported, to base: PatientResponse, overwrite: Bool) throws(Problem) -> PatientResponse {
        var record = base
        record.updatedAt = PatientResponse.now()
        if let complete = imported.complete { record.status = complete ? .complete : .draft }
        for (part, text, field) in imported.patient where !text.isEmpty || overwrite {
            if text.isEmpty {
                switch part {
                case "givenName": record.patient.givenName = ""
                case "familyName": record.patient.familyName = ""
                case "dateOfBirth": record.patient.dateOfBirth = nil
                case "sex": record.patient.sex = nil
                default: record.patient.externalId = nil
                }
            } else {
                try Self.identify(&record.patient, part, text, field: field, record: imported.name)
            }
        }
        // Instances in order, each created when it is the next one (a row of instance 3 needs 1 and 2).
        for (key, number) in imported.instanceRows.sorted(by: { $0.number < $1.number }) {
            guard let group = REDCapRows.question(key, in: questionnaire) else { continue }
            var list: [[Int: Answer]] = []
            if case .instances(let stored)? = record[group.position] { list = stored }
            if number == list.count + 1 {
                list.append([:])
            } else if number > list.count + 1 {
                throw Problem(
                    message:
                        "Record \(imported.name): instance \(number) of \(key) comes after \(list.count); send instances 1, 2, 3… without gaps."
                )
            }
            record.answers[group.position.section, default: [:]][group.position.index] = .instances(list)
        }
        for edit in imported.edits {
            let old = Self.value(in: record, edit.question, instance: edit.instance, part: edit.part)
            let new: Answer?
            switch edit.value {
            case .answer(let answer): new = answer
            case .blank:
                guard overwrite else { continue }
                new = nil
            case .checkbox(let ticked, let unticked):
                var codes: [String] = []
                if case .choices(let stored)? = old { codes = stored }
                codes =
                    codes.filter { !unticked.contains($0) }
                    + (edit.question.type.choices?.choices.map(\.code) ?? ticked.sorted()).filter {
                        ticked.contains($0) && !codes.contains($0)
                    }
                if case .compound(let parts) = edit.question.type, let part = edit.part,
                    let set = parts.first(where: { $0.key == part }).flatMap({ $0.type.choices })
                {
                    codes = set.choices.map(\.code).filter { codes.contains($0) }
                }
                new = codes.isEmpty ? nil : .choices(codes)
            }
            Self.set(new, in: &record, edit.question, instance: edit.instance, part: edit.part)
        }
        return record
    }

    /// The answer (or compound part) at a question, in the record or in one of its repeat's instances.
    static func value(in record: PatientResponse, _ question: Question, instance: Int?, part: String?) -> Answer? {
        var answer: Answer?
        if let instance, let group = question.group {
            guard case .instances(let list)? = record[group], instance >= 1, instance <= list.count else { return nil }
            answer = list[instance - 1][question.position.index]
        } else {
            answer = record[question.position]
        }
        guard let part else { return answer }
        if case .dictionary(let parts)? = answer { return parts[part] }
        return nil
    }

    static func set(_ new: Answer?, in record: inout PatientResponse, _ question: Question, instance: Int?, part: String?) {
        var value = new
        if let part {
            var parts: [String: Answer] = [:]
            if case .dictionary(let stored)? = Self.value(in: record, question, instance: instance, part: nil) { parts = stored }
            parts[part] = new
            value = parts.isEmpty ? nil : .dictionary(parts)
        }
        if let instance, let group = question.group {
            guard case .instances(var list)? = record[group], instance >= 1, instance <= list.count else { return }
            list[instance - 1][question.position.index] = value
            record[group] = .instances(list)
        } else {
            record[question.position] = value
        }
    }

    static func identify(_ patient: inout PatientIdentification, _ part: String, _ text: String, field: String, record: String)
        throws(Problem)
    {
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

    /// A whole number as text, also spelled as a decimal with a zero fraction (`27.0`): what pandas
    /// writes for a whole-number column that has blanks.
    static func wholeNumber(_ text: String) -> Int? {
        if let value = Int(text) { return value }
        guard text.contains("."), let value = Double(text), value.rounded() == value, abs(value) < 1e15 else { return nil }
        return Int(value)
    }

    /// A raw REDCap value as the answer the field's question takes.
    static func answer(_ text: String, field: REDCapProject.Field, question: Question, record: String) throws(Problem) -> Answer {
        var type = question.type
        if let part = field.part, case .compound(let parts) = question.type, let defined = parts.first(where: { $0.key == part }) {
            type = defined.type
        }
        func refuse(_ what: String) -> Problem { Problem(message: "Record \(record): \(field.name) takes \(what).") }
        switch type {
        case .text: return .text(text)
        case .yesNo:
            switch wholeNumber(text).map(String.init) ?? text.lowercased() {
            case "1", "yes": return .yesNo(true)
            case "0", "no": return .yesNo(false)
            default: throw refuse("1 (yes) or 0 (no)")
            }
        case .singleChoice(let set):
            if set.contains(code: text) { return .choice(text) }
            if let number = wholeNumber(text), set.contains(code: String(number)) { return .choice(String(number)) }
            if let choice = set.choices.first(where: { $0.label.base == text }) { return .choice(choice.code) }
            throw refuse("one of the codes \(set.choices.map(\.code).joined(separator: ", "))")
        case .multipleChoice(let set):
            let codes = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard codes.allSatisfy({ set.contains(code: $0) }) else {
                throw refuse("its checkbox columns \(field.name)___code, each 1 or 0")
            }
            return .choices(codes)
        case .integer:
            guard let value = wholeNumber(text) else { throw refuse("a whole number") }
            return .integer(value)
        case .decimal:
            guard let value = Double(text), value.isFinite else { throw refuse("a number") }
            return .decimal(value)
        case .date:
            guard let date = LocalDate(iso: text) else { throw refuse("a date, YYYY-MM-DD") }
            return .date(date)
        case .geopoint:
            let numbers = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { Double($0) }
            guard (2...4).contains(numbers.count), numbers.allSatisfy({ $0 != nil }), let latitude = numbers[0], let longitude = numbers[1]
            else {
                throw refuse("a place: latitude longitude [altitude [accuracy]]")
            }
            return .geopoint(
                GeoPoint(
                    latitude: latitude, longitude: longitude, altitude: numbers.count > 2 ? numbers[2] : nil,
                    accuracy: numbers.count > 3 ? numbers[3] : nil))
        case .attachment:
            throw Problem(
                message:
                    "Record \(record): \(field.name) is a file; files are not taken through the REDCap API (send the record with intake).")
        case .note, .compound, .repeatGroup: throw refuse("no value")
        }
    }
}
