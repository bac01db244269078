import Foundation
import Hummingbird
import IntakeCore
import IntakeServer
import IntakeService

/// Cases as ODK Central's entities, the part pyodk uses (`entity_lists.list`, `entities.list`,
/// `entities.create`): a case list is an entity list (a dataset) of the team's project, a case an
/// entity, its properties the entity's data (as text, as Central keeps them), its patient's name the
/// entity's label. An entity created here is a case no record opened, left to the team: every field
/// worker's machine of the team pulls it (`intake cases pull`). What a field worker sees follows
/// the cases' own rule: the open cases assigned to them or to the team.
extension ODKRoutes {
    /// `GET projects/{project}/datasets`.
    func datasets(_ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        return Self.json(.array(try await services.cases.lists(for: user).map { Self.datasetJSON($0, project: team) }))
    }

    static func datasetJSON(_ list: CaseService.CaseList, project: Team) -> JSONValue {
        .object([
            "name": .string(list.name), "projectId": .integer(Int(project.id)), "createdAt": date(list.createdAt),
            "approvalRequired": .bool(false),
            "properties": .array(
                list.properties.map { property in
                    .object([
                        "name": .string(property), "odataName": .string(property), "publishedAt": date(list.createdAt),
                        "forms": .array(list.questionnaires.map(JSONValue.string)),
                    ])
                }),
        ])
    }

    /// `GET projects/{project}/datasets/{name}/entities`.
    func entities(_ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let name = Self.parameter(context, "name")
        guard try await services.cases.lists(for: user).contains(where: { $0.name == name }) else {
            throw ODKError.notFound("entity list \(name.prefix(64))")
        }
        return Self.json(.array(try await services.cases.cases(in: name, for: user).map { Self.entityJSON($0, creatorId: 0) }))
    }

    /// `POST projects/{project}/datasets/{name}/entities` with `{"uuid", "label", "data"}`.
    func createEntity(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        guard user.teamId == team.id else { throw ODKError.notFound("project \(team.id)") }
        let name = Self.parameter(context, "name")
        let body = try await body(request, limit: 256 * 1024)
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: body) else {
            throw ODKError.badRequest("Send {\"uuid\": …, \"label\": …, \"data\": {…}} as JSON.")
        }
        if object["entities"] != nil {
            throw ODKError.badRequest("Creating many entities at once is not supported here; create them one by one.")
        }
        guard case .string(let label)? = object["label"] else {
            throw ODKError.badRequest("An entity needs a 'label': its patient's name.")
        }
        var data: [String: String] = [:]
        switch object["data"] {
        case .object(let fields)?:
            for (key, value) in fields {
                guard case .string(let text) = value else {
                    throw ODKError.badRequest("The entity's data are text, as Central keeps them: '\(key.prefix(64))' is not.")
                }
                data[key] = text
            }
        case nil: break
        default: throw ODKError.badRequest("The entity's 'data' is an object of text values.")
        }
        let id: UUID
        switch object["uuid"] {
        case .string(let text)?:
            guard let parsed = UUID(uuidString: text.hasPrefix("uuid:") ? String(text.dropFirst(5)) : text) else {
                throw ODKError.badRequest("The entity's 'uuid' is not a UUID.")
            }
            id = parsed
        case nil: id = UUID()
        default: throw ODKError.badRequest("The entity's 'uuid' is not a UUID.")
        }
        let created = try await services.cases.create(list: name, id: id, label: label, data: data, by: user)
        // Who opened which case, by hand: ids and names of lists only, never the label or data.
        try await services.audit.record(
            .apiChange, by: user.username, subject: "/odk/v1/projects/\(team.id)/datasets/\(name)/entities/\(id.uuidString.lowercased())",
            details: ["method": "POST", "status": "200"])
        return Self.json(Self.entityJSON(created, creatorId: Int(user.id)))
    }

    /// An entity as pyodk's `Entity` reads it: its current version carries the label and data.
    static func entityJSON(_ stored: StoredCase, creatorId: Int) -> JSONValue {
        var data: [String: JSONValue] = [:]
        for (name, value) in stored.properties { data[name] = .string(ExpressionValue(value).text) }
        let label = stored.opening.patient.fullName
        return .object([
            "uuid": .string(stored.id.uuidString.lowercased()), "creatorId": .integer(creatorId), "createdAt": date(stored.opening.at),
            "updatedAt": date(stored.updatedAt), "deletedAt": stored.erased ? date(stored.updatedAt) : .null,
            "conflict": stored.conflicts.isEmpty ? .null : .string("soft"),
            "currentVersion": .object([
                "label": .string(label.isEmpty ? stored.id.uuidString.lowercased() : label), "current": .bool(true),
                "createdAt": date(stored.updatedAt), "creatorId": .integer(creatorId), "userAgent": .string("Intake"),
                "version": .integer(stored.revision), "data": .object(data), "baseVersion": .null,
                "conflictingProperties": stored.conflicts.isEmpty ? .null : .array(stored.conflicts.map { .string($0.property) }),
            ]),
        ])
    }
}
