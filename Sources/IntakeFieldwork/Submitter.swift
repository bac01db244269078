import Foundation
import IntakeClient
import IntakeCore
import IntakeStore

/// Uploads the files a record names before the record itself: the server takes a record only
/// when it holds every file it names.
enum AttachmentUpload {
    /// `"attachment"` in a record's JSON: only such records are read to find their files.
    static let marker = Array("\"attachment\"".utf8)

    static func files(of record: PatientResponse, from store: LocalStore, to client: IntakeClient) async throws(ClientError) {
        for ref in record.attachments {
            // A file this machine no longer has: the server names it in its answer, and the record returns to the drafts.
            guard let bytes = try? store.attachment(ref.sha256) else { continue }
            try await client.upload(bytes, ref: ref)
        }
    }

    /// The same for a queued record's JSON, read only when it names a file.
    static func files(of json: [UInt8], from store: LocalStore, to client: IntakeClient) async throws(ClientError) {
        guard ByteSearch.contains(marker, in: json), let record = try? PatientResponse(jsonData: json) else { return }
        try await files(of: record, from: store, to: client)
    }
}

/// Sends a finished record, or keeps it in the encrypted queue when that cannot succeed now.
///
/// The record is queued first, durably, and only then sent; it leaves the queue when the server
/// acknowledges it. So a crash at any point leaves it either queued or on the server, never lost.
public struct Submitter: Sendable {
    public let store: LocalStore
    public let client: IntakeClient?

    public init(store: LocalStore, client: IntakeClient?) {
        self.store = store
        self.client = client
    }

    public enum Outcome: Sendable, Equatable {
        /// The server stored it (or already had it); it left this device.
        case sent(SendResult)
        /// Kept in the encrypted queue; `waiting` records are queued in all.
        case queued(waiting: Int, reason: String)
        /// The server's validation refused it; it is a draft again, to fix.
        case invalid(message: String, issues: [RemoteIssue], code: String)
        /// The server has another version of this record; it is kept in the queue, set aside.
        case heldBack(reason: String)
        /// An edit based on an old revision; it is a draft again, to redo on the current one.
        case stale(currentRevision: Int, message: String)
    }

    /// `queued` is called once the record is in the queue, before it is sent: from then on
    /// stopping loses nothing, and the caller may say so.
    public func submit(_ record: PatientResponse, baseRevision: Int? = nil, queued: () -> Void = {}) async throws -> Outcome {
        try store.enqueue(record, baseRevision: baseRevision)
        queued()
        guard let client else {
            return .queued(waiting: try store.pendingCount(), reason: "no server is configured")
        }
        let result: SendResult
        do {
            try await AttachmentUpload.files(of: record, from: store, to: client)
            if let baseRevision {
                result = try await client.put(record, baseRevision: baseRevision)
            } else {
                result = try await client.post(record)
            }
        } catch {
            try store.recordAttempt([record.id], reason: error.description)
            return .queued(waiting: try store.pendingCount(), reason: error.description)
        }
        switch result {
        case .created, .duplicate, .updated:
            try store.acknowledge([record.id])
            // The server has its files now; what no draft or queued record names goes.
            try? store.removeUnreferencedAttachments()
            return .sent(result)
        case .conflict(let message):
            try store.reject(record.id, reason: message)
            return .heldBack(reason: message)
        case .invalid(let message, let issues, let code):
            try returnToDrafts(record, baseRevision: baseRevision)
            return .invalid(message: message, issues: issues, code: code)
        case .stale(let current, let message):
            try returnToDrafts(record, baseRevision: baseRevision)
            return .stale(currentRevision: current, message: message)
        }
    }

    /// Moves a refused record out of the queue and back into the drafts, in that order, so it is
    /// in one of them at every moment.
    private func returnToDrafts(_ record: PatientResponse, baseRevision: Int?) throws {
        var draft = record
        draft.status = .draft
        try store.save(Draft(response: draft, baseRevision: baseRevision))
        try store.acknowledge([record.id])
    }
}
