import Foundation
import Hummingbird
import IntakeCore
import IntakeServer
import IntakeService

/// Cases as ODK Central's entities, the part pyodk uses (`entity_lists.list`, `entities.list`,
/// `create`, `create_many`, `update`, `delete`, `get_table`, `merge`): a case list is an entity
/// list (a dataset) of the team's project, a case an entity, its properties the entity's data (as
/// text, as Central keeps them), its patient's name the entity's label, its revision the entity's
/// version. An entity created here is a case no record opened, left to the team: every field
/// worker's machine of the team pulls it (`intake cases pull`). An update is a coordinator's
/// change by hand, folded among the visits by its time; only a case opened by hand can be
/// deleted (one a record opened goes with that record). What a field worker sees follows the
/// cases' own rule: the open cases assigned to them or to the team.
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

    /// `POST projects/{project}/datasets/{name}/entities` with `{"uuid", "label", "data"}`, or
    /// several at once (`create_many`): `{"entities": [{"uuid"?, "label", "data"}, …], "source": {…}}`,
    /// every one checked before any is opened.
    func createEntity(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        guard user.teamId == team.id else { throw ODKError.notFound("project \(team.id)") }
        let name = Self.parameter(context, "name")
        let body = try await body(request, limit: 16 * 1024 * 1024)
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: body) else {
            throw ODKError.badRequest("Send {\"uuid\": …, \"label\": …, \"data\": {…}} as JSON.")
        }
        if let many = object["entities"] {
            guard case .array(let items) = many else { throw ODKError.badRequest("'entities' is an array of entities.") }
            var cases: [CaseService.NewCase] = []
            for (offset, item) in items.enumerated() {
                guard case .object(let fields) = item else { throw ODKError.badRequest("Entity \(offset + 1) is not an object.") }
                cases.append(try Self.newCase(fields, where: "Entity \(offset + 1): "))
            }
            let made = try await services.cases.create(list: name, cases, by: user)
            // Who opened which cases, by hand: ids and names of lists only, never labels or data.
            try await services.audit.record(
                .apiChange, by: user.username, subject: "/odk/v1/projects/\(team.id)/datasets/\(name)/entities",
                details: ["method": "POST", "status": "200", "entities": String(made.count)])
            return Self.json(.object(["success": .bool(true)]))
        }
        let new = try Self.newCase(object, where: "")
        let created = try await services.cases.create(list: name, id: new.id, label: new.label, data: new.data, by: user)
        // Who opened which case, by hand: ids and names of lists only, never the label or data.
        try await services.audit.record(
            .apiChange, by: user.username, subject: Self.entityPath(team: team, list: name, id: new.id),
            details: ["method": "POST", "status": "200"])
        return Self.json(Self.entityJSON(created, creatorId: Int(user.id)))
    }

    /// An entity to create, read from its JSON: its `uuid` (made when missing), `label` and `data`.
    static func newCase(_ object: [String: JSONValue], where prefix: String) throws -> CaseService.NewCase {
        guard case .string(let label)? = object["label"] else {
            throw ODKError.badRequest("\(prefix)An entity needs a 'label': its patient's name.")
        }
        let id: UUID
        switch object["uuid"] {
        case .string(let text)?:
            guard let parsed = UUID(uuidString: text.hasPrefix("uuid:") ? String(text.dropFirst(5)) : text) else {
                throw ODKError.badRequest("\(prefix)The entity's 'uuid' is not a UUID.")
            }
            id = parsed
        case nil, .null?: id = UUID()
        default: throw ODKError.badRequest("\(prefix)The entity's 'uuid' is not a UUID.")
        }
        return CaseService.NewCase(id: id, label: label, data: try entityData(object["data"], where: prefix))
    }

    /// An entity's `data`: text values, as Central keeps them (null: no value).
    static func entityData(_ value: JSONValue?, where prefix: String = "") throws -> [String: String] {
        var data: [String: String] = [:]
        switch value {
        case .object(let fields)?:
            for (key, value) in fields {
                switch value {
                case .string(let text): data[key] = text
                case .null: data[key] = ""
                default:
                    throw ODKError.badRequest("\(prefix)The entity's data are text, as Central keeps them: '\(key.prefix(64))' is not.")
                }
            }
        case nil, .null?: break
        default: throw ODKError.badRequest("\(prefix)The entity's 'data' is an object of text values.")
        }
        return data
    }

    static func entityPath(team: Team, list: String, id: UUID) -> String {
        "/odk/v1/projects/\(team.id)/datasets/\(list)/entities/\(id.uuidString.lowercased())"
    }

    /// The case an entity's path names, read as `user` may (404 otherwise, in ODK's shape).
    private func entityId(_ context: IntakeRequestContext) throws -> UUID {
        let text = Self.parameter(context, "uuid")
        guard let id = UUID(uuidString: text.hasPrefix("uuid:") ? String(text.dropFirst(5)) : text) else {
            throw ODKError.notFound("entity \(text.prefix(64))")
        }
        return id
    }

    /// `GET projects/{project}/datasets/{name}/entities/{uuid}`.
    func entity(_ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        guard user.teamId == team.id else { throw ODKError.notFound("project \(team.id)") }
        let id = try entityId(context)
        let stored = try await services.cases.show(id, by: user)
        guard stored.list == Self.parameter(context, "name"), !stored.erased else { throw ODKError.notFound("entity \(id)") }
        return Self.json(Self.entityJSON(stored, creatorId: 0))
    }

    /// `PATCH projects/{project}/datasets/{name}/entities/{uuid}?baseVersion=N` (or `?force=true`)
    /// with `{"label"?, "data"?}`: a coordinator's change of the case's properties by hand,
    /// folded as a visit made now (``CaseService/update(_:list:label:data:baseRevision:by:at:)``).
    func updateEntity(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        guard user.teamId == team.id else { throw ODKError.notFound("project \(team.id)") }
        let id = try entityId(context)
        let name = Self.parameter(context, "name")
        let query = try ODKOData.query(request)
        var baseVersion: Int?
        if let value = query["baseVersion"] {
            guard let number = Int(value), number >= 1 else { throw ODKError.badRequest("baseVersion is the entity's version, 1 or more.") }
            baseVersion = number
        }
        let force = query["force"]?.lowercased() == "true"
        guard baseVersion != nil || force else {
            throw ODKError.badRequest("Give baseVersion (the version you changed) or force=true (change whatever version it is).")
        }
        let body = try await body(request, limit: 256 * 1024)
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: body) else {
            throw ODKError.badRequest("Send {\"label\": …, \"data\": {…}} as JSON.")
        }
        var label: String?
        switch object["label"] {
        case .string(let text)?: label = text
        case nil, .null?: break
        default: throw ODKError.badRequest("The entity's 'label' is text: its patient's name.")
        }
        let data = try Self.entityData(object["data"])
        let changed = try await services.cases.update(
            id, list: name, label: label, data: data, baseRevision: force ? nil : baseVersion, by: user)
        try await services.audit.record(
            .apiChange, by: user.username, subject: Self.entityPath(team: team, list: name, id: id),
            details: ["method": "PATCH", "status": "200"])
        return Self.json(Self.entityJSON(changed, creatorId: Int(user.id)))
    }

    /// `DELETE projects/{project}/datasets/{name}/entities/{uuid}`: a case opened by hand is
    /// deleted (closed, keeping nothing of the patient); one a record opened is refused (409).
    func deleteEntity(_ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        guard user.teamId == team.id else { throw ODKError.notFound("project \(team.id)") }
        let id = try entityId(context)
        let name = Self.parameter(context, "name")
        _ = try await services.cases.delete(id, list: name, by: user)
        try await services.audit.record(
            .apiChange, by: user.username, subject: Self.entityPath(team: team, list: name, id: id),
            details: ["method": "DELETE", "status": "200"])
        return Self.json(.object(["success": .bool(true)]))
    }

    /// `POST projects/{project}/datasets/{name}/properties` with `{"name"}` (pyodk's merge adds
    /// the properties its data has): any property name may be set on a case (one no
    /// questionnaire declares is kept as text), so a valid name is accepted as it is.
    func createProperty(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, team) = try await team(context)
        guard user.teamId == team.id, user.role == .coordinator else {
            throw ODKError.forbidden("Only the team's coordinators change its entity lists.")
        }
        let list = Self.parameter(context, "name")
        guard try await services.cases.declares(list: list, for: user) else { throw ODKError.notFound("entity list \(list.prefix(64))") }
        let body = try await body(request, limit: 16 * 1024)
        guard let object = try? JSONDecoder().decode([String: JSONValue].self, from: body), case .string(let name)? = object["name"],
            CaseListName.isPropertyName(name)
        else {
            throw ODKError.badRequest("Send {\"name\": …}: letters, digits and '_', starting with a letter.")
        }
        return Self.json(.object(["success": .bool(true)]))
    }

    /// `GET projects/{project}/datasets/{name}.svc/Entities`: the list's cases as OData rows, as
    /// pyodk's `get_table` and `merge` read them (`$top`, `$skip`, `$count`; `$filter` is not served).
    func entityTable(_ request: Request, _ context: IntakeRequestContext) async throws -> Response {
        let (user, _) = try await team(context)
        let segment = Self.parameter(context, "name")
        guard segment.hasSuffix(".svc") else { throw ODKError.notFound() }
        let name = String(segment.dropLast(4))
        guard let list = try await services.cases.lists(for: user).first(where: { $0.name == name }) else {
            throw ODKError.notFound("entity list \(name.prefix(64))")
        }
        let query = try ODKOData.query(request, supported: ["$top", "$skip", "$count", "$format"])
        func number(_ key: String) throws -> Int? { try ODKOData.number(query, key) }
        // In the order they were opened, which a change does not move: pages by $skip stay put.
        let rows = try await services.cases.cases(in: name, for: user).filter { !$0.erased }.sorted {
            ($0.opening.at, $0.id.uuidString) < ($1.opening.at, $1.id.uuidString)
        }
        let start = min(try number("$skip") ?? 0, rows.count)
        let end = try number("$top").map { start + min($0, rows.count - start) } ?? rows.count
        var document: [String: JSONValue] = [
            "@odata.context": .string(
                "\(ODKOData.origin(request, tls: services.configuration.tls != nil))\(ODKModule.base)/projects/\(user.teamId ?? 0)/datasets/\(ODKOData.encoded(name)).svc/$metadata#Entities"
            ),
            "value": .array(rows[start..<end].map { Self.entityRow($0, properties: list.properties) }),
        ]
        if query["$count"]?.lowercased() == "true" { document["@odata.count"] = .integer(rows.count) }
        return Self.json(.object(document))
    }

    /// An entity as an OData row: `__id`, `label`, `__system` and each property of the list as text ("" when unset).
    static func entityRow(_ stored: StoredCase, properties: [String]) -> JSONValue {
        var row: [String: JSONValue] = [:]
        for name in properties { row[name] = .string("") }
        for (name, value) in stored.properties { row[name] = .string(ExpressionValue(value).text) }
        row["__id"] = .string(stored.id.uuidString.lowercased())
        row["label"] = .string(stored.label)
        row["__system"] = .object([
            "createdAt": date(stored.opening.at), "creatorId": .string("0"), "creatorName": .string(stored.opening.collector),
            "updates": .integer(stored.revision - 1), "updatedAt": stored.revision > 1 ? date(stored.updatedAt) : .null,
            "deletedAt": .null, "version": .integer(stored.revision),
            "conflict": stored.conflicts.isEmpty ? .null : .string("soft"),
        ])
        return .object(row)
    }

    /// An entity as pyodk's `Entity` reads it: its current version carries the label and data.
    static func entityJSON(_ stored: StoredCase, creatorId: Int) -> JSONValue {
        var data: [String: JSONValue] = [:]
        for (name, value) in stored.properties { data[name] = .string(ExpressionValue(value).text) }
        return .object([
            "uuid": .string(stored.id.uuidString.lowercased()), "creatorId": .integer(creatorId), "createdAt": date(stored.opening.at),
            "updatedAt": date(stored.updatedAt), "deletedAt": stored.erased ? date(stored.updatedAt) : .null,
            "conflict": stored.conflicts.isEmpty ? .null : .string("soft"),
            "currentVersion": .object([
                "label": .string(stored.label), "current": .bool(true),
                "createdAt": date(stored.updatedAt), "creatorId": .integer(creatorId), "userAgent": .string("Intake"),
                "version": .integer(stored.revision), "data": .object(data), "baseVersion": .null,
                "conflictingProperties": stored.conflicts.isEmpty ? .null : .array(stored.conflicts.map { .string($0.property) }),
            ]),
        ])
    }
}
