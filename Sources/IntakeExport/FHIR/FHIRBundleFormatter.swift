import Foundation
import IntakeCore

/// An HL7 FHIR R4 `Bundle` (type collection): a `Questionnaire` per version, then a
/// `QuestionnaireResponse` per record, written as the records arrive. A record of a registry
/// patient is preceded, the first time that patient appears, by their `Patient` and, once consent
/// is recorded, their `Consent`; the response names the patient as its subject and carries the
/// patient's data groups and sharing scope as `meta.tag`s.
public final class FHIRBundleFormatter: ExportFormatter {
    let plan: ExportPlan
    let names: FHIRNames
    let generatedAt: Date
    /// Patient keys whose `Patient` is written already.
    private var written: Set<String> = []

    public convenience init(plan: ExportPlan, generatedAt: Date = Date()) {
        self.init(
            plan: plan, names: FHIRNames(base: plan.options.fhirBase, questionnaireId: plan.questionnaireId), generatedAt: generatedAt)
    }

    init(plan: ExportPlan, names: FHIRNames, generatedAt: Date) {
        self.plan = plan
        self.names = names
        self.generatedAt = generatedAt
    }

    public func header() -> String {
        var out = "{\"resourceType\":\"Bundle\",\"type\":\"collection\",\"timestamp\":"
        OrderedJSON.string(Timestamp.string(from: generatedAt)).write(into: &out)
        out += ",\"entry\":["
        for (index, version) in plan.versions.enumerated() {
            if index > 0 { out += "," }
            out += "\n"
            let resource = FHIRQuestionnaire(questionnaire: version, names: names, options: plan.options, leavesOut: plan.leavesOut)
                .resource
            OrderedJSON.object([("fullUrl", .string(names.questionnaireEntryURL(version: version.version))), ("resource", resource)]).write(
                into: &out)
        }
        return out
    }

    public func row(_ item: ExportRecord) throws(ExportError) -> String {
        let layout = try plan.layout(for: item.record.questionnaire)
        var out = ",\n"
        if let registry = item.registry, let key = item.patientKey, written.insert(key).inserted {
            OrderedJSON.object([("fullUrl", .string(names.patientEntryURL(key: key))), ("resource", patient(item, key: key, registry))])
                .write(into: &out)
            out += ",\n"
            if let consent = consent(key: key, registry) {
                OrderedJSON.object([("fullUrl", .string(names.consentEntryURL(key: key))), ("resource", consent)]).write(into: &out)
                out += ",\n"
            }
        }
        OrderedJSON.object([
            ("fullUrl", .string("urn:uuid:" + item.record.id.uuidString.lowercased())),
            ("resource", response(item, layout.questionnaire)),
        ]).write(into: &out)
        return out
    }

    public func footer() -> String { "\n]}\n" }

    func response(_ item: ExportRecord, _ questionnaire: Questionnaire) -> OrderedJSON {
        let record = item.record
        let id = record.id.uuidString.lowercased()
        var members: [(String, OrderedJSON)] = [("resourceType", .string("QuestionnaireResponse")), ("id", .string(id))]
        if let registry = item.registry, let tags = tags(registry) { members.append(("meta", tags)) }
        if let language = record.language { members.append(("language", .string(language))) }
        let registered = item.registry != nil && item.patientKey != nil
        // Served one at a time (REST), a response names its patient by key: never contained.
        let patient = plan.options.includeIdentifiers && !registered && names.rest == nil ? containedPatient(item) : nil
        if let patient { members.append(("contained", .array([patient]))) }
        members.append(("identifier", .object([("system", .string(names.recordSystem)), ("value", .string(id))])))
        members.append(
            ("questionnaire", .string(names.canonical(version: record.questionnaire.version) + "|" + record.questionnaire.version)))
        members.append(("status", .string(record.status == .complete ? "completed" : "in-progress")))
        if patient != nil {
            members.append(("subject", .object([("reference", .string("#patient"))])))
        } else if registered || names.rest != nil, let key = item.patientKey {
            members.append(
                (
                    "subject",
                    .object([
                        ("reference", .string(names.patientReference(key: key))),
                        ("identifier", .object([("system", .string(names.patientKeySystem)), ("value", .string(key))])),
                    ])
                ))
        } else if let key = item.patientKey {
            members.append(
                ("subject", .object([("identifier", .object([("system", .string(names.patientKeySystem)), ("value", .string(key))]))])))
        }
        members.append(("authored", .string(Timestamp.string(from: record.updatedAt))))
        members.append(
            (
                "author",
                .object([
                    ("identifier", .object([("system", .string(names.userSystem)), ("value", .string(record.collector))])),
                    ("display", .string(record.collector)),
                ])
            ))
        let hidden = questionnaire.hiddenPositions(in: record)
        var sections: [OrderedJSON] = []
        for section in questionnaire.sections {
            let items = section.questions.flatMap { question -> [OrderedJSON] in
                guard question.group == nil, !hidden.contains(question.position), !plan.leavesOut(question),
                    let answer = record[question.position]
                else { return [] }
                return self.items(question, answer, in: questionnaire)
            }
            if !items.isEmpty {
                sections.append(.object([("linkId", .string("section-\(section.number)")), ("item", .array(items))]))
            }
        }
        if !sections.isEmpty { members.append(("item", .array(sections))) }
        return .object(members)
    }

    /// The items of one answer: one, or for a repeat one group item per instance (same linkId,
    /// in order) holding the instance's answers.
    private func items(_ question: Question, _ answer: Answer, in questionnaire: Questionnaire) -> [OrderedJSON] {
        guard question.isRepeat else { return item(question, answer).map { [$0] } ?? [] }
        guard case .instances(let list) = answer else { return [] }
        let members = questionnaire.members(of: question.position).filter { !plan.leavesOut($0) }
        return list.compactMap { instance in
            let inner = members.flatMap { member in instance[member.position.index].map { items(member, $0, in: questionnaire) } ?? [] }
            return inner.isEmpty ? nil : .object([("linkId", .string(question.key)), ("item", .array(inner))])
        }
    }

    private func item(_ question: Question, _ answer: Answer) -> OrderedJSON? {
        if let fields = question.type.parts {
            guard let values = answer.parts else { return nil }
            let items = fields.compactMap { field -> OrderedJSON? in
                guard let value = values[field.key], let answers = answers(value, type: field.type, question: question) else { return nil }
                return .object([("linkId", .string(question.key + "." + field.key)), ("answer", .array(answers))])
            }
            return items.isEmpty ? nil : .object([("linkId", .string(question.key)), ("item", .array(items))])
        }
        guard let answers = answers(answer, type: question.type, question: question) else { return nil }
        return .object([("linkId", .string(question.key)), ("answer", .array(answers))])
    }

    /// The answers typed as the item is; nil for free text when it is left out, or an answer of the wrong type.
    private func answers(_ answer: Answer, type: QuestionType, question: Question) -> [OrderedJSON]? {
        func value(_ key: String, _ value: OrderedJSON) -> [OrderedJSON] { [.object([(key, value)])] }
        func coding(_ code: String, _ set: ChoiceSet) -> OrderedJSON {
            var members: [(String, OrderedJSON)] = [
                ("system", .string(names.choiceSystem(question: question, set: set))), ("code", .string(code)),
            ]
            if let choice = set.choice(code: code) { members.append(("display", .string(choice.label.base))) }
            return .object([("valueCoding", .object(members))])
        }
        switch (answer, type) {
        case (.text(let text), .text): return plan.options.dropFreeText ? nil : value("valueString", .string(text))
        case (.integer(let number), .integer): return value("valueInteger", .integer(number))
        case (.decimal(let number), .decimal): return value("valueDecimal", .number(number))
        case (.integer(let number), .decimal): return value("valueDecimal", .number(Double(number)))
        case (.date(let date), .date): return value("valueDate", .string(date.description))
        case (.yesNo(let flag), .yesNo): return value("valueBoolean", .bool(flag))
        case (.choice(let code), .singleChoice(let set)): return [coding(code, set)]
        case (.choices(let codes), .multipleChoice(let set)): return codes.isEmpty ? nil : codes.map { coding($0, set) }
        case (.attachment(let ref), .attachment):
            // The file sits beside the bundle, in the export folder's attachments/ (FHIR's hash is SHA-1: left out).
            return value(
                "valueAttachment",
                .object([
                    ("contentType", .string(ref.mediaType)), ("url", .string("attachments/" + ref.fileName)), ("size", .integer(ref.size)),
                    ("title", .string(ref.fileName)),
                ]))
        default: return nil
        }
    }

    /// The patient's data groups and sharing scope as `meta.tag`s; nil when there are none.
    private func tags(_ registry: RegistryFacts) -> OrderedJSON? {
        var tags = registry.dataGroups.map { group in
            OrderedJSON.object([("system", .string(names.dataGroupSystem)), ("code", .string(group))])
        }
        if let scope = registry.sharingScope {
            tags.append(.object([("system", .string(names.sharingScopeSystem)), ("code", .string(scope))]))
        }
        return tags.isEmpty ? nil : .object([("tag", .array(tags))])
    }

    /// A registry patient: keyed, with sex, and named only when the export includes identifiers.
    func patient(_ item: ExportRecord, key: String, _ registry: RegistryFacts) -> OrderedJSON {
        var members: [(String, OrderedJSON)] = [("resourceType", .string("Patient")), ("id", .string(key))]
        if let tags = tags(registry) { members.append(("meta", tags)) }
        let patient = item.record.patient
        var identifiers: [OrderedJSON] = [.object([("system", .string(names.patientKeySystem)), ("value", .string(key))])]
        if plan.options.includeIdentifiers {
            if let external = patient.externalId, !external.isEmpty {
                identifiers.append(.object([("system", .string(names.externalIdSystem)), ("value", .string(external))]))
            }
        }
        members.append(("identifier", .array(identifiers)))
        if plan.options.includeIdentifiers {
            var name: [(String, OrderedJSON)] = []
            if !patient.familyName.isEmpty { name.append(("family", .string(patient.familyName))) }
            if !patient.givenName.isEmpty { name.append(("given", .array([.string(patient.givenName)]))) }
            if !name.isEmpty { members.append(("name", .array([.object(name)]))) }
        }
        if let sex = patient.sex { members.append(("gender", .string(sex.rawValue))) }
        if plan.options.includeIdentifiers, let birth = patient.dateOfBirth { members.append(("birthDate", .string(birth.description))) }
        return .object(members)
    }

    /// The patient's current consent to research use: permitted for the sharing scopes that
    /// share, denied for `no_sharing`; nil while none is recorded.
    private func consent(key: String, _ registry: RegistryFacts) -> OrderedJSON? {
        guard let scope = registry.sharingScope else { return nil }
        let shares = scope != SharingScope.noSharing.rawValue
        func coding(_ system: String, _ code: String, _ display: String? = nil) -> OrderedJSON {
            var members: [(String, OrderedJSON)] = [("system", .string(system)), ("code", .string(code))]
            if let display { members.append(("display", .string(display))) }
            return .object([("coding", .array([.object(members)]))])
        }
        var category = [coding("http://loinc.org", "59284-0", "Patient Consent"), coding(names.sharingScopeSystem, scope)]
        if let method = registry.consentMethod { category.append(coding(names.consentMethodSystem, method)) }
        var members: [(String, OrderedJSON)] = [
            ("resourceType", .string("Consent")), ("id", .string(key + "-consent")), ("status", .string("active")),
            ("scope", coding("http://terminology.hl7.org/CodeSystem/consentscope", "research", "Research")),
            ("category", .array(category)),
            (
                "patient",
                .object([
                    ("reference", .string(names.patientReference(key: key))),
                    ("identifier", .object([("system", .string(names.patientKeySystem)), ("value", .string(key))])),
                ])
            ),
        ]
        if let at = registry.consentedAt { members.append(("dateTime", .string(Timestamp.string(from: at)))) }
        members.append(("policyRule", coding("http://terminology.hl7.org/CodeSystem/v3-ActCode", shares ? "OPTIN" : "OPTOUT")))
        members.append(("provision", .object([("type", .string(shares ? "permit" : "deny"))])))
        return .object(members)
    }

    private func containedPatient(_ item: ExportRecord) -> OrderedJSON? {
        let patient = item.record.patient
        var members: [(String, OrderedJSON)] = [("resourceType", .string("Patient")), ("id", .string("patient"))]
        var identifiers: [OrderedJSON] = []
        if let key = item.patientKey {
            identifiers.append(.object([("system", .string(names.patientKeySystem)), ("value", .string(key))]))
        }
        if let external = patient.externalId, !external.isEmpty {
            identifiers.append(.object([("system", .string(names.externalIdSystem)), ("value", .string(external))]))
        }
        if !identifiers.isEmpty { members.append(("identifier", .array(identifiers))) }
        var name: [(String, OrderedJSON)] = []
        if !patient.familyName.isEmpty { name.append(("family", .string(patient.familyName))) }
        if !patient.givenName.isEmpty { name.append(("given", .array([.string(patient.givenName)]))) }
        if !name.isEmpty { members.append(("name", .array([.object(name)]))) }
        if let sex = patient.sex { members.append(("gender", .string(sex.rawValue))) }
        if let birth = patient.dateOfBirth { members.append(("birthDate", .string(birth.description))) }
        return members.count > 2 ? .object(members) : nil
    }
}
