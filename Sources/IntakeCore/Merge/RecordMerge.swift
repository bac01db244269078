import Foundation

/// A three-way merge of two edits of one record made from the same revision: each side's
/// changes to the base are kept, answer by answer and field by field; only what both sides
/// changed to different values is a conflict. Whoever resolves a conflict picks a side for it.
public struct RecordMerge: Sendable {
    /// One part of a record that merges on its own.
    public enum Field: Hashable, Comparable, Sendable, CustomStringConvertible {
        case questionnaire
        case patient(PatientIdentification.Field)
        case patientId
        case status
        case language
        case answer(QuestionPosition)

        public var description: String {
            switch self {
            case .questionnaire: "questionnaire version"
            case .patient(let field): field.label.lowercased()
            case .patientId: "registry patient"
            case .status: "status"
            case .language: "language"
            case .answer(let position): "question \(position)"
            }
        }

        private var order: (Int, Int, Int) {
            switch self {
            case .questionnaire: (0, 0, 0)
            case .patient(let field): (1, PatientIdentification.Field.allCases.firstIndex(of: field) ?? 0, 0)
            case .patientId: (2, 0, 0)
            case .status: (3, 0, 0)
            case .language: (4, 0, 0)
            case .answer(let position): (5, position.section, position.index)
            }
        }

        public static func < (lhs: Field, rhs: Field) -> Bool { lhs.order < rhs.order }
    }

    /// A field's value on one side (nil: not answered, or not set).
    public enum Value: Hashable, Sendable {
        case text(String?)
        case questionnaire(QuestionnaireReference)
        case answer(Answer?)
    }

    /// A field both sides changed, to different values.
    public struct Conflict: Sendable, Equatable {
        public var field: Field
        public var base: Value
        public var mine: Value
        public var theirs: Value
    }

    public enum Side: Sendable {
        case mine, theirs
    }

    /// The server's record with every change of mine that does not conflict applied; conflicting
    /// fields keep the server's value until resolved.
    public private(set) var merged: PatientResponse
    public let conflicts: [Conflict]
    /// Fields of mine applied (changed by me only).
    public let appliedFromMine: [Field]

    /// Merges `mine` and `theirs`, both edits of `base`.
    public init(base: PatientResponse, mine: PatientResponse, theirs: PatientResponse) {
        var merged = theirs
        var conflicts: [Conflict] = []
        var applied: [Field] = []
        let fields = Set(Self.fields(of: base) + Self.fields(of: mine) + Self.fields(of: theirs)).sorted()
        for field in fields {
            let (b, m, t) = (Self.value(field, of: base), Self.value(field, of: mine), Self.value(field, of: theirs))
            if m == b || m == t { continue }
            if t == b {
                Self.set(field, m, in: &merged)
                applied.append(field)
            } else {
                conflicts.append(Conflict(field: field, base: b, mine: m, theirs: t))
            }
        }
        merged.updatedAt = max(mine.updatedAt, theirs.updatedAt)
        self.merged = merged
        self.conflicts = conflicts
        self.appliedFromMine = applied
    }

    /// The merge with each conflict settled by `choose`.
    public func resolved(_ choose: (Conflict) throws -> Side) rethrows -> PatientResponse {
        var record = merged
        for conflict in conflicts where try choose(conflict) == .mine {
            Self.set(conflict.field, conflict.mine, in: &record)
        }
        return record
    }

    static func fields(of record: PatientResponse) -> [Field] {
        [.questionnaire, .patientId, .status, .language] + PatientIdentification.Field.allCases.map(Field.patient)
            + record.allAnswers.map { .answer($0.position) }
    }

    static func value(_ field: Field, of record: PatientResponse) -> Value {
        switch field {
        case .questionnaire: .questionnaire(record.questionnaire)
        case .patientId: .text(record.patientId?.uuidString.lowercased())
        case .status: .text(record.status.rawValue)
        case .language: .text(record.language)
        case .answer(let position): .answer(record[position])
        case .patient(let field):
            switch field {
            case .givenName: .text(record.patient.givenName)
            case .familyName: .text(record.patient.familyName)
            case .dateOfBirth: .text(record.patient.dateOfBirth?.description)
            case .sex: .text(record.patient.sex?.rawValue)
            case .externalId: .text(record.patient.externalId)
            }
        }
    }

    static func set(_ field: Field, _ value: Value, in record: inout PatientResponse) {
        switch (field, value) {
        case (.questionnaire, .questionnaire(let reference)): record.questionnaire = reference
        case (.answer(let position), .answer(let answer)): record[position] = answer
        case (.patientId, .text(let text)): record.patientId = text.flatMap(UUID.init(uuidString:))
        case (.status, .text(let text)): record.status = text.flatMap(PatientResponse.Status.init(rawValue:)) ?? record.status
        case (.language, .text(let text)): record.language = text
        case (.patient(let field), .text(let text)):
            switch field {
            case .givenName: record.patient.givenName = text ?? ""
            case .familyName: record.patient.familyName = text ?? ""
            case .dateOfBirth: record.patient.dateOfBirth = text.flatMap(LocalDate.init(iso:))
            case .sex: record.patient.sex = text.flatMap(PatientIdentification.Sex.init(rawValue:))
            case .externalId: record.patient.externalId = text
            }
        default: break
        }
    }
}
