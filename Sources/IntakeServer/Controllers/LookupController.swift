import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// `GET /v1/records?familyName=&givenName=&dateOfBirth=&externalId=&limit=&offset=`: find a patient
/// in the caller's team. Names match without regard to case or accents; partial matches rank lower.
struct LookupController {
    let services: IntakeServices

    struct Match: Encodable {
        var id: String
        var revision: Int
        var status: String
        var questionnaire: QuestionnaireReference
        var patient: PatientIdentification
        var updatedAt: Date
        var score: Int
    }

    struct Page: Encodable {
        var results: [Match]
        var nextOffset: Int?
    }

    func register(_ routes: RouteRegistrar) {
        // The whole ids of the team's records whose id starts with `prefix` (4 to 36 hex digits
        // and dashes), as many as 10: what a short id from a listing stands for.
        routes.on(.get, "/v1/records/ids", query: ["prefix"]) { request, context in
            let (user, team) = try context.member()
            let parameters = try QueryParameters.read(request, accepted: ["prefix"])
            guard let prefix = parameters["prefix"], ShortId.isPrefix(prefix) else {
                throw APIError.badRequest("'prefix' is the start of a record id: 4 to 36 hex digits and dashes, such as d78265ce")
            }
            let ids = try await services.access.records(idPrefix: prefix, by: user, teamId: team, limit: 10)
            return try JSONCoding.response(["ids": ids.map { $0.uuidString.lowercased() }])
        }
        routes.on(.get, "/v1/records", query: Self.parameters) { request, context in
            let (user, team) = try context.member()
            let parameters = try QueryParameters.read(request, accepted: Self.parameters)
            let query = try Self.query(parameters, team: team)
            // Records of collector-only questionnaires another field worker collected are left
            // out (the page may then hold fewer; nextOffset still counts every match).
            let (matches, more) = try await services.lookup(query, by: user)
            let page = matches.map {
                Match(
                    id: $0.id.uuidString.lowercased(), revision: $0.revision, status: $0.status.rawValue, questionnaire: $0.questionnaire,
                    patient: $0.patient, updatedAt: $0.updatedAt, score: $0.score)
            }
            return try JSONCoding.response(Page(results: page, nextOffset: more ? query.offset + query.limit : nil))
        }
    }

    static let parameters = ["familyName", "givenName", "dateOfBirth", "externalId", "limit", "offset"]

    /// The longest name or external id a lookup takes: longer than any real one.
    static let maxFieldLength = 200

    /// The furthest a lookup pages: a search with more matches than this is too broad to read.
    static let maxOffset = 10_000

    static func query(_ parameters: [String: String], team: Int64) throws -> LookupQuery {
        for (name, value) in parameters where value.trimmingCharacters(in: .whitespaces).isEmpty {
            throw APIError.badRequest("\(name) is empty; give it a value or leave it out")
        }
        func text(_ name: String) -> String? { parameters[name].map { $0.trimmingCharacters(in: .whitespaces) } }
        for name in ["givenName", "familyName", "externalId"] {
            if let value = parameters[name], value.unicodeScalars.count > maxFieldLength {
                throw APIError.badRequest("\(name) is longer than \(maxFieldLength) characters; search with a shorter part of it")
            }
        }
        var query = LookupQuery(teamId: team, givenName: text("givenName"), familyName: text("familyName"), externalId: text("externalId"))
        if let birth = text("dateOfBirth") {
            guard let date = LocalDate(iso: birth) else { throw APIError.badRequest("dateOfBirth must be written YYYY-MM-DD") }
            query.dateOfBirth = date
        }
        guard query.givenName != nil || query.familyName != nil || query.dateOfBirth != nil || query.externalId != nil else {
            throw APIError(
                .unprocessableContent, code: "no_criteria", message: "give at least one of familyName, givenName, dateOfBirth or externalId"
            )
        }
        if let limit = text("limit") {
            guard let value = Int(limit), (1...100).contains(value) else { throw APIError.badRequest("limit must be from 1 to 100") }
            query.limit = value
        }
        if let offset = text("offset") {
            guard let value = Int(offset), (0...maxOffset).contains(value) else {
                throw APIError.badRequest("offset must be from 0 to \(maxOffset); to see matches past that, narrow the search")
            }
            query.offset = value
        }
        return query
    }
}
