import Foundation
import Hummingbird
import IntakeService

/// Enrolling machines: a team's codes and devices (`/v1/teams/{team}/enrolments`,
/// `/v1/teams/{team}/devices`), and `POST /v1/devices`, where a new machine uses a code.
struct DeviceController {
    let services: IntakeServices

    struct NewEnrolmentBody: RequestBody {
        var username: String
        var expiresInHours: Double?
        static let fields: Set<String> = ["username", "expiresInHours"]
    }

    struct IssuedEnrolmentJSON: Encodable {
        var enrolment: EnrolmentJSON
        /// Shown this once: pass it on to whoever sets up the machine.
        var code: String
        /// The server's public key pins when it serves https, for the machine to save.
        var pins: [String]
    }

    struct RedeemBody: RequestBody {
        var code: String
        var deviceId: String
        var name: String?
        var intakeVersion: String?
        static let fields: Set<String> = ["code", "deviceId", "name", "intakeVersion"]
    }

    struct EnrolledJSON: Encodable {
        /// The device token, shown this once; it works only with the `Intake-Device-Id` it was made for.
        var token: String
        var device: DeviceJSON
        var user: UserJSON
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.post, "/v1/teams/{team}/enrolments") { request, context in
            let (team, user) = try await managed(context)
            let body = try JSONCoding.decode(NewEnrolmentBody.self, from: try await small(request))
            let (code, enrolment) = try await services.devices.createEnrolment(
                teamId: team.id, username: body.username, lifetime: body.expiresInHours.map { $0 * 3600 }, by: user.username)
            return try JSONCoding.response(
                IssuedEnrolmentJSON(
                    enrolment: EnrolmentJSON(enrolment, team: team.name, now: Date()), code: code, pins: services.configuration.tlsPins),
                status: .created)
        }
        routes.on(.get, "/v1/teams/{team}/enrolments") { _, context in
            let (team, _) = try await managed(context)
            let now = Date()
            return try JSONCoding.response(
                ["enrolments": try await services.devices.enrolments(teamId: team.id).map { EnrolmentJSON($0, team: team.name, now: now) }])
        }
        routes.on(.get, "/v1/teams/{team}/devices") { _, context in
            let (team, _) = try await managed(context)
            return try JSONCoding.response([
                "devices": try await services.devices.devices(teamId: team.id).map { DeviceJSON($0, team: team.name) }
            ])
        }
        routes.on(.delete, "/v1/teams/{team}/devices/{device}") { _, context in
            let (team, user) = try await managed(context)
            guard let id = Int64(try context.parameters.require("device")) else {
                throw APIError.badRequest("a device id is a number (intake team devices)")
            }
            let device = try await services.devices.revoke(id: id, teamId: team.id, by: user.username)
            return try JSONCoding.response(DeviceJSON(device, team: team.name))
        }
        routes.on(.post, "/v1/devices") { request, _ in
            let body = try JSONCoding.decode(RedeemBody.self, from: try await small(request))
            let (token, device, user) = try await services.devices.redeem(
                code: body.code, deviceId: body.deviceId, name: body.name ?? "", intakeVersion: body.intakeVersion)
            return try JSONCoding.response(
                EnrolledJSON(token: token, device: DeviceJSON(device, team: user.teamName), user: UserJSON(user)), status: .created)
        }
    }

    private func managed(_ context: IntakeRequestContext) async throws -> (Team, User) {
        let user = try context.signedIn()
        return (try await services.teams.managedTeam(try context.parameters.require("team"), by: user), user)
    }

    private func small(_ request: Request) async throws -> Data {
        try await JSONCoding.body(of: request, limit: 16 * 1024, timeout: services.configuration.bodyTimeout)
    }
}

struct EnrolmentJSON: Encodable {
    var id: String
    var team: String?
    var username: String
    var state: String
    var createdBy: String
    var createdAt: Date
    var expiresAt: Date
    var failedAttempts: Int
    var usedAt: Date?
    var deviceId: String?

    init(_ enrolment: Enrolment, team: String?, now: Date) {
        id = enrolment.id
        self.team = team
        username = enrolment.username
        state = enrolment.state(at: now).rawValue
        createdBy = enrolment.createdBy
        createdAt = enrolment.createdAt
        expiresAt = enrolment.expiresAt
        failedAttempts = enrolment.failedAttempts
        usedAt = enrolment.usedAt
        deviceId = enrolment.deviceId
    }
}

struct DeviceJSON: Encodable {
    var id: Int64
    var deviceId: String
    var name: String
    var team: String?
    var username: String
    var enrolment: String
    var enrolledAt: Date
    var revokedAt: Date?
    var revokedBy: String?
    var lastSeenAt: Date?
    var lastUploadAt: Date?
    var queueSize: Int?
    var intakeVersion: String?

    init(_ device: Device, team: String?) {
        id = device.id
        deviceId = device.deviceId
        name = device.name
        self.team = team
        username = device.username
        enrolment = device.enrolment
        enrolledAt = device.enrolledAt
        revokedAt = device.revokedAt
        revokedBy = device.revokedBy
        lastSeenAt = device.lastSeenAt
        lastUploadAt = device.lastUploadAt
        queueSize = device.queueSize
        intakeVersion = device.intakeVersion
    }
}
