import Foundation
import IntakeCore

/// FHIR R4 resources one at a time, for a FHIR REST server (`intake serve`'s `/fhir`): the same
/// mapping ``FHIRBundleFormatter`` and `FHIRQuestionnaire` write into an export's bundle, with ids
/// and references a client resolves on that server.
///
/// * A questionnaire version is `Questionnaire/{questionnaireResourceId}`; its canonical `url` is
///   that address, absolute (`{rest}/Questionnaire/{id}`), and a response's `questionnaire` is the
///   canonical with `|version`.
/// * A record is `QuestionnaireResponse/{record id}`, its subject `Patient/{patient key}` (with the
///   key as identifier), never a contained patient.
/// * A patient is `Patient/{patient key}`: named only when the plan includes identifiers.
///
/// Code systems (choices, patient keys, data groups) stay as the plan's ``ExportOptions/fhirBase``
/// makes them, whatever host the server is reached at. Each resource is returned as JSON text.
public final class FHIRResources {
    let formatter: FHIRBundleFormatter
    var names: FHIRNames { formatter.names }

    /// `rest` is the server's FHIR base, absolute and without a trailing slash.
    public init(plan: ExportPlan, rest: String) {
        var names = FHIRNames(base: plan.options.fhirBase, questionnaireId: plan.questionnaireId)
        names.rest = rest
        formatter = FHIRBundleFormatter(plan: plan, names: names, generatedAt: Date())
    }

    /// The resource id of version `version` of questionnaire `questionnaireId`.
    public static func questionnaireResourceId(questionnaireId: String, version: String) -> String {
        FHIRNames(base: "urn:intake", questionnaireId: questionnaireId).resourceId(version: version)
    }

    /// The canonical URL of a version of the plan's questionnaire (without `|version`).
    public func canonicalURL(version: String) -> String { names.canonical(version: version) }

    /// The system of patient keys (`Patient.identifier`, a response's subject identifier).
    public var patientKeySystem: String { names.patientKeySystem }
    /// The system of patients' external ids.
    public var externalIdSystem: String { names.externalIdSystem }

    /// A version of the plan's questionnaire as a `Questionnaire`, leaving out what the plan's
    /// responses leave out; `status` is `active` or `retired`, `date` when it was published.
    public func questionnaire(_ version: Questionnaire, status: String = "active", date: Date? = nil) -> String {
        let plan = formatter.plan
        var resource = FHIRQuestionnaire(questionnaire: version, names: names, options: plan.options, leavesOut: plan.leavesOut)
        resource.status = status
        resource.date = date
        return resource.resource.text
    }

    /// A record of the plan's questionnaire as a `QuestionnaireResponse`.
    public func questionnaireResponse(_ item: ExportRecord) throws(ExportError) -> String {
        let layout = try formatter.plan.layout(for: item.record.questionnaire)
        return formatter.response(item, layout.questionnaire).text
    }

    /// The record's patient as a `Patient` with the patient key as id; nil for a record without a key.
    public func patient(_ item: ExportRecord) -> String? {
        guard let key = item.patientKey else { return nil }
        return formatter.patient(item, key: key, item.registry ?? RegistryFacts(sharingScope: nil)).text
    }
}
