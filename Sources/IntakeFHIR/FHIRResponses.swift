import Foundation
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService

/// Records as QuestionnaireResponses: read from the export a JSON Lines download is, line by
/// line, so access, consent, de-identification and every value are the export's.
extension FHIRRoutes {
    /// Who may read records: as for an export, without identifiers (coordinators their team's,
    /// researchers what consent shares with them); with `identifiers`, as for an export that
    /// includes them (coordinators only).
    func reach(_ user: User, identifiers: Bool) throws -> ExportReach {
        switch RecordAccessPolicy.export(
            by: user, includeIdentifiers: identifiers,
            unlinkedRecordsReachResearchers: services.configuration.unlinkedRecordsReachResearchers)
        {
        case .success(let reach): return reach
        case .failure(.noTeam): throw FHIRError.forbidden("Your account belongs to no team; ask an admin to add it to one.")
        case .failure(.identifiers):
            throw FHIRError.forbidden(
                "Patients are identities: only coordinators, who may export identifiers, read them; researchers never do.")
        case .failure(.role):
            throw FHIRError.forbidden("Only coordinators and researchers read records and patients here, as they export them.")
        }
    }

    /// The versions records may be on: every one but drafts.
    func versions() async throws -> [PublishedQuestionnaire] {
        try await services.questionnaires.published().filter { $0.status.state != .draft }
    }

    /// Every record of questionnaire `id` that `reach` may export, as a JSON Lines export holds
    /// it (the line written, then read back), handed to `visit`; returns the export's plan.
    /// With `recordIds`, only those records are read (the store finds them by id).
    func exported(
        _ id: String, reach: ExportReach, identifiers: Bool, recordIds: [UUID] = [], _ visit: (ExportRecord) throws -> Void
    ) async throws -> ExportPlan {
        var request = ExportService.Request(
            questionnaireId: id, teamId: reach.teamId, options: ExportOptions(includeIdentifiers: identifiers), consent: reach.consent)
        request.recordIds = recordIds
        let prepared = try await services.exports.prepare(request)
        let formatter = JSONLinesFormatter(plan: prepared.plan)
        let pager = services.exports.pager(prepared, formats: [.jsonLines])
        while let page = try await pager.next() {
            for input in page {
                guard let record = input.record else { continue }
                let line = try formatter.row(record).trimmingCharacters(in: .whitespacesAndNewlines)
                try visit(try ExportRecord(jsonLine: Data(line.utf8)))
            }
        }
        return prepared.plan
    }

    func audit(_ user: User, resource: String, questionnaires: [String], records: Int, subject: String = "", identifiers: Bool = false)
        async throws
    {
        var details = ["format": "fhir", "via": "fhir", "resource": resource, "records": String(records)]
        if !questionnaires.isEmpty { details["questionnaire"] = questionnaires.joined(separator: ",") }
        if identifiers { details["includeIdentifiers"] = "true" }
        try await services.audit.record(.export, by: user.username, subject: subject, details: details)
    }

    // MARK: Read

    func readResponse(_ id: String, _ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let user = try user(context)
        let reach = try reach(user, identifiers: false)
        // Unknown, deleted, another team's or kept from this reader by consent: all the same 404.
        // The export reads that one record by id, questionnaire by questionnaire, as it reads any.
        guard let uuid = UUID(uuidString: id) else { throw FHIRError.notFound("QuestionnaireResponse", id) }
        let wanted = uuid.uuidString.lowercased()
        var found: ExportRecord?
        var plan: ExportPlan?
        for questionnaire in Set(try await versions().map(\.id)).sorted() where found == nil {
            let read = try await exported(questionnaire, reach: reach, identifiers: false, recordIds: [uuid]) { item in
                if found == nil, item.record.id.uuidString.lowercased() == wanted { found = item }
            }
            if found != nil { plan = read }
        }
        guard let found, let plan else { throw FHIRError.notFound("QuestionnaireResponse", id) }
        let resource = try FHIRResources(plan: plan, rest: base(request)).questionnaireResponse(found)
        try await audit(user, resource: "QuestionnaireResponse", questionnaires: [plan.questionnaireId], records: 1, subject: wanted)
        return Self.resource(resource)
    }

    // MARK: Search

    static let responseSearch = FHIRSearchSpec(parameters: [
        "_id": [], "questionnaire": ["Questionnaire"], "authored": [], "subject": ["Patient"], "patient": [], "status": [],
    ])

    func searchResponses(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let user = try user(context)
        let reach = try reach(user, identifiers: false)
        let (used, count, cursor) = try Self.responseSearch.read(FHIRQuery(request))
        let published = try await versions()
        var scope = Set(published.map(\.id))
        // Each parameter is a test (its comma values OR); the tests AND.
        var tests: [(ExportRecord) -> Bool] = []
        for parameter in used {
            let values = parameter.alternatives
            switch parameter.name {
            case "_id":
                let ids = Set(values.map { $0.lowercased() })
                tests.append { ids.contains($0.record.id.uuidString.lowercased()) }
            case "questionnaire":
                let matches = values.flatMap { Self.questionnaires($0, in: published) }
                scope.formIntersection(matches.map(\.id))
                tests.append { item in
                    matches.contains {
                        $0.id == item.record.questionnaire.id && ($0.version == nil || $0.version == item.record.questionnaire.version)
                    }
                }
            case "authored":
                let searches = try values.map { try FHIRDateSearch.parse($0, parameter: "authored") }
                tests.append { item in searches.contains { $0.matches(item.record.updatedAt) } }
            case "subject", "patient":
                let keys = Set(values.compactMap { FHIRReference.id($0, type: "Patient").id })
                tests.append { item in item.patientKey.map(keys.contains) ?? false }
            case "status":
                let statuses = Set(values)
                tests.append { statuses.contains($0.record.status == .complete ? "completed" : "in-progress") }
            default: break
            }
        }
        // `_id` (every value of every `_id`, the test above keeping their AND) lets the store read those records alone.
        var byId: [UUID] = []
        for parameter in used where parameter.name == "_id" { byId += parameter.alternatives.compactMap(UUID.init(uuidString:)) }
        let onlyIds = used.contains { $0.name == "_id" } && byId.count <= ExportQuery.maxRecordIds
        if onlyIds && byId.isEmpty { scope = [] }  // no value is a record id: nothing matches
        var collector = FHIRPageCollector<(String, ExportRecord)>(count: count, after: cursor?.lowercased())
        var plans: [String: ExportPlan] = [:]
        for id in scope.sorted() {
            plans[id] = try await exported(id, reach: reach, identifiers: false, recordIds: onlyIds ? byId : []) { item in
                guard tests.allSatisfy({ $0(item) }) else { return }
                collector.add(item.record.id.uuidString.lowercased(), (id, item))
            }
        }
        let (page, more) = collector.page()
        let root = base(request)
        var resources: [String: FHIRResources] = [:]
        var entries: [(id: String, resource: String)] = []
        for (key, (id, item)) in page {
            guard let plan = plans[id] else { continue }
            let mapping = resources[id] ?? FHIRResources(plan: plan, rest: root)
            resources[id] = mapping
            entries.append((key, try mapping.questionnaireResponse(item)))
        }
        try await audit(user, resource: "QuestionnaireResponse", questionnaires: scope.sorted(), records: entries.count)
        return bundle(
            request, type: "QuestionnaireResponse", used: used, count: count, cursor: cursor, total: collector.total, entries: entries,
            more: more)
    }

    /// The questionnaire versions a `questionnaire` value names: `Questionnaire/{id}`, a bare id
    /// or a canonical URL (`…/Questionnaire/{id}`, with `|version` or not) where the id is a
    /// version's resource id, or a questionnaire's own id (all its versions); the export's
    /// `urn:intake:questionnaire:{id}` too. A version nil: every version.
    static func questionnaires(_ value: String, in published: [PublishedQuestionnaire]) -> [(id: String, version: String?)] {
        var (name, version) = FHIRReference.id(value, type: "Questionnaire")
        if let range = value.range(of: ":questionnaire:"), !value.contains("/") {
            name = String(value[range.upperBound...].prefix { $0 != "|" })
        }
        guard let name else { return [] }
        var found: [(id: String, version: String?)] = []
        for entry in published where version == nil || version == entry.version {
            if FHIRResources.questionnaireResourceId(questionnaireId: entry.id, version: entry.version) == name {
                found.append((entry.id, entry.version))
            } else if entry.id == name {
                found.append((entry.id, version))
            }
        }
        return found
    }
}
