import Foundation
import IntakeCore

/// One record per line in the documented record format (docs/record-format.md), plus
/// `patientKey`, `ageYears` and the server's `revision`. De-identified records keep only `sex`
/// in `patient`.
public final class JSONLinesFormatter: ExportFormatter {
    let plan: ExportPlan?

    /// With a plan, records of versions the plan lacks are refused and free text is dropped as
    /// the plan says; without one every record is written as it is.
    public init(plan: ExportPlan?) {
        self.plan = plan
    }

    public func header() -> String { "" }
    public func footer() -> String { "" }

    public func row(_ item: ExportRecord) throws(ExportError) -> String {
        var record = item.record
        if let plan {
            let layout = try plan.layout(for: record.questionnaire)
            if plan.options.dropFreeText { record = Self.withoutFreeText(record, layout.questionnaire) }
        }
        return Self.json(
            ExportRecord(
                record: record, patientKey: item.patientKey, ageYears: item.ageYears, revision: item.revision,
                datesShifted: item.datesShifted)
        )
        .text + "\n"
    }

    static func json(_ item: ExportRecord) -> JSONValue {
        let record = item.record
        var members: [(String, JSONValue)] = []
        if let age = item.ageYears { members.append(("ageYears", .integer(age))) }
        let sections = record.answers.keys.sorted().map { section in
            (
                String(section),
                JSONValue.object(record.answers[section]!.sorted { $0.key < $1.key }.map { (String($0.key), answer($0.value)) })
            )
        }
        members.append(("answers", .object(sections)))
        members.append(("collector", .string(record.collector)))
        members.append(("createdAt", .string(Timestamp.string(from: record.createdAt))))
        if item.datesShifted { members.append(("datesShifted", .bool(true))) }
        members.append(("deviceId", .string(record.deviceId)))
        members.append(("format", .integer(PatientResponse.formatVersion)))
        members.append(("id", .string(record.id.uuidString.lowercased())))
        if let language = record.language { members.append(("language", .string(language))) }
        let patient = record.patient
        var person: [(String, JSONValue)] = []
        if let date = patient.dateOfBirth { person.append(("dateOfBirth", .string(date.description))) }
        if let id = patient.externalId { person.append(("externalId", .string(id))) }
        if !patient.familyName.isEmpty { person.append(("familyName", .string(patient.familyName))) }
        if !patient.givenName.isEmpty { person.append(("givenName", .string(patient.givenName))) }
        if let sex = patient.sex { person.append(("sex", .string(sex.rawValue))) }
        members.append(("patient", .object(person)))
        if let key = item.patientKey { members.append(("patientKey", .string(key))) }
        members.append(
            ("questionnaire", .object([("id", .string(record.questionnaire.id)), ("version", .string(record.questionnaire.version))])))
        if let revision = item.revision { members.append(("revision", .integer(revision))) }
        members.append(("status", .string(record.status.rawValue)))
        members.append(("updatedAt", .string(Timestamp.string(from: record.updatedAt))))
        return .object(members)
    }

    static func answer(_ answer: Answer) -> JSONValue {
        switch answer {
        case .text(let value): .object([("text", .string(value))])
        case .integer(let value): .object([("integer", .integer(value))])
        case .decimal(let value): .object([("decimal", .number(value))])
        case .date(let value): .object([("date", .string(value.description))])
        case .yesNo(let value): .object([("yesNo", .bool(value))])
        case .choice(let code): .object([("choice", .string(code))])
        case .choices(let codes): .object([("choices", .array(codes.map { .string($0) }))])
        case .dictionary(let fields):
            .object([("dictionary", .object(fields.sorted { $0.key < $1.key }.map { ($0.key, Self.answer($0.value)) }))])
        }
    }

    static func withoutFreeText(_ record: PatientResponse, _ questionnaire: Questionnaire) -> PatientResponse {
        var record = record
        for (position, answer) in record.allAnswers {
            guard let question = questionnaire.question(at: position) else { continue }
            switch (question.type, answer) {
            case (.text, _): record[position] = nil
            case (.compound(let defined), .dictionary(var fields)):
                for field in defined where field.type == .text { fields[field.key] = nil }
                record[position] = fields.isEmpty ? nil : .dictionary(fields)
            default: break
            }
        }
        return record
    }
}

extension ExportRecord {
    /// Reads one line of a JSON Lines file: a record in the documented format, with the export's
    /// extra keys when present.
    public init(jsonLine: Data) throws {
        if let raw = RawJSON.parse(jsonLine), let record = PatientResponse(raw: raw),
            let patientKey = Self.optional(raw["patientKey"], \.string), let ageYears = Self.optional(raw["ageYears"], \.integer),
            let revision = Self.optional(raw["revision"], \.integer), let shifted = Self.optional(raw["datesShifted"], \.bool)
        {
            self.init(record: record, patientKey: patientKey, ageYears: ageYears, revision: revision, datesShifted: shifted ?? false)
            return
        }
        struct Extras: Decodable {
            var patientKey: String?
            var ageYears: Int?
            var revision: Int?
            var datesShifted: Bool?
        }
        let record = try PatientResponse(jsonData: jsonLine)
        let extras = try JSONDecoder().decode(Extras.self, from: jsonLine)
        self.init(
            record: record, patientKey: extras.patientKey, ageYears: extras.ageYears, revision: extras.revision,
            datesShifted: extras.datesShifted ?? false)
    }

    /// `.some(nil)` when absent or null, `.some(value)` when of the right type, nil otherwise.
    private static func optional<T>(_ json: RawJSON?, _ read: (RawJSON) -> T?) -> T?? {
        guard let json else { return .some(nil) }
        if case .null = json { return .some(nil) }
        return read(json).map { .some($0) }
    }
}
