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
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let list = object["revisions"] as? [[String: Any]]
        else {
            throw ClientError.unexpected("the server's revisions could not be read")
        }
        return list.compactMap { entry in
            guard let revision = entry["revision"] as? Int, let savedBy = entry["savedBy"] as? String,
                let savedAt = entry["savedAt"] as? String
            else { return nil }
            return RemoteRevision(revision: revision, savedBy: savedBy, savedAt: savedAt, deviceId: entry["deviceId"] as? String)
        }
    }
}

extension IntakeClient {
    /// The record as saved at `revision` (the base of an edit, for a three-way merge).
    public func record(id: UUID, revision: Int) async throws(ClientError) -> PatientResponse {
        let (status, data) = try await send("GET", "/v1/records/\(id.uuidString.lowercased())/revisions", body: nil)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        let found: PatientResponse?
        do {
            found = try JSONReader.document(data) { reader throws(JSONReadError) in
                var found: PatientResponse?
                try reader.object { key, reader throws(JSONReadError) in
                    guard key == "revisions" else {
                        _ = try reader.skipValue()
                        return
                    }
                    try reader.array { _, reader throws(JSONReadError) in
                        var record: PatientResponse?
                        var number: Int?
                        try reader.object { key, reader throws(JSONReadError) in
                            switch key {
                            case "record": record = try RecordCodec.read(&reader)
                            case "revision": number = try reader.integer()
                            default: _ = try reader.skipValue()
                            }
                        }
                        if number == revision { found = record }
                    }
                }
                return found
            }
        } catch {
            throw ClientError.unexpected("the server's revisions could not be read: \(error)")
        }
        guard let found else {
            throw ClientError.notFound("revision \(revision) of record \(id.uuidString.lowercased()) is not on the server")
        }
        return found
    }
}
