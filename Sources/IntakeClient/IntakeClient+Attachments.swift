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
}

extension JSONDecoder {
    /// An upload's status from `GET /v1/uploads/{sha256}`, or the error the server said.
    fileprivate func decodeUpload(_ answer: (Int, Data)) throws(ClientError) -> IntakeClient.UploadJSON {
        guard answer.0 == 200, let found = try? decode(IntakeClient.UploadJSON.self, from: answer.1) else {
            throw ClientError.from(status: answer.0, data: answer.1)
        }
        return found
    }
}

extension IntakeClient {

    /// Uploads a file for the team, unless the server has it whole already; a cut-off upload
    /// continues from where the server says it stopped.
    public func upload(_ bytes: Data, ref: AttachmentRef) async throws(ClientError) {
        let path = "/v1/uploads/\(ref.sha256)"
        let (status, data) = try await send("GET", path, body: nil)
        guard status == 200, let found = try? JSONDecoder().decode(UploadJSON.self, from: data) else {
            throw ClientError.from(status: status, data: data)
        }
        if found.state == "complete" {
            guard found.received == bytes.count else {
                throw ClientError.unexpected(
                    "the server holds a different file under \(ref.sha256.prefix(12))… (\(found.received) bytes, not \(bytes.count))")
            }
            return
        }
        var offset = min(max(found.received, 0), bytes.count)
        if offset == bytes.count {
            // Every byte arrived but the server did not finish the file (it stopped on the way):
            // its next status finishes it, or drops a damaged one so the upload starts again.
            let again = try JSONDecoder().decodeUpload(try await send("GET", path, body: nil))
            if again.state == "complete" { return }
            offset = min(max(again.received, 0), bytes.count)
            guard offset < bytes.count else {
                throw ClientError.unexpected("the server keeps an unfinished upload of \(ref.sha256.prefix(12))…; try again later")
            }
        }
        var restarts = 0
        while offset < bytes.count {
            let end = min(offset + Self.uploadChunk, bytes.count)
            // Given time while bytes flow (a slow uplink), not a deadline for the whole chunk.
            let answer = try await exchange(
                "PUT", path, body: bytes.subdata(in: offset..<end), json: false,
                extraHeaders: [
                    ("Content-Type", "application/octet-stream"), ("Content-Range", "bytes \(offset)-\(end - 1)/\(bytes.count)"),
                ],
                limit: .idle(timeout))
            switch answer.status {
            case 201: return
            case 202: offset = end
            case 409 where restarts < 3:
                // Another upload of the same file moved on (or the server lost a partial one): go on from where it stands.
                restarts += 1
                offset = min(
                    (try? JSONDecoder().decode(UploadJSON.self, from: try await send("GET", path, body: nil).1))?.received ?? 0, bytes.count
                )
            default: throw ClientError.from(status: answer.status, data: answer.body)
            }
        }
    }

    /// A file of a record in your exports (a coordinator's team, a researcher's consented
    /// records; never an identifying question's file for a researcher); nil when it is not one.
    public func exportedAttachment(record: UUID, sha256: String) async throws(ClientError) -> Data? {
        let answer = try await exchange(
            "GET", "/v1/exports/attachments/\(record.uuidString.lowercased())/\(sha256)", body: nil, limit: .idle(timeout))
        switch answer.status {
        case 200: return answer.body
        case 404: return nil
        default: throw ClientError.from(status: answer.status, data: answer.body)
        }
    }
}
