import Foundation
import IntakeCore
import IntakeStore
import Testing

@testable import IntakeClient
@testable import IntakeFieldwork

/// A record's files travel with it: kept sealed in the queue's store, uploaded before the record
/// (a chunk at a time, resuming an upload a cut connection left half done), and removed from this
/// machine once the server holds the record.
@Suite(.serialized)
struct AttachmentUploadTests {
    /// A photo of 2.5 MB (three chunks): a PNG signature, then bytes.
    static let photo: Data = {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += (0..<(2_500_000 - 8)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        return Data(bytes)
    }()

    @Test func aQueuedRecordsPhotoIsUploadedResumingACutUploadThenLeavesThisMachine() async throws {
        let server = try await ClientTestServer.make()
        let ref = try #require(AttachmentRef(bytes: Self.photo))
        var record = server.record(seed: 5)
        record[server.questionnaire.question(id: "document_photo")!.position] = .attachment(ref)
        try server.store.keepAttachment(Self.photo, ref: ref)
        // Offline: queued, with its file kept sealed.
        let offline = try await Submitter(store: server.store, client: server.client(port: ClientTestServer.closedPort())).submit(record)
        guard case .queued = offline else {
            Issue.record("expected queued, got \(offline)")
            return
        }
        #expect(try server.store.attachmentCount() == 1)
        // An earlier flush was cut after the first chunk: the server holds 1 MiB of it.
        let team = try #require(try await server.services.accounts.team(named: "clinic")).id
        let first = Self.photo.prefix(IntakeClient.uploadChunk)
        _ = try server.services.records.attachments!.append(
            team: team, sha256: ref.sha256, offset: 0, total: Self.photo.count, bytes: first)
        let summary = try await server.serving { port in
            try await QueueFlusher(store: server.store, client: server.client(port: port), batchSize: 5, retry: QueueFlusherTests.fast)
                .flush()
        }
        #expect(summary.remaining == 0, "\(summary)")
        #expect(try await server.services.store.record(id: record.id) != nil)
        #expect(server.services.records.attachments!.read(record: record.id, sha256: ref.sha256) == Self.photo)
        // The server has it: once no record here names it and a day has passed, it leaves this machine.
        #expect(try server.store.attachmentCount() == 1, "kept a day, whatever names it")
        #expect(try server.store.removeUnreferencedAttachments(now: Date().addingTimeInterval(2 * 86_400)) == 1)
        #expect(try server.store.attachmentCount() == 0)
    }

    @Test func aFileStaysWhileADraftStillNamesIt() async throws {
        let server = try await ClientTestServer.make()
        let ref = try #require(AttachmentRef(bytes: Self.photo))
        var draft = server.record(seed: 6)
        draft.status = .draft
        draft[server.questionnaire.question(id: "document_photo")!.position] = .attachment(ref)
        try server.store.keepAttachment(Self.photo, ref: ref)
        try server.store.save(Draft(response: draft))
        let later = Date().addingTimeInterval(2 * 86_400)
        #expect(try server.store.removeUnreferencedAttachments(now: later) == 0)
        #expect(try server.store.attachment(ref.sha256) == Self.photo)
        _ = try server.store.discard(id: draft.id)
        #expect(try server.store.removeUnreferencedAttachments() == 0, "kept a day after it was attached")
        #expect(try server.store.removeUnreferencedAttachments(now: later) == 1)
        #expect(try server.store.attachment(ref.sha256) == nil)
        // After a key rotation the file still opens.
        try server.store.keepAttachment(Self.photo, ref: ref)
        try server.store.rotateKey()
        #expect(try server.store.attachment(ref.sha256) == Self.photo)
        // A file whose bytes are not what its reference says is not kept.
        #expect(throws: LocalStoreError.self) { try server.store.keepAttachment(Self.photo.prefix(10), ref: ref) }
    }
}
