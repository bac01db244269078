import Foundation

/// What the server keeps of a record a coordinator deleted.
public struct RemoteTombstone: Sendable, Equatable, Decodable {
    public var id: String
    public var deletedAt: String
    public var deletedBy: String
    public var reason: String
    public var revision: Int
}

/// Deleting records (coordinators) and purging old tombstones (admins).
extension IntakeClient {
    /// Deletes a record of your team: its answers and revisions go, a tombstone (who, when, why) stays.
    public func deleteRecord(id: UUID, reason: String) async throws(ClientError) -> RemoteTombstone {
        let body = try? JSONSerialization.data(withJSONObject: ["reason": reason])
        let (status, data) = try await send("DELETE", "/v1/records/\(id.uuidString.lowercased())", body: body)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        guard let tombstone = try? JSONDecoder().decode(RemoteTombstone.self, from: data) else {
            throw ClientError.unexpected("the server's answer to the deletion could not be read")
        }
        return tombstone
    }
}
