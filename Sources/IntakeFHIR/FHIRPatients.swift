import Foundation
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService

/// Patients: those of the records a caller may export with identifiers (a coordinator, their
/// team's), each keyed as the responses' subjects are (`Patient/{patient key}`) and written as an
/// export's bundle writes a Patient: a registry patient as the registry identifies them now, a
/// patient of records without one as the newest of those records does. A researcher never gets
/// one (403): identities are never theirs. Registry patients without a record are not served.
extension FHIRRoutes {
    /// Each patient key with the newest record of that patient (and its questionnaire's plan).
    func patients(_ user: User, _ reach: ExportReach, keep: (ExportRecord) -> Bool = { _ in true }) async throws
        -> (patients: [String: ExportRecord], plans: [String: ExportPlan], questionnaires: [String])
    {
        var newest: [String: ExportRecord] = [:]
        var plans: [String: ExportPlan] = [:]
        let ids = Set(try await versions().map(\.id)).sorted()
        for id in ids {
            plans[id] = try await exported(id, reach: reach, identifiers: true) { item in
                guard let key = item.patientKey, keep(item) else { return }
                if let kept = newest[key],
                    (kept.record.updatedAt, kept.record.id.uuidString) >= (item.record.updatedAt, item.record.id.uuidString)
                {
                    return
                }
                newest[key] = item
            }
        }
        // A registry patient is who the registry says (a spelling corrected there keeps the key).
        for (key, item) in newest {
            guard let id = item.record.patientId else { continue }
            do {
                newest[key]?.record.patient = try await services.patients.patient(id, for: user).identification
            } catch let error as ServiceError where error.kind == .notFound {
                // Moved to another team since: the record's own identification stays.
            }
        }
        return (newest, plans, ids)
    }

    func patientResource(_ item: ExportRecord, plans: [String: ExportPlan], request: Request) -> String? {
        guard let plan = plans[item.record.questionnaire.id] else { return nil }
        return FHIRResources(plan: plan, rest: base(request)).patient(item)
    }

    func readPatient(_ key: String, _ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let user = try user(context)
        let reach = try reach(user, identifiers: true)
        let (found, plans, ids) = try await patients(user, reach) { $0.patientKey == key }
        guard let item = found[key], let resource = patientResource(item, plans: plans, request: request) else {
            throw FHIRError.notFound("Patient", key)
        }
        try await audit(user, resource: "Patient", questionnaires: ids, records: 1, subject: key, identifiers: true)
        return Self.resource(resource)
    }

    static let patientSearch = FHIRSearchSpec(parameters: [
        "_id": [], "identifier": [], "name": ["exact", "contains"], "family": ["exact", "contains"], "given": ["exact", "contains"],
        "gender": [], "birthdate": [],
    ])

    func searchPatients(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let user = try user(context)
        let reach = try reach(user, identifiers: true)
        let (used, count, cursor) = try Self.patientSearch.read(FHIRQuery(request))
        let (found, plans, ids) = try await patients(user, reach)
        let systems = plans.values.first.map { FHIRResources(plan: $0, rest: base(request)) }
        var tests: [(String, ExportRecord) -> Bool] = []
        for parameter in used {
            let values = parameter.alternatives
            let modifier = parameter.modifier
            switch parameter.name {
            case "_id":
                tests.append { key, _ in values.contains(key) }
            case "identifier":
                let tokens = values.map { value -> (system: String?, value: String) in
                    guard let bar = value.firstIndex(of: "|") else { return (nil, value) }
                    return (String(value[..<bar]), String(value[value.index(after: bar)...]))
                }
                tests.append { key, item in
                    tokens.contains { token in
                        let byKey = (token.system == nil || token.system == systems?.patientKeySystem) && token.value == key
                        let external = item.record.patient.externalId
                        let byExternal =
                            (token.system == nil || token.system == systems?.externalIdSystem) && external != nil && token.value == external
                        return byKey || byExternal
                    }
                }
            case "name", "family", "given":
                let name = parameter.name
                tests.append { _, item in
                    let patient = item.record.patient
                    let texts: [String] =
                        switch name {
                        case "family": [patient.familyName]
                        case "given": [patient.givenName]
                        default:
                            [
                                patient.givenName, patient.familyName, "\(patient.givenName) \(patient.familyName)",
                                "\(patient.familyName) \(patient.givenName)",
                            ]
                        }
                    return values.contains { value in texts.contains { !$0.isEmpty && FHIRText.matches($0, value, modifier: modifier) } }
                }
            case "gender":
                tests.append { _, item in item.record.patient.sex.map { values.contains($0.rawValue) } ?? false }
            case "birthdate":
                let searches = try values.map { try FHIRDateSearch.parse($0, parameter: "birthdate") }
                tests.append { _, item in
                    guard let born = item.record.patient.dateOfBirth,
                        let (from, to) = FHIRDateSearch.range(born.description)
                    else { return false }
                    return searches.contains { $0.matches(from: from, to: to) }
                }
            default: break
            }
        }
        var collector = FHIRPageCollector<ExportRecord>(count: count, after: cursor)
        for (key, item) in found where tests.allSatisfy({ $0(key, item) }) { collector.add(key, item) }
        let (page, more) = collector.page()
        let entries = page.compactMap { key, item in patientResource(item, plans: plans, request: request).map { (id: key, resource: $0) } }
        try await audit(user, resource: "Patient", questionnaires: ids, records: entries.count, identifiers: true)
        return bundle(
            request, type: "Patient", used: used, count: count, cursor: cursor, total: collector.total, entries: entries, more: more)
    }
}
