import Foundation
import Hummingbird
import IntakeService

/// Data groups: `POST /v1/data-groups` (admins), `GET /v1/data-groups`, `DELETE /v1/data-groups/{name}` (admins, when unused).
struct DataGroupController {
    let services: IntakeServices

    struct NewGroupBody: RequestBody {
        var name: String
        var description: String?
        static let fields: Set<String> = ["name", "description"]
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/data-groups") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(
                NewGroupBody.self,
                from: try await JSONCoding.body(of: request, limit: 16 * 1024, timeout: services.configuration.bodyTimeout))
            let group = try await services.patients.createGroup(name: body.name, description: body.description ?? "", by: user)
            return try JSONCoding.response(DataGroupJSON(group, counted: true), status: .created)
        }
        routes.on(.get, "/v1/data-groups") { _, context in
            let user = try context.signedIn()
            // How many patients each holds is not a researcher's to see (small counts can point to people).
            let counted = user.role != .researcher
            return try JSONCoding.response(["dataGroups": try await services.patients.groups().map { DataGroupJSON($0, counted: counted) }])
        }
        routes.on(.delete, "/v1/data-groups/{name}") { _, context in
            let user = try context.signedIn()
            try await services.patients.deleteGroup(try context.parameters.require("name"), by: user)
            return Response(status: .noContent)
        }
    }
}

struct DataGroupJSON: Encodable {
    var name: String
    var description: String
    var createdBy: String
    var createdAt: Date
    var patients: Int?

    init(_ group: DataGroup, counted: Bool) {
        name = group.name
        description = group.description
        createdBy = group.createdBy
        createdAt = group.createdAt
        patients = counted ? group.patients : nil
    }
}
