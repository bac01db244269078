import Foundation
import Hummingbird
import IntakeCore
import IntakeExport
import IntakeServer
import IntakeService

/// Questionnaire versions as Questionnaires: every published version (not drafts), for any
/// signed-in user, written as an export's bundle writes them (leaving out the identifying
/// questions a de-identified export leaves out, as the responses served here do).
extension FHIRRoutes {
    /// Each version a user may read with its resource id, oldest first.
    func questionnaireVersions(for user: User) async throws -> [(id: String, version: PublishedQuestionnaire)] {
        try await services.questionnaires.visible(to: user).filter { $0.status.state != .draft }.sorted { $0.publishedAt < $1.publishedAt }
            .map { (FHIRResources.questionnaireResourceId(questionnaireId: $0.id, version: $0.version), $0) }
    }

    /// The versions as resources, each written with the plan of every version of its questionnaire.
    func questionnaireResources(
        _ chosen: [(id: String, version: PublishedQuestionnaire)], all: [(id: String, version: PublishedQuestionnaire)], request: Request
    )
        async throws -> [(id: String, resource: String)]
    {
        var mappings: [String: FHIRResources] = [:]
        var resources: [(id: String, resource: String)] = []
        for (id, entry) in chosen {
            guard
                let questionnaire = try await services.questionnaires.questionnaire(
                    QuestionnaireReference(id: entry.id, version: entry.version))
            else { continue }
            if mappings[entry.id] == nil {
                var versions: [Questionnaire] = []
                for other in all where other.version.id == entry.id {
                    if let parsed = try await services.questionnaires.questionnaire(
                        QuestionnaireReference(id: other.version.id, version: other.version.version))
                    {
                        versions.append(parsed)
                    }
                }
                mappings[entry.id] = FHIRResources(
                    plan: try ExportPlan(questionnaires: versions, options: ExportOptions()), rest: base(request))
            }
            guard let mapping = mappings[entry.id] else { continue }
            let status = entry.status.state == .retired ? "retired" : "active"
            resources.append((id, mapping.questionnaire(questionnaire, status: status, date: entry.publishedAt)))
        }
        return resources
    }

    func readQuestionnaire(_ id: String, _ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let user = try user(context)
        let all = try await questionnaireVersions(for: user)
        let chosen = all.filter { $0.id == id }
        guard let resource = try await questionnaireResources(chosen, all: all, request: request).first else {
            throw FHIRError.notFound("Questionnaire", id)
        }
        return Self.resource(resource.resource)
    }

    static let questionnaireSearch = FHIRSearchSpec(parameters: [
        "_id": [], "url": [], "version": [], "title": ["exact", "contains"], "status": [],
    ])

    func searchQuestionnaires(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let user = try user(context)
        let (used, count, cursor) = try Self.questionnaireSearch.read(FHIRQuery(request))
        let all = try await questionnaireVersions(for: user)
        var chosen = all
        for parameter in used {
            let values = parameter.alternatives
            switch parameter.name {
            case "_id":
                chosen = chosen.filter { values.contains($0.id) }
            case "url":
                let named = values.flatMap { value in
                    Self.questionnaires(value, in: all.map(\.version)).map { (id: $0.id, version: $0.version) }
                }
                chosen = chosen.filter { entry in
                    named.contains { $0.id == entry.version.id && ($0.version == nil || $0.version == entry.version.version) }
                }
            case "version":
                chosen = chosen.filter { values.contains($0.version.version) }
            case "title":
                chosen = chosen.filter { entry in
                    values.contains { FHIRText.matches(entry.version.title, $0, modifier: parameter.modifier) }
                }
            case "status":
                chosen = chosen.filter { values.contains($0.version.status.state == .retired ? "retired" : "active") }
            default: break
            }
        }
        var collector = FHIRPageCollector<(id: String, version: PublishedQuestionnaire)>(count: count, after: cursor)
        for entry in chosen { collector.add(entry.id, entry) }
        let (page, more) = collector.page()
        let entries = try await questionnaireResources(page.map(\.item), all: all, request: request)
        return bundle(
            request, type: "Questionnaire", used: used, count: count, cursor: cursor, total: collector.total, entries: entries, more: more)
    }
}

/// FHIR's string search: a value matches a text that starts with it, ignoring case and accents
/// (`:exact`: the same text exactly; `:contains`: anywhere in it).
enum FHIRText {
    static func matches(_ text: String, _ value: String, modifier: String?) -> Bool {
        if modifier == "exact" { return text == value }
        let options: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        let folded = text.folding(options: options, locale: nil)
        let wanted = value.folding(options: options, locale: nil)
        return modifier == "contains" ? folded.contains(wanted) : folded.hasPrefix(wanted)
    }
}
