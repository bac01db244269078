import Foundation
import IntakeCore

/// One record per line in the documented record format (docs/record-format.md), plus
/// `patientKey`, `ageYears`, the server's `revision` and `reviewState` and, for a record of a registry patient,
/// `sharingScope`, `consentMethod`, `consentedAt` and `dataGroups`. De-identified records keep
/// only `sex` in `patient`, and no `patientId`.
public final class JSONLinesFormatter: ExportFormatter {
    let plan: ExportPlan?

    /// With a plan, records of versions the plan lacks are refused and free text is dropped as
    /// the plan says; without one every record is written as it is.
    public init(plan: ExportPlan?) {
        self.plan = plan
    }

    public func header() -> String { "" }
    public func footer() -> String { "" }

    public func row(_ item: ExportRecord) throws(ExportError) -> String {
        var record = item.record
        if let plan {
            let layout = try plan.layout(for: record.questionnaire)
            record = Self.leavingOut(record, layout.questionnaire, plan: plan)
        }
        var writer = JSONWriter(capacity: 1024)
        RecordCodec.write(record, into: &writer, extras: Self.extras(item))
        return String(decoding: writer.bytes, as: UTF8.self) + "\n"
    }

    /// The keys an export adds to a record: `ageYears`, `datesShifted`, `patientKey`, `revision`,
    /// and what the registry says of its patient.
    static func extras(_ item: ExportRecord) -> [(key: String, json: [UInt8])] {
        func json(_ write: (inout JSONWriter) -> Void) -> [UInt8] {
            var writer = JSONWriter(capacity: 80)
            write(&writer)
            return writer.bytes
        }
        var extras: [(key: String, json: [UInt8])] = []
        if let age = item.ageYears { extras.append(("ageYears", json { $0.integer(age) })) }
        if item.datesShifted { extras.append(("datesShifted", json { $0.bool(true) })) }
        if let key = item.patientKey { extras.append(("patientKey", json { $0.string(key) })) }
        if let revision = item.revision { extras.append(("revision", json { $0.integer(revision) })) }
        if let state = item.reviewState { extras.append(("reviewState", json { $0.string(state) })) }
        if let registry = item.registry {
            extras.append(
                (
                    "dataGroups",
                    json { writer in
                        writer.beginArray()
                        for group in registry.dataGroups { writer.string(group) }
                        writer.endArray()
                    }
                ))
            if let scope = registry.sharingScope { extras.append(("sharingScope", json { $0.string(scope) })) }
            if let method = registry.consentMethod { extras.append(("consentMethod", json { $0.string(method) })) }
            if let at = registry.consentedAt { extras.append(("consentedAt", json { $0.string(Timestamp.string(from: at)) })) }
        }
        return extras
    }

    /// The record without what the export leaves out: identifying questions' answers, and free
    /// text when it is dropped — inside repeats' instances as at the top.
    static func leavingOut(_ record: PatientResponse, _ questionnaire: Questionnaire, plan: ExportPlan) -> PatientResponse {
        var record = record
        for (position, answer) in record.allAnswers {
            guard let question = questionnaire.question(at: position) else { continue }
            let kept = Self.kept(answer, of: question, questionnaire, plan)
            if kept != answer { record[position] = kept }
        }
        return record
    }

    private static func kept(_ answer: Answer, of question: Question, _ questionnaire: Questionnaire, _ plan: ExportPlan) -> Answer? {
        if plan.leavesOut(question) { return nil }
        switch (question.type, answer) {
        case (.text, _) where plan.options.dropFreeText: return nil
        case (.compound(let defined), .dictionary(var fields)) where plan.options.dropFreeText:
            for field in defined where field.type == .text { fields[field.key] = nil }
            return fields.isEmpty ? nil : .dictionary(fields)
        case (.repeatGroup, .instances(let list)):
            return .instances(
                list.map { instance in
                    var kept: [Int: Answer] = [:]
                    for (index, inner) in instance {
                        guard let member = questionnaire.question(at: QuestionPosition(section: question.position.section, index: index)),
                            let answer = Self.kept(inner, of: member, questionnaire, plan)
                        else { continue }
                        kept[index] = answer
                    }
                    return kept
                })
        default: return answer
        }
    }
}

extension ExportRecord {
    /// Reads one line of a JSON Lines file: a record in the documented format, with the export's
    /// extra keys when present.
    public init(jsonLine: Data) throws(JSONReadError) {
        var patientKey: String?
        var ageYears: Int?
        var revision: Int?
        var datesShifted = false
        var reviewState: String?
        var registry: RegistryFacts?
        func facts() -> RegistryFacts { registry ?? RegistryFacts(sharingScope: nil) }
        let record = try JSONReader.document(jsonLine) { reader throws(JSONReadError) in
            try RecordCodec.read(&reader) { key, reader throws(JSONReadError) in
                switch key {
                case "patientKey": patientKey = reader.null() ? nil : try reader.string()
                case "ageYears": ageYears = reader.null() ? nil : try reader.integer()
                case "revision": revision = reader.null() ? nil : try reader.integer()
                case "datesShifted": datesShifted = reader.null() ? false : try reader.bool()
                case "reviewState": reviewState = reader.null() ? nil : try reader.string()
                case "sharingScope":
                    var next = facts()
                    next.sharingScope = reader.null() ? nil : try reader.string()
                    registry = next
                case "consentMethod":
                    var next = facts()
                    next.consentMethod = reader.null() ? nil : try reader.string()
                    registry = next
                case "consentedAt":
                    var next = facts()
                    if !reader.null() {
                        let text = try reader.string()
                        guard let at = Timestamp.date(from: text) else {
                            throw reader.error("consentedAt is not a time: give an RFC 3339 time")
                        }
                        next.consentedAt = at
                    }
                    registry = next
                case "dataGroups":
                    var groups: [String] = []
                    if !reader.null() {
                        try reader.array { _, element throws(JSONReadError) in groups.append(try element.string()) }
                    }
                    var next = facts()
                    next.dataGroups = groups.sorted()
                    registry = next
                default: return false
                }
                return true
            }
        }
        self.init(
            record: record, patientKey: patientKey, ageYears: ageYears, revision: revision, datesShifted: datesShifted, registry: registry,
            reviewState: reviewState)
    }
}
