/// One column of the wide CSV.
public struct ExportColumn: Sendable, Hashable {
    public var name: String
    public var type: ColumnType
    public var source: Source

    public enum Source: Sendable, Hashable {
        /// A property of the record rather than an answer.
        case meta(MetaField)
        /// Whether the record's patient is in this data group (0 or 1; empty with no registry patient).
        case dataGroup(String)
        /// An answer, or part of one: `path` steps into compound fields and multiple-choice codes.
        case answer(questionKey: String, path: [AnswerStep])
    }

    /// What a column that holds no answer means, for the codebook; nil for answer columns.
    public var fixedDescription: String? {
        switch source {
        case .meta(let field): field.description
        case .dataGroup(let group):
            "1 when the patient is in the data group '\(group)', 0 when not; empty for a record with no registry patient."
        case .answer: nil
        }
    }

    /// The question key for answer columns.
    public var questionKey: String? {
        if case .answer(let key, _) = source { return key }
        return nil
    }
}

/// A step from an answer to a part of it.
public enum AnswerStep: Sendable, Hashable {
    /// A compound answer's field.
    case field(String)
    /// Whether a multiple-choice answer includes this code (0 or 1).
    case choice(String)
    /// The answer in a repeat's instance (from 1), for the wide CSV's columns of a repeat's questions.
    case instance(Int)
}

/// How a column's cells are typed, as Table Schema names them.
public enum ColumnType: String, Sendable, Hashable {
    case string, integer, number, date, datetime
    /// 0 or 1: a yes/no answer or a multiple-choice code.
    case indicator

    var tableSchemaType: String { self == .indicator ? "integer" : rawValue }
}

/// Record properties exported beside the answers.
public enum MetaField: String, Sendable, Hashable, CaseIterable {
    case recordId = "record_id"
    case patientKey = "patient_key"
    case givenName = "given_name"
    case familyName = "family_name"
    case dateOfBirth = "date_of_birth"
    case externalId = "external_id"
    case sex
    case ageYears = "age_years"
    case sharingScope = "sharing_scope"
    case dataGroups = "data_groups"
    case questionnaireId = "questionnaire_id"
    case questionnaireVersion = "questionnaire_version"
    case status
    case revision
    case language = "form_language"
    case collector
    case createdAt = "created_at"
    case updatedAt = "updated_at"
    case reviewState = "review_state"

    public var isIdentifier: Bool {
        switch self {
        case .givenName, .familyName, .dateOfBirth, .externalId: true
        default: false
        }
    }

    var type: ColumnType {
        switch self {
        case .ageYears, .revision: .integer
        case .dateOfBirth: .date
        case .createdAt, .updatedAt: .datetime
        default: .string
        }
    }

    var isRequired: Bool { self == .recordId || self == .questionnaireId || self == .questionnaireVersion || self == .status }

    var description: String {
        switch self {
        case .recordId: "The record's id (UUID); the same record keeps it through edits."
        case .patientKey:
            "Pseudonymous patient key: a keyed hash (HMAC-SHA256 with a secret kept by the server) of the registry patient's id, or for a record with no registry patient of the folded names and date of birth; links records (and reports) of one patient without naming them."
        case .givenName: "Patient's given name (identifier)."
        case .familyName: "Patient's family name (identifier)."
        case .dateOfBirth: "Patient's date of birth (identifier)."
        case .externalId: "Registration number from another system (identifier)."
        case .sex: "female, male, other or unknown."
        case .ageYears: "Age in whole years when the record was started; 90 means 90 or older."
        case .sharingScope:
            "The patient's current sharing scope: no_sharing, sponsors_and_partners or all_qualified_researchers; empty when the record points to no registry patient or no consent is recorded."
        case .dataGroups: "The data groups the patient is in, sorted and separated by ';'; empty when none (or no registry patient)."
        case .questionnaireId: "The questionnaire's id."
        case .questionnaireVersion: "The questionnaire version the answers belong to."
        case .status: "complete, or draft for a record not finished."
        case .revision: "The server's revision number of the record (1 when never edited)."
        case .language: "The translation the form was filled in; empty for the base language."
        case .collector: "Who collected the record."
        case .createdAt: "When the record was started (UTC)."
        case .updatedAt: "When the record was last changed (UTC)."
        case .reviewState:
            "Its review on the server: received, has_issues, edited (changed since a review), approved or rejected; empty for records that did not come from a server."
        }
    }
}
