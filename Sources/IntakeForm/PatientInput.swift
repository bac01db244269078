import IntakeCore

/// Reads what a person typed into a patient-information field.
enum PatientInput {
    struct Problem: Error {
        var message: String
    }

    static let maxLength = 200

    static func parse(_ text: String, for field: PatientIdentification.Field, today: LocalDate, say: FormLanguage = FormLanguage(nil))
        -> Result<(inout PatientIdentification) -> Void, Problem>
    {
        switch field {
        case .givenName, .familyName, .externalId:
            guard text.count <= maxLength else { return .failure(Problem(message: say(.keepUnder(maxLength)))) }
            switch field {
            case .givenName: return .success { $0.givenName = text }
            case .familyName: return .success { $0.familyName = text }
            default: return .success { $0.externalId = text }
            }
        case .dateOfBirth:
            guard let date = LocalDate(iso: text) else {
                return .failure(
                    Problem(message: LocalDate.impossibleDay(iso: text).map { say(.noSuchDay(text, $0)) } ?? say(.dateOfBirthFormat)))
            }
            guard date <= today, date.year >= 1900 else {
                return .failure(Problem(message: say(.dateOfBirthRange)))
            }
            return .success { $0.dateOfBirth = date }
        case .sex:
            let lowered = TextFold.fold(text)
            // In English (`f`, `female`) or in the form's language (`أنثى`).
            guard
                let sex = PatientIdentification.Sex.allCases.first(where: {
                    $0.rawValue == lowered || $0.rawValue.prefix(1) == lowered || TextFold.fold(say(.sex($0))) == lowered
                })
            else { return .failure(Problem(message: say(.sexAnswer))) }
            return .success { $0.sex = sex }
        }
    }
}

extension PatientIdentification {
    /// The field's value as shown on screen, or nil when it is empty.
    func display(_ field: Field, say: FormLanguage = FormLanguage(nil)) -> String? {
        let value: String? =
            switch field {
            case .givenName: givenName
            case .familyName: familyName
            case .dateOfBirth: dateOfBirth?.description
            case .sex: sex.map { say(.sex($0)) }
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
