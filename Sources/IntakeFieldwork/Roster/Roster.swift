import Foundation
import IntakeClient
import IntakeCore

/// A roster of patients to register, read from CSV: a header row naming the columns
/// (`given_name`, `family_name`, `date_of_birth`, `sex`, `external_id`; `givenName` spellings
/// too; and, optional, `data_groups` separated by `;`, `consent` and `consent_method`), then a
/// patient per row. Problems are reported by row and column, never with the value.
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

    /// Columns beyond identification: what a registration carries along.
    enum Extra: String {
        case dataGroups = "data_groups", consent, consentMethod = "consent_method"
    }

    static let extraColumns: [String: Extra] = [
        "data_groups": .dataGroups, "datagroups": .dataGroups, "consent": .consent, "consent_method": .consentMethod,
        "consentmethod": .consentMethod,
    ]

    /// Reads a roster; an unreadable file or header is thrown, problems with rows are collected.
    public init(csv text: String) throws {
        let records: [(line: Int, fields: [String])]
        do {
            records = try CSVReader.records(text)
        } catch {
            throw RosterError("line \(error.line): \(error.message)")
        }
        guard let header = records.first else {
            throw RosterError("the roster is empty; its first row names the columns (given_name, family_name, …)")
        }
        var fields: [PatientIdentification.Field?] = []
        var extras: [Extra?] = []
        for name in header.fields {
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            if let extra = Self.extraColumns[key] {
                guard !extras.contains(extra) else { throw RosterError("the column \(extra.rawValue) is named twice") }
                fields.append(nil)
                extras.append(extra)
                continue
            }
            guard let field = Self.columns[key] else {
                throw RosterError(
                    "the column '\(name.prefix(40))' is not one Intake reads; use given_name, family_name, date_of_birth, sex, external_id, data_groups, consent, consent_method"
                )
            }
            guard !fields.contains(field) else { throw RosterError("the column \(field.rawValue) is named twice") }
            fields.append(field)
            extras.append(nil)
        }
        for required in [PatientIdentification.Field.givenName, .familyName] where !fields.contains(required) {
            throw RosterError("the roster has no \(required == .givenName ? "given_name" : "family_name") column")
        }
        var rows: [Row] = []
        var problems: [Problem] = []
        var externalIds: [String: Int] = [:]
        for record in records.dropFirst() {
            guard record.fields.count == fields.count else {
                problems.append(
                    Problem(line: record.line, column: nil, message: "\(record.fields.count) fields where the header has \(fields.count)"))
                continue
            }
            var values: [PatientIdentification.Field: String] = [:]
            var more: [Extra: String] = [:]
            for ((field, extra), value) in zip(zip(fields, extras), record.fields) {
                let trimmed = value.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty, let field { values[field] = trimmed }
                if !trimmed.isEmpty, let extra { more[extra] = trimmed }
            }
            let before = problems.count
            let groups = more[.dataGroups].map {
                $0.split(whereSeparator: { $0 == ";" || $0 == "," }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            if let groups, groups.contains(where: { !$0.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") } }) {
                problems.append(
                    Problem(line: record.line, column: "data_groups", message: "names lowercase letters, digits and _, separated by ;"))
            }
            if let scope = more[.consent], SharingScope(rawValue: scope) == nil {
                problems.append(
                    Problem(
                        line: record.line, column: "consent",
                        message: "is \(SharingScope.allCases.map(\.rawValue).joined(separator: ", ")) or empty"))
            }
            if let method = more[.consentMethod], ConsentMethod(rawValue: method) == nil {
                problems.append(
                    Problem(
                        line: record.line, column: "consent_method",
                        message: "is \(ConsentMethod.allCases.map(\.rawValue).joined(separator: ", ")) or empty"))
            }
            if (more[.consent] == nil) != (more[.consentMethod] == nil) {
                problems.append(Problem(line: record.line, column: "consent", message: "consent and consent_method are given together"))
            }
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
            if let birth = values[.dateOfBirth], LocalDate(iso: birth) == nil {
                problem(.dateOfBirth, "not a date; write it as YYYY-MM-DD")
            }
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
                        dateOfBirth: values[.dateOfBirth], sex: sex, externalId: values[.externalId], dataGroups: groups,
                        consent: more[.consent].map { NewRemotePatient.Consent(scope: $0, method: more[.consentMethod] ?? "") })))
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
