import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// The patient registry: `POST /v1/patients` (and `/batch`), `GET /v1/patients?name=&dateOfBirth=&externalId=`,
/// `GET|PATCH /v1/patients/{id}`, `POST /v1/patients/{id}/archive|restore`, `GET|PUT /v1/patients/{id}/consent`.
struct PatientController {
    let services: IntakeServices

    struct PersonBody: RequestBody {
        var id: UUID?
        var givenName: String
        var familyName: String
        var dateOfBirth: String?
        var sex: PatientIdentification.Sex?
        var externalId: String?
        /// Data groups to join, defined ones only.
        var dataGroups: [String]?
        /// Consent given at registration.
        var consent: ConsentBody?
        static let fields: Set<String> = ["id", "givenName", "familyName", "dateOfBirth", "sex", "externalId", "dataGroups", "consent"]

        var person:
            (id: UUID?, identification: PatientIdentification, groups: [String], consent: (scope: SharingScope, method: ConsentMethod)?)
        {
            get throws { (id, try identification(), dataGroups ?? [], consent.map { ($0.scope, $0.method) }) }
        }

        func identification() throws -> PatientIdentification {
            var birth: LocalDate?
            if let text = dateOfBirth {
                guard let date = LocalDate(iso: text) else {
                    throw APIError(.unprocessableContent, code: "invalid_request", message: "dateOfBirth is a date such as 1990-04-12")
                }
                birth = date
            }
            return PatientIdentification(givenName: givenName, familyName: familyName, dateOfBirth: birth, sex: sex, externalId: externalId)
        }
    }

    struct BatchBody: RequestBody {
        var patients: [PersonBody]
        static let fields: Set<String> = ["patients"]
    }

    struct ChangeBody: RequestBody {
        var baseRevision: Int
        var givenName: String?
        var familyName: String?
        var dateOfBirth: String?
        var sex: PatientIdentification.Sex?
        var externalId: String?
        var addGroups: [String]?
        var removeGroups: [String]?
        /// The whole set of groups the patient is to be in (instead of adding and removing).
        var dataGroups: [String]?
        static let fields: Set<String> = [
            "baseRevision", "givenName", "familyName", "dateOfBirth", "sex", "externalId", "addGroups", "removeGroups", "dataGroups",
        ]
        /// null clears the field; leaving it out keeps it.
        static let nullable: Set<String> = ["dateOfBirth", "sex", "externalId"]
    }

    struct ConsentBody: RequestBody {
        var scope: SharingScope
        var method: ConsentMethod
        static let fields: Set<String> = ["scope", "method"]

        enum CodingKeys: String, CodingKey { case scope, method }

        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        /// Strict inside a registration too: a field that is not scope or method is refused.
        init(from decoder: any Decoder) throws {
            if let unknown = try decoder.container(keyedBy: AnyKey.self).allKeys.first(where: { !Self.fields.contains($0.stringValue) }) {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "consent has no field '\(unknown.stringValue.prefix(40))'; it takes scope and method"))
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            scope = try container.decode(SharingScope.self, forKey: .scope)
            method = try container.decode(ConsentMethod.self, forKey: .method)
        }
    }

    static let writers: Set<Role> = [.fieldworker, .coordinator]
    static let readers: Set<Role> = [.fieldworker, .coordinator, .admin]
    static let query = ["name", "dateOfBirth", "externalId", "includeArchived", "limit", "all", "after", "idPrefix"]

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/patients") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(PersonBody.self, from: try await self.body(request, limit: 64 * 1024))
            let outcome = try await services.patients.register([try body.person], by: user)[0]
            switch outcome {
            case .created(let patient): return try JSONCoding.response(PatientJSON(patient), status: .created)
            case .existing(let patient): return try JSONCoding.response(PatientJSON(patient))
            default: throw Self.refusal(outcome)
            }
        }
        routes.on(.post, "/v1/patients/batch") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(
                BatchBody.self, from: try await self.body(request, limit: services.configuration.maxBodyBytes), items: "patients",
                of: PersonBody.self)
            let outcomes = try await services.patients.register(try body.patients.map { try $0.person }, by: user)
            return try JSONCoding.response(["results": zip(body.patients, outcomes).map { BatchResultJSON(id: $0.id, outcome: $1) }])
        }
        routes.on(.get, "/v1/patients", query: Self.query) { request, context in
            let user = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: Self.query)
            var query = PatientQuery(name: parameters["name"], externalId: parameters["externalId"])
            if query.externalId?.isEmpty == true { throw APIError.badRequest("externalId is at least one character") }
            if let name = query.name, !name.hasVisibleCharacter || name.unicodeScalars.count > 200 {
                throw APIError.badRequest("name is 1 to 200 characters, not only spaces")
            }
            if let text = parameters["dateOfBirth"] {
                guard let date = LocalDate(iso: text) else { throw APIError.badRequest("dateOfBirth is a date such as 1990-04-12") }
                query.dateOfBirth = date
            }
            switch parameters["includeArchived"] {
            case nil, "false": break
            case "true": query.includeArchived = true
            default: throw APIError.badRequest("'includeArchived' is true or false")
            }
            // all=true: the whole registry a page at a time, in id order, for a machine's copy.
            switch parameters["all"] {
            case nil, "false": break
            case "true": query.byId = true
            default: throw APIError.badRequest("'all' is true or false")
            }
            // `after` pages through the whole registry, with or without all=true.
            if let after = parameters["after"] {
                guard let id = UUID(uuidString: after) else { throw APIError.badRequest("'after' is a patient id") }
                query.byId = true
                query.after = id
            }
            // idPrefix: the patients a short id from a listing may stand for (4 to 36 hex digits and dashes).
            if let prefix = parameters["idPrefix"] {
                guard ShortId.isPrefix(prefix) else {
                    throw APIError.badRequest("'idPrefix' is the start of a patient id: 4 to 36 hex digits and dashes, such as 6f9619ff")
                }
                query.idPrefix = prefix.lowercased()
            }
            let most = 500
            if let limit = parameters["limit"] {
                guard limit.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(limit), (1...most).contains(value) else {
                    throw APIError.badRequest("limit must be from 1 to \(most)")
                }
                query.limit = value
            }
            guard query.byId || query.name != nil || query.dateOfBirth != nil || query.externalId != nil || query.idPrefix != nil else {
                throw APIError(
                    .unprocessableContent, code: "no_criteria",
                    message: "give name, dateOfBirth, externalId or idPrefix to find patients (or all=true for the whole registry)")
            }
            // The fields searched by, never what was searched for.
            let fields = ["name", "dateOfBirth", "externalId", "all", "idPrefix"].filter { parameters[$0] != nil }
            try await services.audit.record(
                .lookup, by: user.username, details: ["fields": fields.joined(separator: ","), "registry": "patients"])
            return try JSONCoding.response(["patients": try await services.patients.find(query, for: user).map(PatientJSON.init)])
        }
        routes.on(.get, "/v1/patients/{id}") { _, context in
            let user = try context.signedIn()
            let patient = try await services.patients.patient(try context.pathID(of: "a patient"), for: user)
            try await services.audit.record(.patientRead, by: user.username, subject: patient.id.uuidString.lowercased())
            return try JSONCoding.response(PatientJSON(patient))
        }
        routes.on(.patch, "/v1/patients/{id}") { request, context in
            let user = try context.signedIn()
            let id = try context.pathID(of: "a patient")
            let data = try await self.body(request, limit: 64 * 1024)
            let body = try JSONCoding.decode(ChangeBody.self, from: data)
            var person = try await services.patients.patient(id, for: user).identification
            if let given = body.givenName { person.givenName = given }
            if let family = body.familyName { person.familyName = family }
            if JSONCoding.hasField("dateOfBirth", in: data) {
                person.dateOfBirth = nil
                if let text = body.dateOfBirth {
                    guard let date = LocalDate(iso: text) else {
                        throw APIError(
                            .unprocessableContent, code: "invalid_request", message: "dateOfBirth is a date such as 1990-04-12, or null")
                    }
                    person.dateOfBirth = date
                }
            }
            if JSONCoding.hasField("sex", in: data) { person.sex = body.sex }
            if JSONCoding.hasField("externalId", in: data) { person.externalId = body.externalId }
            let groups = DataGroupChange(add: body.addGroups ?? [], remove: body.removeGroups ?? [])
            return try await change(id, body.baseRevision, person, groups, body.dataGroups, user)
        }
        for (action, archived) in [("archive", true), ("restore", false)] {
            routes.on(.post, "/v1/patients/{id}/\(action)") { _, context in
                let user = try context.signedIn()
                return try JSONCoding.response(
                    PatientJSON(try await services.patients.setArchived(try context.pathID(of: "a patient"), archived, by: user)))
            }
        }
        routes.on(.put, "/v1/patients/{id}/consent") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(ConsentBody.self, from: try await self.body(request, limit: 16 * 1024))
            let patient = try await services.patients.recordConsent(
                try context.pathID(of: "a patient"), scope: body.scope, method: body.method, by: user)
            return try JSONCoding.response(PatientJSON(patient))
        }
        routes.on(.get, "/v1/patients/{id}/consent") { _, context in
            let user = try context.signedIn()
            let (patient, history) = try await services.patients.consent(try context.pathID(of: "a patient"), for: user)
            return try JSONCoding.response(
                ConsentHistoryJSON(scope: patient.effectiveScope.rawValue, history: history.map(ConsentJSON.init)))
        }
    }

    private func change(
        _ id: UUID, _ baseRevision: Int, _ person: PatientIdentification, _ groups: DataGroupChange, _ replacing: [String]?, _ user: User
    ) async throws -> Response {
        let outcome = try await services.patients.update(
            id, baseRevision: baseRevision, identification: person, groups: groups, replacingGroups: replacing, by: user)
        switch outcome {
        case .changed(let patient): return try JSONCoding.response(PatientJSON(patient))
        case .notFound: throw APIError.notFound("patient \(id.uuidString.lowercased())")
        case .stale(let current):
            throw APIError(
                .conflict, code: "stale_revision",
                message: "the patient changed since revision \(baseRevision); read it again and redo the change",
                details: .object(["currentRevision": .integer(current)]))
        case .externalIdTaken(let existing): throw Self.refusal(.externalIdTaken(existing: existing))
        case .unknownDataGroups(let unknown, let defined):
            throw APIError(
                .unprocessableContent, code: "unknown_data_group",
                message: PatientService.unknownGroups(unknown, defined: defined),
                details: .object(["unknown": .array(unknown.map { .string($0) }), "defined": .array(defined.map { .string($0) })]))
        }
    }

    static func refusal(_ outcome: PatientOutcome) -> APIError {
        switch outcome {
        case .externalIdTaken(let existing):
            APIError(
                .conflict, code: "external_id_taken", message: "another patient (\(existing.uuidString.lowercased())) has this external id",
                details: .object(["existingPatientId": .string(existing.uuidString.lowercased())]))
        default:
            APIError(.conflict, code: "id_taken", message: "this patient id is registered with other identification")
        }
    }

    private func body(_ request: Request, limit: Int) async throws -> Data {
        try await JSONCoding.body(of: request, limit: limit, timeout: services.configuration.bodyTimeout)
    }
}

struct PatientJSON: Encodable {
    var id: String
    var givenName: String
    var familyName: String
    var dateOfBirth: String?
    var sex: String?
    var externalId: String?
    var revision: Int
    var archived: Bool
    var archivedAt: Date?
    var sharingScope: String
    var dataGroups: [String]
    var createdBy: String
    var createdAt: Date
    var updatedAt: Date

    init(_ patient: Patient) {
        id = patient.id.uuidString.lowercased()
        givenName = patient.identification.givenName
        familyName = patient.identification.familyName
        dateOfBirth = patient.identification.dateOfBirth?.description
        sex = patient.identification.sex?.rawValue
        externalId = patient.identification.externalId
        revision = patient.revision
        archived = patient.archivedAt != nil
        archivedAt = patient.archivedAt
        sharingScope = patient.effectiveScope.rawValue
        dataGroups = patient.dataGroups
        createdBy = patient.createdBy
        createdAt = patient.createdAt
        updatedAt = patient.updatedAt
    }
}

struct BatchResultJSON: Encodable {
    var id: String?
    var outcome: String
    var existingPatientId: String?

    init(id: UUID?, outcome: PatientOutcome) {
        switch outcome {
        case .created(let patient): (self.id, self.outcome) = (patient.id.uuidString.lowercased(), "created")
        case .existing(let patient): (self.id, self.outcome) = (patient.id.uuidString.lowercased(), "existing")
        case .externalIdTaken(let existing):
            (self.id, self.outcome, existingPatientId) = (
                id?.uuidString.lowercased(), "external_id_taken", existing.uuidString.lowercased()
            )
        case .idTaken: (self.id, self.outcome) = (id?.uuidString.lowercased(), "id_taken")
        }
    }
}

struct ConsentJSON: Encodable {
    var scope: String
    var method: String
    var recordedBy: String
    var recordedAt: Date

    init(_ consent: Consent) {
        scope = consent.scope.rawValue
        method = consent.method.rawValue
        recordedBy = consent.recordedBy
        recordedAt = consent.recordedAt
    }
}

struct ConsentHistoryJSON: Encodable {
    var scope: String
    var history: [ConsentJSON]
}
