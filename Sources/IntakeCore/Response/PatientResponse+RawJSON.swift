import Foundation

extension PatientResponse {
    /// The record from already-parsed JSON, or nil when anything is missing, unusual or wrong:
    /// the caller then decodes with `JSONDecoder`, which has the last word and the messages.
    package init?(raw: RawJSON) {
        guard case .object(let top) = raw, let format = top["format"]?.integer, format >= 1, format <= Self.formatVersion,
            let idText = top["id"]?.string, let id = UUID(uuidString: idText),
            let questionnaireId = top["questionnaire"]?["id"]?.string, let version = top["questionnaire"]?["version"]?.string,
            case .object(let patientJSON)? = top["patient"], let patient = Self.patient(patientJSON),
            case .object(let sections)? = top["answers"],
            let statusText = top["status"]?.string, let status = Status(rawValue: statusText),
            let collector = top["collector"]?.string, let deviceId = top["deviceId"]?.string,
            let createdText = top["createdAt"]?.string, let createdAt = Timestamp.date(from: createdText),
            let updatedText = top["updatedAt"]?.string, let updatedAt = Timestamp.date(from: updatedText)
        else { return nil }
        var language: String?
        switch top["language"] {
        case nil, .null?: language = nil
        case .string(let text)?: language = text
        default: return nil
        }
        var answers: [Int: [Int: Answer]] = [:]
        for (sectionKey, value) in sections {
            guard let section = Int(sectionKey), section > 0, case .object(let byIndex) = value else { return nil }
            for (indexKey, answerJSON) in byIndex {
                guard let index = Int(indexKey), index > 0, let answer = Answer(raw: answerJSON) else { return nil }
                answers[section, default: [:]][index] = answer
            }
        }
        self.init(
            id: id, questionnaire: QuestionnaireReference(id: questionnaireId, version: version), patient: patient, answers: answers,
            status: status, collector: collector, deviceId: deviceId, language: language, createdAt: createdAt, updatedAt: updatedAt)
    }

    private static func patient(_ json: [String: RawJSON]) -> PatientIdentification? {
        func optional(_ key: String) -> String?? {
            switch json[key] {
            case nil, .null?: return .some(nil)
            case .string(let text)?: return .some(text)
            default: return nil
            }
        }
        guard let given = optional("givenName"), let family = optional("familyName"), let birth = optional("dateOfBirth"),
            let sexText = optional("sex"), let external = optional("externalId")
        else { return nil }
        var patient = PatientIdentification(givenName: given ?? "", familyName: family ?? "", externalId: external)
        if let birth {
            guard let date = LocalDate(iso: birth) else { return nil }
            patient.dateOfBirth = date
        }
        if let sexText {
            guard let sex = PatientIdentification.Sex(rawValue: sexText) else { return nil }
            patient.sex = sex
        }
        return patient
    }
}

extension Answer {
    package init?(raw: RawJSON) {
        guard case .object(let members) = raw, members.count == 1, let (key, value) = members.first else { return nil }
        switch (key, value) {
        case ("text", .string(let text)): self = .text(text)
        case ("integer", .integer(let number)): self = .integer(number)
        case ("decimal", .number(let number)): self = .decimal(number)
        case ("decimal", .integer(let number)): self = .decimal(Double(number))
        case ("date", .string(let text)):
            guard let date = LocalDate(iso: text) else { return nil }
            self = .date(date)
        case ("yesNo", .bool(let flag)): self = .yesNo(flag)
        case ("choice", .string(let code)): self = .choice(code)
        case ("choices", .array(let items)):
            var codes: [String] = []
            for item in items {
                guard case .string(let code) = item else { return nil }
                codes.append(code)
            }
            self = .choices(codes)
        case ("dictionary", .object(let fields)):
            var answers: [String: Answer] = [:]
            for (name, field) in fields {
                guard let answer = Answer(raw: field) else { return nil }
                answers[name] = answer
            }
            self = .dictionary(answers)
        default: return nil
        }
    }
}
