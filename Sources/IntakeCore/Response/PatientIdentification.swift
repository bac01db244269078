import Foundation

/// Who the record is about: the patient-information section of the form.
///
/// These fields identify a person. Keep them out of logs and error messages.
public struct PatientIdentification: Hashable, Sendable, Codable {
    public var givenName: String
    public var familyName: String
    public var dateOfBirth: LocalDate?
    public var sex: Sex?
    /// A registration number from another system (UNHCR case number, clinic file number), if any.
    public var externalId: String?

    public init(
        givenName: String = "", familyName: String = "", dateOfBirth: LocalDate? = nil, sex: Sex? = nil,
        externalId: String? = nil
    ) {
        self.givenName = givenName
        self.familyName = familyName
        self.dateOfBirth = dateOfBirth
        self.sex = sex
        self.externalId = externalId
    }

    /// `Amina Haddad`: the names given, in order, the empty ones left out (empty when none is).
    public var fullName: String { [givenName, familyName].filter { !$0.isEmpty }.joined(separator: " ") }

    /// `A. K.`: enough to tell drafts apart on screen without showing a full name.
    public var initials: String {
        [givenName, familyName].compactMap { $0.trimmingSpaces().first.map { "\($0)." } }
            .joined(separator: " ")
    }

    private enum CodingKeys: String, CodingKey {
        case givenName, familyName, dateOfBirth, sex, externalId
    }

    /// Names may be absent (de-identified exports leave them out); they read as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        givenName = try c.decodeIfPresent(String.self, forKey: .givenName) ?? ""
        familyName = try c.decodeIfPresent(String.self, forKey: .familyName) ?? ""
        dateOfBirth = try c.decodeIfPresent(LocalDate.self, forKey: .dateOfBirth)
        sex = try c.decodeIfPresent(Sex.self, forKey: .sex)
        externalId = try c.decodeIfPresent(String.self, forKey: .externalId)
    }

    public enum Sex: String, Hashable, Sendable, Codable, CaseIterable {
        case female, male, other, unknown

        /// The values as a message names them: "female, male, other or unknown".
        public static var spelled: String { spell(allCases.map(\.rawValue)) }
    }

    /// The fields of the patient section, in the order the form asks them.
    public enum Field: String, CaseIterable, Sendable {
        case givenName, familyName, dateOfBirth, sex, externalId

        public var label: String {
            switch self {
            case .givenName: "Given name"
            case .familyName: "Family name"
            case .dateOfBirth: "Date of birth"
            case .sex: "Sex"
            case .externalId: "External id (case or file number)"
            }
        }

        public var isRequired: Bool { self == .givenName || self == .familyName || self == .sex }
    }
}

extension PatientIdentification {
    /// The fields holding a control character (see ``ControlCharacters``), in the order of the
    /// record: names and external ids are shown on colleagues' terminals and in exports.
    public var fieldsWithControls: [Field] {
        var fields: [Field] = []
        if ControlCharacters.contained(in: givenName) { fields.append(.givenName) }
        if ControlCharacters.contained(in: familyName) { fields.append(.familyName) }
        if let externalId, ControlCharacters.contained(in: externalId) { fields.append(.externalId) }
        return fields
    }
}

/// Characters a terminal acts on rather than shows: C0 controls other than tab and line feed,
/// DEL, and C1 controls. Never part of an answer or a name: an arrow key in a terminal without
/// line editing puts `ESC [ D` in the line, and a name holding escape sequences would drive the
/// terminal of whoever looks the patient up.
public enum ControlCharacters {
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    public static func contained(in text: String) -> Bool { text.unicodeScalars.contains(where: isControl) }

    /// What the validators and the form say of it.
    public static let problem =
        "it holds a control character (an arrow key or escape sequence typed where no line editing was available, or pasted); type it again without it"
}

extension PatientIdentification {
    /// The patient's fields an expression may read by name (calculations, constraints, `required
    /// if`, defaults and alerts; not show-if, which reads answers only), each at section 0 of a
    /// record, numbered as the form numbers the patient's fields (P.3, P.4).
    public static let expressionFields: [String: QuestionPosition] = [
        "date_of_birth": QuestionPosition(section: 0, index: Field.allCases.firstIndex(of: .dateOfBirth)! + 1),
        "sex": QuestionPosition(section: 0, index: Field.allCases.firstIndex(of: .sex)! + 1),
    ]

    /// The field at `index` of section 0 as an answer: the date of birth, or the sex's code.
    func expressionAnswer(_ index: Int) -> Answer? {
        guard Field.allCases.indices.contains(index - 1) else { return nil }
        switch Field.allCases[index - 1] {
        case .dateOfBirth: return dateOfBirth.map(Answer.date)
        case .sex: return sex.map { .choice($0.rawValue) }
        default: return nil
        }
    }
}
