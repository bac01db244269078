import Foundation
import IntakeClient
import IntakeCore

/// A roster of patients to register, read from CSV: a header row naming the columns
/// (`given_name`, `family_name`, `date_of_birth`, `sex`, `external_id`; `givenName` spellings
/// too), then a patient per row. Problems are reported by row and column, never with the value.
public struct Roster: Sendable {
    public struct Row: Sendable, Equatable {
        /// The line of the file the row starts on.
        public var line: Int
        public var patient: NewRemotePatient
    }

    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var column: String?
        public var message: String

        public var description: String { "row \(line)\(column.map { ", column \($0)" } ?? ""): \(message)" }
    }

    public var rows: [Row]
    public var problems: [Problem]

    static let columns: [String: PatientIdentification.Field] = [
        "given_name": .givenName, "givenname": .givenName, "family_name": .familyName, "familyname": .familyName,
        "date_of_birth": .dateOfBirth, "dateofbirth": .dateOfBirth, "sex": .sex, "external_id": .externalId, "externalid": .externalId,
    ]

    /// Reads a roster; an unreadable file or header is thrown, problems with rows are collected.
    public init(csv text: String) throws {
        let records: [(line: Int, fields: [String])]
        do {
            records = try CSVReader.records(text)
        } catch {
            throw RosterError("line \(error.line): \(error.message)")
        }
        guard let header = records.first else { throw RosterError("the roster is empty; its first row names the columns (given_name, family_name, …)") }
        var fields: [PatientIdentification.Field?] = []
        for name in header.fields {
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let field = Self.columns[key] else {
                throw RosterError("the column '\(name.prefix(40))' is not one Intake reads; use given_name, family_name, date_of_birth, sex, external_id")
            }
            guard !fields.contains(field) else { throw RosterError("the column \(field.rawValue) is named twice") }
            fields.append(field)
        }
        for required in [PatientIdentification.Field.givenName, .familyName] where !fields.contains(required) {
            throw RosterError("the roster has no \(required == .givenName ? "given_name" : "family_name") column")
        }
        var rows: [Row] = []
        var problems: [Problem] = []
        var externalIds: [String: Int] = [:]
        for record in records.dropFirst() {
            guard record.fields.count == fields.count else {
                problems.append(Problem(line: record.line, column: nil, message: "\(record.fields.count) fields where the header has \(fields.count)"))
                continue
            }
            var values: [PatientIdentification.Field: String] = [:]
            for (field, value) in zip(fields, record.fields) {
                let trimmed = value.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty, let field { values[field] = trimmed }
            }
            let before = problems.count
            func problem(_ field: PatientIdentification.Field, _ message: String) {
                problems.append(Problem(line: record.line, column: Self.name(field), message: message))
            }
            for field in [PatientIdentification.Field.givenName, .familyName] where values[field] == nil { problem(field, "required") }
            for (field, value) in values where value.count > (field == .externalId ? 100 : 200) {
                problem(field, "longer than \(field == .externalId ? 100 : 200) characters")
            }
            for (field, value) in values where value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                problem(field, "holds a line break or another control character")
            }
            if let birth = values[.dateOfBirth], LocalDate(iso: birth) == nil { problem(.dateOfBirth, "not a date; write it as YYYY-MM-DD") }
            if let sex = values[.sex], PatientIdentification.Sex(rawValue: sex.lowercased()) == nil {
                problem(.sex, "is female, male, other or unknown")
            }
            if let external = values[.externalId] {
                if let earlier = externalIds[external] {
                    problem(.externalId, "the same as row \(earlier)'s")
                } else {
                    externalIds[external] = record.line
                }
            }
            guard problems.count == before else { continue }
            let sex = values[.sex]?.lowercased()
            rows.append(
                Row(
                    line: record.line,
                    patient: NewRemotePatient(
                        id: Self.id(values, sex: sex), givenName: values[.givenName]!, familyName: values[.familyName]!,
                        dateOfBirth: values[.dateOfBirth], sex: sex, externalId: values[.externalId])))
        }
        self.rows = rows
        self.problems = problems
    }

    static func name(_ field: PatientIdentification.Field) -> String {
        switch field {
        case .givenName: "given_name"
        case .familyName: "family_name"
        case .dateOfBirth: "date_of_birth"
        case .sex: "sex"
        case .externalId: "external_id"
        }
    }

    /// The same row gives the same id, so importing a roster again registers nobody twice.
    static func id(_ values: [PatientIdentification.Field: String], sex: String?) -> String {
        let text = ["intake-roster-1", values[.givenName], values[.familyName], values[.dateOfBirth], sex, values[.externalId]]
            .map { $0 ?? "" }.joined(separator: "\u{1F}")
        return UUID.named(text).uuidString.lowercased()
    }
}

public struct RosterError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
