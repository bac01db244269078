import Foundation
import IntakeCore

/// An Intake questionnaire as an ODK XForm (the XML ODK Collect, Enketo and ODK Central's API
/// serve): the patient's identification and a group per section in the instance, binds with the
/// questionnaire's rules in XPath, itext for every language, choices as secondary instances.
///
/// The instance's shape is what submissions to the ODK API follow and what its OData rows hold:
/// `/data/patient/{given_name, family_name, date_of_birth, sex, external_id}`, then
/// `/data/<section>/<question id>`, a repeat's instances as repeated elements, a compound
/// question's fields as children, and `/data/meta/instanceID`.
public enum XFormWriter {
    /// The XML element a section's group or a question has in the instance.
    public static func elementName(_ question: Question) -> String { question.key }

    /// A section's element: its name, made an XML name where a file name is not one (a space,
    /// a leading digit).
    public static func elementName(_ section: Section) -> String {
        var name = String(section.name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        if let first = name.first, !(first.isLetter || first == "_") { name = "_" + name }
        return name.isEmpty ? "_" : name
    }

    /// The patient identification fields, as instance elements, in order.
    public static let patientFields: [(element: String, field: PatientIdentification.Field)] = [
        ("given_name", .givenName), ("family_name", .familyName), ("date_of_birth", .dateOfBirth), ("sex", .sex),
        ("external_id", .externalId),
    ]

    /// The question a follow-up's XForm picks its case with (an entity of the list's CSV, by its
    /// `name`, the case's id): `intake_case`, unless a question or section has that name.
    public static func casePicker(_ questionnaire: Questionnaire) -> String { XPath.Writing(odkForm: questionnaire).picker }

    /// The questionnaire's XForm; `formId` and `version` are those the ODK API lists.
    ///
    /// A follow-up (`follows: list`) is ODK's entity update: its first question picks the case
    /// from the list's entity CSV (`jr://file-csv/<list>.csv`, the form's attachment), `case.name`
    /// reads that entity's property, a question whose answer sets a property saves to it, and
    /// `meta/entity` names the entity and the version it was read at. The patient is the case's:
    /// the form does not ask it.
    public static func xform(_ questionnaire: Questionnaire, formId: String, version: String) -> String {
        var writer = Writer(questionnaire: questionnaire)
        return writer.document(formId: formId, version: version)
    }

    /// Each question's path in the instance, by position (patient fields under section 0).
    public static func paths(_ questionnaire: Questionnaire) -> [QuestionPosition: String] {
        var paths: [QuestionPosition: String] = [:]
        for (element, field) in patientFields {
            paths[QuestionPosition(section: 0, index: PatientIdentification.Field.allCases.firstIndex(of: field)! + 1)] =
                "/data/patient/\(element)"
        }
        for section in questionnaire.sections {
            var stack: [(position: QuestionPosition, path: String)] = []
            for question in section.questions {
                while let top = stack.last, question.group != top.position { stack.removeLast() }
                let parent = stack.last?.path ?? "/data/\(elementName(section))"
                let path = "\(parent)/\(XFormWriter.elementName(question))"
                paths[question.position] = path
                if question.isRepeat { stack.append((question.position, path)) }
            }
        }
        return paths
    }

    private struct Writer {
        let questionnaire: Questionnaire
        let languages: [String]
        let paths: [QuestionPosition: String]
        let context: XPath.Writing
        /// The entity a follow-up updates (nil for any other questionnaire).
        let entity: ODKEntity?
        var itext: [String: [(id: String, text: String)]] = [:]
        var binds: [String] = []
        var lists: [(name: String, choices: [Choice])] = []

        init(questionnaire: Questionnaire) {
            self.questionnaire = questionnaire
            languages = questionnaire.languages.isEmpty ? ["en"] : questionnaire.languages
            paths = XFormWriter.paths(questionnaire)
            context = XPath.Writing(odkForm: questionnaire)
            entity = ODKEntity(questionnaire).flatMap { $0.follows ? $0 : nil }
        }

        /// An expression with each `${id}` made the question's path in the instance.
        func xpath(_ expression: Expression) -> String {
            var text = XPath.write(expression, context)
            var byId: [String: String] = [:]
            for question in questionnaire.allQuestions { if let id = question.id { byId[id] = paths[question.position] } }
            if let entity {
                // A follow-up's patient is its case's: read from the picked entity (the form does not ask it).
                let item = "instance('\(entity.list)')/root/item[name= /data/\(context.picker) ]"
                byId["date_of_birth"] = byId["date_of_birth"] ?? "\(item)/__date_of_birth"
                byId["sex"] = byId["sex"] ?? "\(item)/__sex"
                byId[context.picker] = "/data/\(context.picker)"
            }
            byId["date_of_birth"] = byId["date_of_birth"] ?? "/data/patient/date_of_birth"
            byId["sex"] = byId["sex"] ?? "/data/patient/sex"
            var out = ""
            while let open = text.range(of: "${") {
                out += text[..<open.lowerBound]
                guard let close = text[open.upperBound...].firstIndex(of: "}") else { break }
                let id = String(text[open.upperBound..<close])
                out += " " + (byId[id] ?? "/data/\(id)") + " "
                text = String(text[text.index(after: close)...])
            }
            return out + text
        }

        mutating func label(_ id: String, _ text: LocalizedText) -> String {
            for (offset, language) in languages.enumerated() {
                let value = offset == 0 ? text.base : text.translations[language] ?? text.base
                itext[language, default: []].append((id, value))
            }
            return #"<label ref="jr:itext('\#(id)')"/>"#
        }

        mutating func document(formId: String, version: String) -> String {
            var instance = "<data id=\"\(escaped(formId))\" version=\"\(escaped(version))\">"
            var body = ""
            if let entity {
                // The case, picked from the list's entities by their label; its id is the entity's name.
                let path = "/data/\(context.picker)"
                instance += "<\(context.picker)/>"
                binds.append(#"<bind nodeset="\#(path)" type="string" required="true()"/>"#)
                body +=
                    #"<select1 ref="\#(path)">"# + label("\(path):label", LocalizedText("Case"))
                    + #"<itemset nodeset="instance('\#(escaped(entity.list))')/root/item"><value ref="name"/><label ref="label"/></itemset></select1>"#
            }
            // The patient's identification, which every Intake record holds (a follow-up's is its case's).
            instance += "<patient>"
            body += #"<group ref="/data/patient">"# + label("/data/patient:label", LocalizedText("Patient"))
            if entity != nil { binds.append(#"<bind nodeset="/data/patient" relevant="false()"/>"#) }
            for (element, field) in XFormWriter.patientFields {
                let path = "/data/patient/\(element)"
                instance += "<\(element)/>"
                let type = field == .dateOfBirth ? "date" : "string"
                let required = field.isRequired && entity == nil
                binds.append(#"<bind nodeset="\#(path)" type="\#(type)"\#(required ? #" required="true()""# : "")/>"#)
                if field == .sex {
                    lists.append(
                        (
                            "intake_sex",
                            PatientIdentification.Sex.allCases.map {
                                Choice(
                                    code: $0.rawValue, label: LocalizedText($0.rawValue.prefix(1).uppercased() + $0.rawValue.dropFirst()))
                            }
                        ))
                    body +=
                        #"<select1 ref="\#(path)">"# + label("\(path):label", LocalizedText(field.label))
                        + itemset("intake_sex", filter: nil) + "</select1>"
                } else {
                    body += #"<input ref="\#(path)">"# + label("\(path):label", LocalizedText(field.label)) + "</input>"
                }
            }
            instance += "</patient>"
            body += "</group>"
            for section in questionnaire.sections {
                let sectionElement = XFormWriter.elementName(section)
                instance += "<\(sectionElement)>"
                body += #"<group ref="/data/\#(sectionElement)">"# + label("/data/\(sectionElement):label", section.title)
                var open: [(position: QuestionPosition, name: String)] = []
                for question in section.questions {
                    while let top = open.last, question.group != top.position {
                        instance += "</\(top.name)>"
                        body += "</repeat></group>"
                        open.removeLast()
                    }
                    let (element, control) = self.question(question)
                    if question.isRepeat {
                        // jr:count reads a node, so a count that is an expression gets one beside the repeat.
                        if let count = question.repeatCount {
                            let countPath =
                                String(paths[question.position]!.dropLast(XFormWriter.elementName(question).count))
                                + XFormWriter.elementName(question) + "_count"
                            instance += "<\(XFormWriter.elementName(question))_count/>"
                            binds.append(
                                #"<bind nodeset="\#(countPath)" type="string" readonly="true()" calculate="\#(escaped(xpath(count.expression)))"/>"#
                            )
                        }
                        instance += "<\(XFormWriter.elementName(question)) jr:template=\"\">"
                        body += control
                        open.append((question.position, XFormWriter.elementName(question)))
                    } else {
                        instance += element
                        body += control
                    }
                }
                for top in open.reversed() {
                    instance += "</\(top.name)>"
                    body += "</repeat></group>"
                }
                instance += "</\(sectionElement)>"
                body += "</group>"
            }
            if let entity {
                // ODK's entity update: the entity picked, at the version the form read it.
                let item = "instance('\(entity.list)')/root/item[name= /data/\(context.picker) ]"
                instance +=
                    #"<meta><entity dataset="\#(escaped(entity.list))" id="" update="1" baseVersion=""/><instanceID/></meta></data>"#
                binds.append(
                    #"<bind nodeset="/data/meta/entity/@id" type="string" readonly="true()" calculate=" /data/\#(context.picker) "/>"#)
                binds.append(
                    #"<bind nodeset="/data/meta/entity/@baseVersion" type="string" readonly="true()" calculate="\#(escaped(item + "/__version"))"/>"#
                )
            } else {
                instance += "<meta><instanceID/></meta></data>"
            }
            binds.append(#"<bind nodeset="/data/meta/instanceID" type="string" readonly="true()" jr:preload="uid"/>"#)

            for list in lists {
                for (index, choice) in list.choices.enumerated() { _ = label("\(list.name)-\(index)", choice.label) }
            }
            var xml = #"<?xml version="1.0" encoding="UTF-8"?>"#
            xml +=
                #"<h:html xmlns="http://www.w3.org/2002/xforms" xmlns:h="http://www.w3.org/1999/xhtml" xmlns:jr="http://openrosa.org/javarosa" xmlns:odk="http://www.opendatakit.org/xforms" xmlns:orx="http://openrosa.org/xforms" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:entities="http://www.opendatakit.org/xforms/entities">"#
            let entities = entity == nil ? "" : #" entities:entities-version="2023.1.0""#
            xml += "<h:head><h:title>\(escaped(questionnaire.title.base))</h:title><model odk:xforms-version=\"1.0.0\"\(entities)><itext>"
            for (offset, language) in languages.enumerated() {
                xml +=
                    "<translation lang=\"\(escaped(Languages.header(for: language, in: questionnaire)))\"\(offset == 0 ? " default=\"true()\"" : "")>"
                for (id, text) in itext[language] ?? [] { xml += "<text id=\"\(escaped(id))\"><value>\(escaped(text))</value></text>" }
                xml += "</translation>"
            }
            xml += "</itext><instance>\(instance)</instance>"
            if let entity { xml += "<instance id=\"\(escaped(entity.list))\" src=\"jr://file-csv/\(escaped(entity.list)).csv\"/>" }
            for list in lists {
                xml += "<instance id=\"\(escaped(list.name))\"><root>"
                for (index, choice) in list.choices.enumerated() {
                    xml += "<item><itextId>\(escaped(list.name))-\(index)</itextId><name>\(escaped(choice.code))</name>"
                    if let tag = choice.filter { xml += "<filter>\(escaped(tag))</filter>" }
                    xml += "</item>"
                }
                xml += "</root></instance>"
            }
            return xml + binds.joined() + "</model></h:head><h:body>\(body)</h:body></h:html>"
        }

        func itemset(_ list: String, filter: String?) -> String {
            let predicate = filter.map { "[filter = \($0)]" } ?? ""
            return
                #"<itemset nodeset="instance('\#(list)')/root/item\#(escaped(predicate))"><value ref="name"/><label ref="jr:itext(itextId)"/></itemset>"#
        }

        /// The question's instance element and body control; binds and labels are collected.
        mutating func question(_ question: Question) -> (element: String, control: String) {
            let path = paths[question.position]!
            let element = "<\(XFormWriter.elementName(question))/>"
            var bind = #"<bind nodeset="\#(path)""#
            var control = ""
            let labelRef = label("\(path):label", question.text)
            let hint =
                question.help.map { help -> String in
                    _ = label("\(path):hint", help)
                    return #"<hint ref="jr:itext('\#(path):hint')"/>"#
                } ?? ""
            func choices(_ set: ChoiceSet) -> String {
                // One instance per list of choices: a name taken by other choices gets a suffix.
                var name = set.listName ?? question.key
                var suffix = 2
                while name == entity?.list || lists.contains(where: { $0.name == name && $0.choices != set.choices }) {
                    name = "\(set.listName ?? question.key)_\(suffix)"
                    suffix += 1
                }
                if !lists.contains(where: { $0.name == name }) { lists.append((name, set.choices)) }
                let filter = question.choiceFilter.flatMap { paths[$0] }
                return itemset(name, filter: filter.map { " \($0) " })
            }
            switch question.type {
            case .text:
                bind += #" type="string""#
                control = #"<input ref="\#(path)">"# + labelRef + hint + "</input>"
            case .integer, .decimal, .date:
                let type =
                    switch question.type {
                    case .integer: "int";
                    case .decimal: "decimal";
                    default: "date"
                    }
                bind += #" type="\#(type)""#
                control = #"<input ref="\#(path)">"# + labelRef + hint + "</input>"
            case .yesNo:
                bind += #" type="string""#
                let yes = LocalizedText(
                    "Yes",
                    translations: Dictionary(
                        uniqueKeysWithValues: languages.dropFirst().compactMap { code in Languages.yesNo(code).map { (code, $0.yes) } }))
                let no = LocalizedText(
                    "No",
                    translations: Dictionary(
                        uniqueKeysWithValues: languages.dropFirst().compactMap { code in Languages.yesNo(code).map { (code, $0.no) } }))
                control =
                    #"<select1 ref="\#(path)">"# + labelRef + hint
                    + choices(ChoiceSet(choices: [Choice(code: "yes", label: yes), Choice(code: "no", label: no)], listName: "yes_no"))
                    + "</select1>"
            case .singleChoice(let set):
                bind += #" type="string""#
                control = #"<select1 ref="\#(path)">"# + labelRef + hint + choices(set) + "</select1>"
            case .multipleChoice(let set):
                bind += #" type="string""#
                control = #"<select ref="\#(path)">"# + labelRef + hint + choices(set) + "</select>"
            case .compound(let fields):
                // A compound answer is a group of its fields.
                var children = ""
                var controls = ""
                for field in fields {
                    let fieldPath = "\(path)/\(field.key)"
                    children += "<\(field.key)/>"
                    let type =
                        switch field.type {
                        case .integer: "int";
                        case .decimal: "decimal";
                        case .date: "date";
                        default: "string"
                        }
                    binds.append(#"<bind nodeset="\#(fieldPath)" type="\#(type)"\#(field.isRequired ? #" required="true()""# : "")/>"#)
                    controls += #"<input ref="\#(fieldPath)">"# + label("\(fieldPath):label", field.label) + "</input>"
                }
                addRules(question, to: &bind)
                binds.append(bind + "/>")
                return (
                    "<\(XFormWriter.elementName(question))>\(children)</\(XFormWriter.elementName(question))>",
                    #"<group ref="\#(path)">"# + labelRef + controls + "</group>"
                )
            case .note:
                bind += #" type="string" readonly="true()""#
                control = #"<input ref="\#(path)">"# + labelRef + hint + "</input>"
            case .geopoint:
                bind += #" type="geopoint""#
                control = #"<input ref="\#(path)">"# + labelRef + hint + "</input>"
            case .attachment(let kind):
                bind += #" type="binary""#
                let media =
                    switch kind {
                    case .photo, .signature: "image/*";
                    case .audio: "audio/*";
                    case .document: "application/*"
                    }
                control =
                    #"<upload ref="\#(path)" mediatype="\#(media)"\#(kind == .signature ? #" appearance="signature""# : "")>"# + labelRef
                    + hint + "</upload>"
            case .repeatGroup:
                let count = question.repeatCount == nil ? "" : #" jr:count=" \#(path)_count ""#
                control = #"<group ref="\#(path)">"# + labelRef + #"<repeat nodeset="\#(path)"\#(count)>"#
                if let showIf = question.showIf {
                    binds.append(#"<bind nodeset="\#(path)" relevant="\#(escaped(xpath(condition(showIf))))"/>"#)
                }
                return (element, control)
            }
            addRules(question, to: &bind)
            binds.append(bind + "/>")
            return (element, control)
        }

        mutating func addRules(_ question: Question, to bind: inout String) {
            let path = paths[question.position]!
            if question.isRequired { bind += #" required="true()""# }
            if let property = entity?.saves[question.key], question.group == nil { bind += #" entities:saveto="\#(escaped(property))""# }
            if let requiredIf = question.requiredIf { bind += #" required="\#(escaped(xpath(requiredIf.expression)))""# }
            if let showIf = question.showIf { bind += #" relevant="\#(escaped(xpath(condition(showIf))))""# }
            if let calculation = question.calculation {
                bind += #" calculate="\#(escaped(xpath(calculation.expression))) " readonly="true()""#
            }
            if let constraint = question.constraint {
                var parts: [String] = []
                if let expression = constraint.expression { parts.append(xpath(expression.expression)) }
                if let pattern = constraint.pattern { parts.append("regex(., \(XPath.quoted("^(?:" + pattern + ")$")))") }
                if !parts.isEmpty { bind += #" constraint="\#(escaped(parts.joined(separator: " and ")))""# }
                if let message = constraint.message {
                    _ = label("\(path):jr:constraintMsg", message)
                    bind += #" jr:constraintMsg="jr:itext('\#(path):jr:constraintMsg')""#
                }
            }
            if case .integer(let bounds) = question.type {
                bind += rangeConstraint(bounds.lower.map(Double.init), bounds.upper.map(Double.init), bind)
            }
            if case .decimal(let bounds) = question.type { bind += rangeConstraint(bounds.lower, bounds.upper, bind) }
        }

        /// A number's bounds as a constraint, when the question has none of its own.
        func rangeConstraint(_ lower: Double?, _ upper: Double?, _ bind: String) -> String {
            guard !bind.contains(" constraint="), lower != nil || upper != nil else { return "" }
            var parts: [String] = []
            if let lower { parts.append(". >= \(ExpressionValue.number(lower).text)") }
            if let upper { parts.append(". <= \(ExpressionValue.number(upper).text)") }
            return #" constraint="\#(escaped(parts.joined(separator: " and ")))""#
        }

        func condition(_ condition: Condition) -> Expression {
            ConditionExpression(questionnaire: questionnaire).expression(condition)
        }
    }

}

private func escaped(_ text: String) -> String { XLSXWriter.escaped(text) }
