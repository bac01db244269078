import Foundation
import IntakeCore

/// Files that answer photo, audio, document and signature questions: uploaded before the
/// record that names them, a chunk at a time, resuming where a cut-off upload stopped.
extension IntakeClient {
    /// The bytes sent in one request.
    public static let uploadChunk = 1 << 20

    struct UploadJSON: Decodable {
        var state: String
        var received: Int
    }

    /// Uploads a file for the team, unless the server has it whole already; a cut-off upload
    /// continues from where the server says it stopped.
    public func upload(_ bytes: Data, ref: AttachmentRef) async throws(ClientError) {
        let path = "/v1/uploads/\(ref.sha256)"
        let (status, data) = try await send("GET", path, body: nil)
        guard status == 200, let found = try? JSONDecoder().decode(UploadJSON.self, from: data) else {
            throw ClientError.from(status: status, data: data)
        }
        if found.state == "complete" { return }
        var offset = min(max(found.received, 0), bytes.count)
        var restarts = 0
        while offset < bytes.count {
            let end = min(offset + Self.uploadChunk, bytes.count)
            let answer = try await exchange(
                "PUT", path, body: bytes.subdata(in: offset..<end), json: false,
                extraHeaders: [("Content-Type", "application/octet-stream"), ("Content-Range", "bytes \(offset)-\(end - 1)/\(bytes.count)")])
            switch answer.status {
            case 201: return
            case 202: offset = end
            case 409 where restarts < 3:
                // Another upload of the same file moved on (or the server lost a partial one): go on from where it stands.
                restarts += 1
                offset = min((try? JSONDecoder().decode(UploadJSON.self, from: try await send("GET", path, body: nil).1))?.received ?? 0, bytes.count)
            default: throw ClientError.from(status: answer.status, data: answer.body)
            }
        }
    }

    /// A file of a record in your exports (a coordinator's team, a researcher's consented
    /// records; never an identifying question's file for a researcher); nil when it is not one.
    public func exportedAttachment(record: UUID, sha256: String) async throws(ClientError) -> Data? {
        let (status, data) = try await send("GET", "/v1/exports/attachments/\(record.uuidString.lowercased())/\(sha256)", body: nil)
        switch status {
        case 200: return data
        case 404: return nil
        default: throw ClientError.from(status: status, data: data)
        }
    }
}
