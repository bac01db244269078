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
