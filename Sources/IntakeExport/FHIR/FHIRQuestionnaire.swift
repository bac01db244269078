import Foundation
import IntakeCore

/// One questionnaire version as an HL7 FHIR R4 `Questionnaire`: a group per section, an item per
/// question (linkId = the question's key, stable across versions), typed, with answer options,
/// ranges, translations and enableWhen for show-if.
struct FHIRQuestionnaire {
    let questionnaire: Questionnaire
    let names: FHIRNames
    let options: ExportOptions
    /// Questions the export leaves out (identifying ones, when identifiers are not included).
    var leavesOut: (Question) -> Bool = { _ in false }
    /// The publication status (`active`, or `retired` for a version retired on a server).
    var status = "active"
    /// When the version was published, when known.
    var date: Date? = nil

    static let translationURL = "http://hl7.org/fhir/StructureDefinition/translation"
    static let expressionURL = "http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-enableWhenExpression"
    static let calculatedURL = "http://hl7.org/fhir/uv/sdc/StructureDefinition/sdc-questionnaire-calculatedExpression"

    var resource: OrderedJSON {
        var members: [(String, OrderedJSON)] = [
            ("resourceType", .string("Questionnaire")),
            ("id", .string(names.resourceId(version: questionnaire.version))),
            ("language", .string(questionnaire.baseLanguage)),
            ("url", .string(names.canonical(version: questionnaire.version))),
            ("version", .string(questionnaire.version)),
            ("name", .string(Self.computableName(questionnaire.id))),
            ("title", .string(questionnaire.title.base)),
        ]
        if let translations = Self.translations(questionnaire.title) { members.append(("_title", translations)) }
        members.append(("status", .string(status)))
        if let date { members.append(("date", .string(Timestamp.string(from: date)))) }
        let sections = questionnaire.sections.compactMap { section -> OrderedJSON? in
            let items = section.questions.filter { $0.group == nil }.compactMap(item)
            guard !items.isEmpty else { return nil }
            var group: [(String, OrderedJSON)] = [("linkId", .string("section-\(section.number)")), ("text", .string(section.title.base))]
            if let translations = Self.translations(section.title) { group.append(("_text", translations)) }
            group.append(("type", .string("group")))
            group.append(("item", .array(items)))
            return .object(group)
        }
        members.append(("item", .array(sections)))
        return .object(members)
    }

    private func item(_ question: Question) -> OrderedJSON? {
        if options.dropFreeText, question.type == .text { return nil }
        if leavesOut(question) { return nil }
        var members: [(String, OrderedJSON)] = []
        // One "extension" member holds the range, the calculation and the condition alike.
        var extensions: [OrderedJSON] = []
        if case ("extension", .array(let bounds))? = range(question.type).first { extensions += bounds }
        members.append(("linkId", .string(question.key)))
        members.append(("prefix", .string(question.position.description)))
        members.append(("text", .string(question.text.base)))
        if let translations = Self.translations(question.text) { members.append(("_text", translations)) }
        members.append(("type", .string(question.type.fhirType)))
        if let condition = question.showIf {
            for (key, value) in enableWhen(condition) {
                if key == "extension", case .array(let more) = value { extensions += more } else { members.append((key, value)) }
            }
        }
        if let calculation = question.calculation {
            // SDC: the value is computed, never typed (FHIRPath when it translates, else Intake's own text).
            let path = FHIRPathText(questionnaire: questionnaire).text(calculation.expression)
            extensions.append(
                .object([
                    ("url", .string(Self.calculatedURL)),
                    (
                        "valueExpression",
                        .object([
                            ("language", .string(path == nil ? "text/x-intake" : "text/fhirpath")),
                            ("expression", .string(path ?? calculation.description)),
                        ])
                    ),
                ]))
            members.append(("readOnly", .bool(true)))
        }
        if !extensions.isEmpty { members.insert(("extension", .array(extensions)), at: 0) }
        if question.isRequired { members.append(("required", .bool(true))) }
        if case .multipleChoice = question.type { members.append(("repeats", .bool(true))) }
        if case .repeatGroup(let bounds) = question.type {
            // A repeating group: its items are answered once per instance.
            members.append(("repeats", .bool(true)))
            var occurs: [OrderedJSON] = []
            if let lower = bounds.lower {
                occurs.append(
                    .object([
                        ("url", .string("http://hl7.org/fhir/StructureDefinition/questionnaire-minOccurs")),
                        ("valueInteger", .integer(lower)),
                    ]))
            }
            if let upper = bounds.upper {
                occurs.append(
                    .object([
                        ("url", .string("http://hl7.org/fhir/StructureDefinition/questionnaire-maxOccurs")),
                        ("valueInteger", .integer(upper)),
                    ]))
            }
            if !occurs.isEmpty {
                if let at = members.firstIndex(where: { $0.0 == "extension" }), case .array(let existing) = members[at].1 {
                    members[at].1 = .array(existing + occurs)
                } else {
                    members.insert(("extension", .array(occurs)), at: 0)
                }
            }
            let items = questionnaire.members(of: question.position).compactMap(item)
            guard !items.isEmpty else { return nil }
            members.append(("item", .array(items)))
        }
        if let set = question.type.choices { members.append(("answerOption", answerOptions(set, question: question))) }
        if let fields = question.type.parts {
            let items = fields.compactMap { field -> OrderedJSON? in
                if options.dropFreeText, field.type == .text { return nil }
                var item: [(String, OrderedJSON)] = range(field.type)
                item.append(("linkId", .string(question.key + "." + field.key)))
                item.append(("text", .string(field.label.base)))
                if let translations = Self.translations(field.label) { item.append(("_text", translations)) }
                item.append(("type", .string(field.type.fhirType)))
                if field.isRequired { item.append(("required", .bool(true))) }
                if case .multipleChoice = field.type { item.append(("repeats", .bool(true))) }
                if let set = field.type.choices { item.append(("answerOption", answerOptions(set, question: question))) }
                return .object(item)
            }
            guard !items.isEmpty else { return nil }
            members.append(("item", .array(items)))
        }
        return .object(members)
    }

    private func answerOptions(_ set: ChoiceSet, question: Question) -> OrderedJSON {
        let system = names.choiceSystem(question: question, set: set)
        return .array(
            set.choices.map { choice in
                .object([
                    (
                        "valueCoding",
                        .object([("system", .string(system)), ("code", .string(choice.code)), ("display", .string(choice.label.base))])
                    )
                ])
            })
    }

    /// minValue / maxValue extensions for bounded numbers and dates.
    private func range(_ type: QuestionType) -> [(String, OrderedJSON)] {
        var extensions: [OrderedJSON] = []
        func add(_ name: String, _ key: String, _ value: OrderedJSON) {
            extensions.append(.object([("url", .string("http://hl7.org/fhir/StructureDefinition/\(name)")), (key, value)]))
        }
        switch type {
        case .integer(let bounds):
            if let lower = bounds.lower { add("minValue", "valueInteger", .integer(lower)) }
            if let upper = bounds.upper { add("maxValue", "valueInteger", .integer(upper)) }
        case .decimal(let bounds):
            if let lower = bounds.lower { add("minValue", "valueDecimal", .number(lower)) }
            if let upper = bounds.upper { add("maxValue", "valueDecimal", .number(upper)) }
        case .date(let bounds):
            if case .date(let lower)? = bounds.lower { add("minValue", "valueDate", .string(lower.description)) }
            if case .date(let upper)? = bounds.upper { add("maxValue", "valueDate", .string(upper.description)) }
        default: break
        }
        return extensions.isEmpty ? [] : [("extension", .array(extensions))]
    }

    static func translations(_ text: LocalizedText) -> OrderedJSON? {
        let entries = text.translations.sorted { $0.key < $1.key }.filter { !$0.value.isEmpty }
        guard !entries.isEmpty else { return nil }
        return .object([
            (
                "extension",
                .array(
                    entries.map { language, content in
                        .object([
                            ("url", .string(translationURL)),
                            (
                                "extension",
                                .array([
                                    .object([("url", .string("lang")), ("valueCode", .string(language))]),
                                    .object([("url", .string("content")), ("valueString", .string(content))]),
                                ])
                            ),
                        ])
                    })
            )
        ])
    }

    static func computableName(_ id: String) -> String {
        let words = id.split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        let name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return name.first?.isLetter == true ? name : "Q" + name
    }
}
