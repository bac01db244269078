import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// `POST /v1/records/{id}/transfer` and `POST /v1/patients/{id}/transfer`: a coordinator moves a
/// record, or a patient with all their records, to another team.
extension RecordController {
    struct TransferBody: RequestBody {
        var toTeam: String
        static let fields: Set<String> = ["toTeam"]
    }

    struct TransferJSON: Encodable {
        var transferred: [String]
        var toTeam: String
    }

    func registerTransfers(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/records/{id}/transfer") { request, context in
            let (user, team) = try context.member()
            let id = try Self.id(context)
            _ = try await services.access.record(id, for: .transfer, by: user)
            return try await transfer(.records([id]), request, from: team, by: user)
        }
        routes.on(.post, "/v1/patients/{id}/transfer") { request, context in
            let (user, team) = try context.member()
            return try await transfer(.patient(try context.pathID(of: "a patient")), request, from: team, by: user)
        }
    }

    private func transfer(_ subject: TransferRequest.Subject, _ request: Request, from team: Int64, by user: User) async throws -> Response
    {
        let body = try JSONCoding.decode(
            TransferBody.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
        guard let target = try await services.accounts.team(named: body.toTeam) else {
            throw APIError(.unprocessableContent, code: "unknown_team", message: "no team is named '\(body.toTeam.prefix(100))'")
        }
        guard target.id != team else {
            throw APIError(.unprocessableContent, code: "same_team", message: "it is already your team's; give another team")
        }
        switch try await services.records.transfer(
            TransferRequest(subject: subject, fromTeamId: team, toTeamId: target.id, by: user.username, at: Date()))
        {
        case .transferred(let moved):
            services.teams.hub.notify()
            return try JSONCoding.response(TransferJSON(transferred: moved.map { $0.uuidString.lowercased() }, toTeam: target.name))
        case .notFound(let id):
            if case .records = subject { throw try await services.access.missing(id, for: .transfer, by: user) }
            throw APIError.notFound("\(subject == .patient(id) ? "patient" : "record") \(id.uuidString.lowercased())")
        case .hasPatient(_, let patient):
            throw APIError(
                .unprocessableContent, code: "record_has_patient",
                message:
                    "the record belongs to registry patient \(patient.uuidString.lowercased()); transfer the patient, with all their records (POST /v1/patients/\(patient.uuidString.lowercased())/transfer)",
                details: .object(["patientId": .string(patient.uuidString.lowercased())]))
        }
    }
}
