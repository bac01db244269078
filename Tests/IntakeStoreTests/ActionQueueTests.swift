import Foundation
import GRDB
import Testing

@testable import IntakeStore

/// Answers given offline wait sealed in the local store, the latest per referral, and survive a
/// key rotation; one that no longer decrypts is quarantined, not lost silently.
struct ActionQueueTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-actions-\(UUID().uuidString)")

    func open() throws -> LocalStore {
        try LocalStore(
            directory: directory,
            configuration: EncryptionTests.fastConfiguration(passphrase: "a long passphrase", newStorePassphrase: "a long passphrase"))
    }

    @Test func answersAreSealedKeptInOrderAndALaterOneToTheSameReferralReplacesTheFirst() throws {
        let store = try open()
        let first = "6f9619ff-8b86-d011-b42d-00c04fc964ff", second = "0b4f6c1e-2d3a-4e5f-8a9b-1c2d3e4f5a6b"
        try store.enqueueAction(QueuedAction(kind: .referralAnswer, target: first, verb: "accept"), at: Date(timeIntervalSince1970: 1))
        try store.enqueueAction(QueuedAction(kind: .referralAnswer, target: second, verb: "decline"), at: Date(timeIntervalSince1970: 2))
        try store.enqueueAction(QueuedAction(kind: .referralAnswer, target: first, verb: "decline"), at: Date(timeIntervalSince1970: 3))
        let pending = try open().pendingActions()
        #expect(
            pending.map(\.action) == [
                QueuedAction(kind: .referralAnswer, target: second, verb: "decline"),
                QueuedAction(kind: .referralAnswer, target: first, verb: "decline"),
            ])
        #expect(try store.pendingActionCount() == 2)

        // Nothing of it is readable in the file.
        let file = try Data(contentsOf: directory.appendingPathComponent(LocalStore.fileName))
        #expect(file.range(of: Data(first.utf8)) == nil && file.range(of: Data("decline".utf8)) == nil)

        try store.actionAttemptFailed(pending[0].id, reason: "the server could not be reached")
        #expect(
            try store.pendingActions().first?.attempts == 1 && store.pendingActions().first?.reason == "the server could not be reached")
        #expect(try store.rotateKey() == 2)
        #expect(try open().pendingActions().map(\.action) == pending.map(\.action), "re-sealed by a rotation")
        try store.removeAction(pending[0].id)
        #expect(try store.pendingActions().map(\.id) == [pending[1].id])
    }

    @Test func anAnswerThatNoLongerDecryptsIsQuarantined() throws {
        let store = try open()
        let id = try store.enqueueAction(QueuedAction(kind: .referralAnswer, target: "x", verb: "accept"))
        let queue = try DatabaseQueue(path: directory.appendingPathComponent(LocalStore.fileName).path)
        try queue.write { db in
            try db.execute(sql: "UPDATE action SET payload = X'00010203' WHERE id = ?", arguments: [id.uuidString.lowercased()])
        }
        #expect(try open().pendingActions().isEmpty)
        #expect(try store.quarantined().map(\.source) == ["action"])
    }
}
