import IntakeCore

/// Reads what a person typed into a patient-information field.
enum PatientInput {
    struct Problem: Error {
        var message: String
    }

    static let maxLength = 200

    static func parse(_ text: String, for field: PatientIdentification.Field, today: LocalDate)
        -> Result<(inout PatientIdentification) -> Void, Problem>
    {
        switch field {
        case .givenName, .familyName, .externalId:
            guard text.count <= maxLength else { return .failure(Problem(message: "Please keep it under \(maxLength) characters.")) }
            switch field {
            case .givenName: return .success { $0.givenName = text }
            case .familyName: return .success { $0.familyName = text }
            default: return .success { $0.externalId = text }
            }
        case .dateOfBirth:
            guard let date = LocalDate(iso: text) else {
                return .failure(
                    Problem(message: "Please enter the date of birth as YYYY-MM-DD, like 1988-04-02, or press Enter if it is not known."))
            }
            guard date <= today, date.year >= 1900 else {
                return .failure(Problem(message: "The date of birth must be between 1900-01-01 and today."))
            }
            return .success { $0.dateOfBirth = date }
        case .sex:
            let lowered = text.lowercased()
            guard let sex = PatientIdentification.Sex.allCases.first(where: { $0.rawValue == lowered || $0.rawValue.prefix(1) == lowered })
            else { return .failure(Problem(message: "Please answer female, male, other or unknown (f/m/o/u).")) }
            return .success { $0.sex = sex }
        }
    }
}

extension PatientIdentification {
    /// The field's value as shown on screen, or nil when it is empty.
    func display(_ field: Field) -> String? {
        let value: String? =
            switch field {
            case .givenName: givenName
            case .familyName: familyName
            case .dateOfBirth: dateOfBirth?.description
            case .sex: sex?.rawValue
            case .externalId: externalId
            }
        return value.flatMap { $0.isEmpty ? nil : $0 }
    }

    mutating func clear(_ field: Field) {
        switch field {
        case .givenName: givenName = ""
        case .familyName: familyName = ""
        case .dateOfBirth: dateOfBirth = nil
        case .sex: sex = nil
        case .externalId: externalId = nil
        }
    }
}
