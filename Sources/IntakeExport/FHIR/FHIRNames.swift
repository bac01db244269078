import Crypto
import Foundation
import IntakeCore

/// The URIs FHIR output uses, made from ``ExportOptions/fhirBase``.
struct FHIRNames: Sendable {
    let base: String
    let questionnaireId: String
    /// A FHIR REST server's base (`https://host/fhir`), when the resources are served one at a
    /// time rather than bundled: questionnaires are then named by the address they are read at,
    /// and patients by `Patient/{key}` (``FHIRResources``). Code systems stay as ``base`` makes them.
    var rest: String? = nil

    private var isURN: Bool { base.hasPrefix("urn:") }

    private func name(_ kind: String, _ rest: String) -> String {
        isURN ? "\(base):\(kind):\(rest)" : "\(base)/\(kind)/\(rest)"
    }

    var questionnaireURL: String { name(isURN ? "questionnaire" : "Questionnaire", questionnaireId) }
    /// The canonical URL of a questionnaire version: ``questionnaireURL`` (the same for every
    /// version) in a bundle; on a REST server, the address the version is read at.
    func canonical(version: String) -> String {
        guard let rest else { return questionnaireURL }
        return "\(rest)/Questionnaire/\(resourceId(version: version))"
    }

    /// How a resource refers to a registry patient's `Patient`: the bundle entry's `fullUrl`, or
    /// on a REST server `Patient/{key}`.
    func patientReference(key: String) -> String {
        rest == nil ? patientEntryURL(key: key) : "Patient/\(key)"
    }

    var recordSystem: String { name("record", questionnaireId) }
    var patientKeySystem: String { name("patient-key", "v1") }
    var externalIdSystem: String { name("external-id", "v1") }
    var userSystem: String { name("user", "v1") }
    var dataGroupSystem: String { name("data-group", "v1") }
    var sharingScopeSystem: String { name("sharing-scope", "v1") }
    var consentMethodSystem: String { name("consent-method", "v1") }

    /// The code system of a question's choices: its shared list, or the question itself.
    func choiceSystem(question: Question, set: ChoiceSet) -> String {
        if let list = set.listName { return name("list", list) }
        return name("choices", "\(questionnaireId).\(question.key)")
    }

    /// The bundle entry's `fullUrl` for a questionnaire version: a `urn:uuid:` made from the
    /// canonical URL and the version (name-based, as RFC 9562's version 5 UUIDs are), so the same
    /// version gets the same one in every export.
    func questionnaireEntryURL(version: String) -> String {
        Self.nameBasedURL(questionnaireURL + "|" + version)
    }

    /// The bundle entry's `fullUrl` of a registry patient's `Patient`, from the patient key alone.
    func patientEntryURL(key: String) -> String {
        Self.nameBasedURL(patientKeySystem + "|" + key)
    }

    /// The `fullUrl` of that patient's `Consent`.
    func consentEntryURL(key: String) -> String {
        Self.nameBasedURL(patientKeySystem + "|" + key + "|consent")
    }

    private static func nameBasedURL(_ name: String) -> String {
        var bytes = Array(SHA256.hash(data: Data(name.utf8)).prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x50
        bytes[8] = bytes[8] & 0x3F | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return "urn:uuid:" + uuid.uuidString.lowercased()
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
        case .note: "display"
        case .geopoint, .repeatGroup: "group"
        case .attachment: "attachment"
        }
    }
}
