import Foundation
import IntakeCore

/// A grant of access to one record, as the server lists it.
public struct RemoteGrant: Sendable, Equatable, Decodable {
    public var id: String
    public var recordId: String
    public var toUser: String?
    public var toTeam: String?
    public var access: String
    public var expiresAt: String
    public var grantedBy: String
    public var grantedAt: String
    public var revokedAt: String?
    public var revokedBy: String?
    public var active: Bool
}

/// Grants: access to one record for a user or a team outside its team, until a time.
extension IntakeClient {
    public func grant(record id: UUID, toUser: String?, toTeam: String?, access: String, expiresAt: Date) async throws(ClientError)
        -> RemoteGrant
    {
        var body: [String: String] = ["access": access, "expiresAt": Timestamp.string(from: expiresAt)]
        body["toUser"] = toUser
        body["toTeam"] = toTeam
        return try await grantCall(
            "POST", "/v1/records/\(id.uuidString.lowercased())/grants", body: try? JSONEncoder().encode(body), expect: 201)
    }

    public func grants(record id: UUID) async throws(ClientError) -> [RemoteGrant] {
        try await grantCall("GET", "/v1/records/\(id.uuidString.lowercased())/grants", body: nil, expect: 200, as: GrantList.self).grants
    }

    public func revokeGrant(record id: UUID, grant: UUID) async throws(ClientError) -> RemoteGrant {
        try await grantCall(
            "DELETE", "/v1/records/\(id.uuidString.lowercased())/grants/\(grant.uuidString.lowercased())", body: nil, expect: 200)
    }

    /// The grants you or your team hold now.
    public func grantsReceived() async throws(ClientError) -> [RemoteGrant] {
        try await grantCall("GET", "/v1/grants", body: nil, expect: 200, as: GrantList.self).grants
    }

    private struct GrantList: Decodable { var grants: [RemoteGrant] }

    private func grantCall<T: Decodable>(_ method: String, _ path: String, body: Data?, expect: Int, as type: T.Type = RemoteGrant.self)
        async throws(ClientError) -> T
    {
        let (status, data) = try await send(method, path, body: body)
        guard status == expect else { throw ClientError.from(status: status, data: data) }
        guard let value = try? JSONDecoder().decode(T.self, from: data) else {
            throw ClientError.unexpected("the server's grants could not be read")
        }
        return value
    }
}

/// Transfers: a record, or a patient with all their records, to another team.
extension IntakeClient {
    /// Moves a record (`patient: false`) or a registry patient and their records to `team`;
    /// the ids of the records moved.
    public func transfer(_ id: UUID, patient: Bool, toTeam team: String) async throws(ClientError) -> [String] {
        struct Moved: Decodable { var transferred: [String] }
        let path = "/v1/\(patient ? "patients" : "records")/\(id.uuidString.lowercased())/transfer"
        let (status, data) = try await send("POST", path, body: try? JSONEncoder().encode(["toTeam": team]))
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        guard let moved = try? JSONDecoder().decode(Moved.self, from: data) else {
            throw ClientError.unexpected("the server's answer to the transfer could not be read")
        }
        return moved.transferred
    }
}
