import Foundation
import Hummingbird
import IntakeService

/// Referrals: `POST /v1/referrals`, `GET /v1/referrals?direction=received|sent&state=`,
/// `GET /v1/referrals/{id}`, `POST /v1/referrals/{id}/accept|decline|complete|withdraw|reassign|messages`.
struct ReferralController {
    let services: IntakeServices

    struct NewReferralBody: RequestBody {
        var recordId: UUID
        var toUser: String?
        var toTeam: String?
        var reason: String
        var priority: ReferralPriority?
        var allowEdit: Bool?
        static let fields: Set<String> = ["recordId", "toUser", "toTeam", "reason", "priority", "allowEdit"]
    }

    struct ReassignBody: RequestBody {
        var toUser: String
        static let fields: Set<String> = ["toUser"]
    }

    struct RetargetBody: RequestBody {
        var toUser: String?
        var toTeam: String?
        static let fields: Set<String> = ["toUser", "toTeam"]
    }

    struct MessageBody: RequestBody {
        var text: String
        static let fields: Set<String> = ["text"]
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/referrals") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(NewReferralBody.self, from: try await small(request))
            let referral = try await services.referrals.refer(
                body.recordId, toUser: body.toUser, toTeam: body.toTeam, reason: body.reason, priority: body.priority ?? .routine,
                allowEdit: body.allowEdit ?? false, by: user)
            return try JSONCoding.response(ReferralJSON(referral), status: .created)
        }
        routes.on(.get, "/v1/referrals", query: ["direction", "state", "record", "patient"]) { request, context in
            let user = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: ["direction", "state", "record", "patient"])
            let received: Bool
            switch parameters["direction"] {
            case nil, "received": received = true
            case "sent": received = false
            default: throw APIError.badRequest("direction is received or sent")
            }
            var state: ReferralState?
            if let text = parameters["state"] {
                guard let parsed = ReferralState(rawValue: text) else {
                    throw APIError.badRequest("state is one of \(ReferralState.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                state = parsed
            }
            // One record's or one patient's referrals: both directions, those the user takes part in.
            if parameters["record"] != nil || parameters["patient"] != nil {
                // Each parameter is valid on its own; together they ask two things: 422, as the contract says.
                guard parameters["direction"] == nil else {
                    throw APIError(
                        .unprocessableContent, code: "conflicting_parameters",
                        message: "record and patient list both directions; give direction, or record or patient, not both")
                }
                func id(_ name: String) throws -> UUID? {
                    guard let text = parameters[name] else { return nil }
                    guard let id = UUID(uuidString: text) else { throw APIError.badRequest("\(name) is an id (a UUID)") }
                    return id
                }
                let referrals = try await services.referrals.referrals(
                    for: user, record: try id("record"), patient: try id("patient"), state: state)
                return try JSONCoding.response(["referrals": referrals.map(ReferralJSON.init)])
            }
            let referrals = try await services.referrals.referrals(for: user, received: received, state: state)
            return try JSONCoding.response(["referrals": referrals.map(ReferralJSON.init)])
        }
        routes.on(.get, "/v1/referrals/{id}") { _, context in
            let user = try context.signedIn()
            let (referral, messages) = try await services.referrals.referral(try context.pathID(of: "a referral"), for: user)
            var json = ReferralJSON(referral)
            json.messages = messages.map(MessageJSON.init)
            return try JSONCoding.response(json)
        }
        for action in ReferralAction.allCases {
            routes.on(.post, "/v1/referrals/{id}/\(action.rawValue)") { _, context in
                let user = try context.signedIn()
                return try JSONCoding.response(
                    ReferralJSON(try await services.referrals.act(try context.pathID(of: "a referral"), action, by: user)))
            }
        }
        routes.on(.post, "/v1/referrals/{id}/reassign") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(ReassignBody.self, from: try await small(request))
            return try JSONCoding.response(
                ReferralJSON(try await services.referrals.reassign(try context.pathID(of: "a referral"), to: body.toUser, by: user)))
        }
        routes.on(.post, "/v1/referrals/{id}/retarget") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(RetargetBody.self, from: try await small(request))
            let referral = try await services.referrals.retarget(
                try context.pathID(of: "a referral"), toUser: body.toUser, toTeam: body.toTeam, by: user)
            return try JSONCoding.response(ReferralJSON(referral))
        }
        routes.on(.post, "/v1/referrals/{id}/messages") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(MessageBody.self, from: try await small(request))
            return try JSONCoding.response(
                MessageJSON(try await services.referrals.message(try context.pathID(of: "a referral"), text: body.text, by: user)),
                status: .created)
        }
    }

    private func small(_ request: Request) async throws -> Data {
        try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout)
    }
}

struct ReferralJSON: Encodable {
    var id: String
    var recordId: String
    var fromTeam: String
    var referrer: String
    var toTeam: String
    var assignee: String?
    var reason: String
    var priority: String
    var allowEdit: Bool
    var state: String
    var createdAt: Date
    var updatedAt: Date
    var acceptedAt: Date?
    var acceptedBy: String?
    var messages: [MessageJSON]?

    init(_ referral: Referral) {
        id = referral.id.uuidString.lowercased()
        recordId = referral.recordId.uuidString.lowercased()
        fromTeam = referral.fromTeam
        referrer = referral.referrer
        toTeam = referral.toTeam
        assignee = referral.assignee
        reason = referral.reason
        priority = referral.priority.rawValue
        allowEdit = referral.allowEdit
        state = referral.state.rawValue
        createdAt = referral.createdAt
        updatedAt = referral.updatedAt
        acceptedAt = referral.acceptedAt
        acceptedBy = referral.acceptedBy
    }
}

struct MessageJSON: Encodable {
    var id: Int64
    var author: String
    var text: String
    var at: Date

    init(_ message: ReferralMessage) {
        id = message.id
        author = message.author
        text = message.text
        at = message.at
    }
}
