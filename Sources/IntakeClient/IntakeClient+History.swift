import Foundation
import IntakeCore

/// One saved revision of a record: who saved it, when, and from which device.
public struct RemoteRevision: Sendable, Equatable {
    public var revision: Int
    public var savedBy: String
    public var savedAt: String
    public var deviceId: String?
}

/// A record's history.
extension IntakeClient {
    /// The record as it was at `time`: the revision current then.
    public func record(id: UUID, asOf time: Date) async throws(ClientError) -> (record: PatientResponse, revision: Int) {
        let at = Timestamp.string(from: time)
        let (status, data) = try await send("GET", "/v1/records/\(id.uuidString.lowercased())?asOf=\(Self.queryValue(at))", body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        do {
            return try StoredRecordReader.read(data)
        } catch {
            throw ClientError.unexpected("the server's record could not be read: \(error)")
        }
    }

    /// Every revision, oldest first, without its answers.
    public func revisions(of id: UUID) async throws(ClientError) -> [RemoteRevision] {
        let (status, data) = try await send("GET", "/v1/records/\(id.uuidString.lowercased())/revisions", body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let list = object["revisions"] as? [[String: Any]] else {
            throw ClientError.unexpected("the server's revisions could not be read")
        }
        return list.compactMap { entry in
            guard let revision = entry["revision"] as? Int, let savedBy = entry["savedBy"] as? String, let savedAt = entry["savedAt"] as? String
            else { return nil }
            return RemoteRevision(revision: revision, savedBy: savedBy, savedAt: savedAt, deviceId: entry["deviceId"] as? String)
        }
    }
}
