import Foundation

/// An enrolment code as the server lists it (the code itself is shown only when made).
public struct RemoteEnrolment: Sendable, Decodable, Equatable {
    public var id: String
    public var team: String?
    public var username: String
    public var state: String
    public var createdBy: String
    public var createdAt: String
    public var expiresAt: String
    public var failedAttempts: Int
    public var usedAt: String?
    public var deviceId: String?
}

/// A new enrolment code: shown once.
public struct IssuedEnrolment: Sendable, Decodable, Equatable {
    public var enrolment: RemoteEnrolment
    public var code: String
    /// The server's public key pins when it serves https.
    public var pins: [String]
}

/// An enrolled machine, with what it last reported.
public struct RemoteDevice: Sendable, Decodable, Equatable {
    public var id: Int64
    public var deviceId: String
    public var name: String
    public var team: String?
    public var username: String
    public var enrolment: String
    public var enrolledAt: String
    public var revokedAt: String?
    public var revokedBy: String?
    public var lastSeenAt: String?
    public var lastUploadAt: String?
    public var queueSize: Int?
    public var intakeVersion: String?
}

/// What a machine gets when it uses an enrolment code.
public struct Enrolled: Sendable, Decodable, Equatable {
    public var token: String
    public var device: RemoteDevice
    public var user: User

    public struct User: Sendable, Decodable, Equatable {
        public var username: String
        public var role: String
        public var team: String?
    }
}

/// Enrolling machines: codes, devices, revoking.
extension IntakeClient {
    /// A one-time code to enrol a machine for `username`, a member of `team`.
    public func createEnrolment(team: String, username: String, expiresInHours: Double?) async throws(ClientError) -> IssuedEnrolment {
        struct Body: Encodable {
            var username: String
            var expiresInHours: Double?
        }
        return try await call(
            "POST", "/v1/teams/\(Self.segment(team))/enrolments", body: Body(username: username, expiresInHours: expiresInHours),
            expecting: 201,
            as: IssuedEnrolment.self)
    }

    public func enrolments(of team: String) async throws(ClientError) -> [RemoteEnrolment] {
        struct Answer: Decodable { var enrolments: [RemoteEnrolment] }
        return try await call("GET", "/v1/teams/\(Self.segment(team))/enrolments", expecting: 200, as: Answer.self).enrolments
    }

    public func devices(of team: String) async throws(ClientError) -> [RemoteDevice] {
        struct Answer: Decodable { var devices: [RemoteDevice] }
        return try await call("GET", "/v1/teams/\(Self.segment(team))/devices", expecting: 200, as: Answer.self).devices
    }

    public func revokeDevice(_ id: Int64, of team: String) async throws(ClientError) -> RemoteDevice {
        try await call("DELETE", "/v1/teams/\(Self.segment(team))/devices/\(id)", expecting: 200, as: RemoteDevice.self)
    }

    /// Uses an enrolment code for this machine (its device id must be set): no token needed.
    public func enrol(code: String, name: String, intakeVersion: String?) async throws(ClientError) -> Enrolled {
        struct Body: Encodable {
            var code: String
            var deviceId: String
            var name: String
            var intakeVersion: String?
        }
        guard let deviceId else { throw ClientError.unexpected("this machine has no device id; check that its data directory is writable") }
        let body = try encode(Body(code: code, deviceId: deviceId, name: name, intakeVersion: intakeVersion))
        let (status, data) = try await send("POST", "/v1/devices", body: body, authenticated: false)
        guard status == 201, let enrolled = try? JSONDecoder().decode(Enrolled.self, from: data) else {
            throw ClientError.from(status: status, data: data)
        }
        return enrolled
    }
}

/// What a new machine needs to enrol, as one line a coordinator can hand over or show as a QR
/// code: `intake://enrol?server=URL&code=CODE` (and `&pin=…` for an https server).
public struct EnrolmentLink: Sendable, Equatable {
    public var server: String
    public var code: String
    public var pins: [String]

    public init(server: String, code: String, pins: [String] = []) {
        self.server = server
        self.code = code
        self.pins = pins
    }

    public var text: String {
        var components = URLComponents()
        components.scheme = "intake"
        components.host = "enrol"
        components.queryItems =
            [URLQueryItem(name: "server", value: server), URLQueryItem(name: "code", value: code)]
            + pins.map { URLQueryItem(name: "pin", value: $0) }
        // '+' and '/' of a pin's base64 kept unambiguous.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? "intake://enrol"
    }

    /// The link, or nil when `text` is not one.
    public init?(_ text: String) {
        guard let components = URLComponents(string: text.trimmingCharacters(in: .whitespaces)), components.scheme == "intake",
            components.host == "enrol", let items = components.queryItems,
            let server = items.first(where: { $0.name == "server" })?.value, let code = items.first(where: { $0.name == "code" })?.value
        else { return nil }
        self.init(server: server, code: code, pins: items.filter { $0.name == "pin" }.compactMap(\.value))
    }
}
