import IntakeCore

/// The URIs FHIR output uses, made from ``ExportOptions/fhirBase``.
struct FHIRNames: Sendable {
    let base: String
    let questionnaireId: String

    private var isURN: Bool { base.hasPrefix("urn:") }

    private func name(_ kind: String, _ rest: String) -> String {
        isURN ? "\(base):\(kind):\(rest)" : "\(base)/\(kind)/\(rest)"
    }

    var questionnaireURL: String { name(isURN ? "questionnaire" : "Questionnaire", questionnaireId) }
    var recordSystem: String { name("record", questionnaireId) }
    var patientKeySystem: String { name("patient-key", "v1") }
    var externalIdSystem: String { name("external-id", "v1") }
    var userSystem: String { name("user", "v1") }

    /// The code system of a question's choices: its shared list, or the question itself.
    func choiceSystem(question: Question, set: ChoiceSet) -> String {
        if let list = set.listName { return name("list", list) }
        return name("choices", "\(questionnaireId).\(question.key)")
    }

    func resourceId(version: String) -> String {
        String(
            (questionnaireId + "-" + version).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") ? $0 : "-" }
                .prefix(64))
    }
}

/// The FHIR item type of a question type.
extension QuestionType {
    var fhirType: String {
        switch self {
        case .text: "text"
        case .yesNo: "boolean"
        case .singleChoice, .multipleChoice: "choice"
        case .integer: "integer"
        case .decimal: "decimal"
        case .date: "date"
        case .compound: "group"
        }
    }
}
