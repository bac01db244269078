import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// Cases: `GET /v1/cases` (a machine's pull: the open cases its account follows, changed after a
/// cursor, and the ids of all of them), `GET /v1/cases/{id}`, and a coordinator's
/// `PUT /v1/cases/{id}/assignee` and `PUT /v1/cases/{id}/status`.
struct CaseController {
    let services: IntakeServices
    static let maxPage = 1000

    struct AssigneeBody: RequestBody {
        var assignee: String?
        static let fields: Set<String> = ["assignee"]
        static let nullable: Set<String> = ["assignee"]
    }

    struct StatusBody: RequestBody {
        var status: String
        static let fields: Set<String> = ["status"]
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/cases", query: ["after", "limit", "all"]) { request, context in
            let user = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: ["after", "limit", "all"])
            let after = try parameters["after"].map { try ChangeController.cursor($0, "after") } ?? 0
            var limit = 200
            if let text = parameters["limit"] {
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), text.utf8.count <= 6, let value = Int(text),
                    (1...Self.maxPage).contains(value)
                else { throw APIError.badRequest("limit is a number of cases from 1 to \(Self.maxPage)") }
                limit = value
            }
            let all: Bool
            switch parameters["all"] {
            case nil, "false": all = false
            case "true": all = true
            default: throw APIError.badRequest("all is true (every case of the team, open or closed: coordinators) or false")
            }
            var writer = JSONWriter(capacity: 4096)
            writer.beginObject()
            let cases: [StoredCase]
            if all {
                cases = try await services.cases.teamCases(by: user, after: after, limit: limit)
            } else {
                let pull = try await services.cases.pull(by: user, after: after, limit: limit)
                cases = pull.cases
                // On the last page, every open case the account follows: a machine drops those it
                // holds that are not here.
                if let ids = pull.ids {
                    writer.key("caseIds")
                    writer.beginArray()
                    for id in ids { writer.string(id.uuidString.lowercased()) }
                    writer.endArray()
                }
            }
            writer.key("cases")
            writer.beginArray()
            for stored in cases { Self.write(stored, into: &writer) }
            writer.endArray()
            writer.key("cursor")
            writer.integer(Int(cases.last?.changeSeq ?? after))
            writer.key("more")
            writer.bool(cases.count == limit)
            writer.endObject()
            return JSONCoding.response(json: writer.bytes)
        }
        routes.on(.get, "/v1/cases/{id}") { _, context in
            let user = try context.signedIn()
            return Self.response(try await services.cases.show(try Self.id(context), by: user))
        }
        routes.on(.put, "/v1/cases/{id}/assignee") { request, context in
            let user = try context.signedIn()
            let id = try Self.id(context)
            let body = try JSONCoding.decode(
                AssigneeBody.self, from: try await JSONCoding.body(of: request, limit: 4096, timeout: services.configuration.bodyTimeout))
            return Self.response(try await services.cases.assign(id, to: body.assignee, by: user))
        }
        routes.on(.put, "/v1/cases/{id}/status") { request, context in
            let user = try context.signedIn()
            let id = try Self.id(context)
            let body = try JSONCoding.decode(
                StatusBody.self, from: try await JSONCoding.body(of: request, limit: 4096, timeout: services.configuration.bodyTimeout))
            guard let status = CaseStatus(rawValue: body.status) else {
                throw APIError(.unprocessableContent, code: "invalid_request", message: "status is 'open' or 'closed'")
            }
            return Self.response(try await services.cases.close(id, closed: status == .closed, by: user))
        }
    }

    static func id(_ context: IntakeRequestContext) throws -> UUID {
        let text = try context.parameters.require("id")
        guard let id = UUID(uuidString: text) else { throw APIError.badRequest("'\(text)' is not a case id (a UUID)") }
        return id
    }

    static func response(_ stored: StoredCase) -> Response {
        var writer = JSONWriter(capacity: 1024)
        write(stored, into: &writer)
        return JSONCoding.response(json: writer.bytes)
    }

    /// A case as the API gives it (docs/api.md#cases): its properties and the patient are the
    /// case's follower's to see, as the record that opened it is.
    static func write(_ stored: StoredCase, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("assignee")
        if let assignee = stored.assignee { writer.string(assignee) } else { writer.null() }
        writer.key("conflicts")
        CaseBody.write(stored.conflicts, into: &writer)
        writer.key("cursor")
        writer.integer(Int(stored.changeSeq))
        writer.key("due")
        if let due = stored.due { writer.date(due) } else { writer.null() }
        writer.key("erased")
        writer.bool(stored.erased)
        writer.key("id")
        writer.string(stored.id.uuidString.lowercased())
        writer.key("list")
        writer.string(stored.list)
        writer.key("openedAt")
        writer.string(Timestamp.string(from: stored.opening.at))
        writer.key("openedBy")
        writer.string(stored.opening.recordId.uuidString.lowercased())
        writer.key("patient")
        RecordCodec.write(stored.opening.patient, into: &writer)
        writer.key("patientId")
        if let patient = stored.patientId { writer.string(patient.uuidString.lowercased()) } else { writer.null() }
        writer.key("properties")
        CaseBody.write(stored.properties, into: &writer)
        writer.key("revision")
        writer.integer(stored.revision)
        writer.key("status")
        writer.string(stored.status.rawValue)
        writer.key("updatedAt")
        writer.string(Timestamp.string(from: stored.updatedAt))
        writer.key("visits")
        writer.beginArray()
        // A withdrawn visit (its record deleted or moved away) is no visit of the case any more;
        // a change by hand (an ODK entity's update) is none either: its properties show it.
        for visit in stored.recordVisits.sorted(by: {
            ($0.at, $0.recordId.uuidString) < ($1.at, $1.recordId.uuidString)
        }) {
            writer.beginObject()
            writer.key("at")
            writer.string(Timestamp.string(from: visit.at))
            writer.key("closes")
            writer.bool(visit.closes)
            writer.key("collector")
            writer.string(visit.collector)
            writer.key("record")
            writer.string(visit.recordId.uuidString.lowercased())
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
