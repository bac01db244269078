import Foundation
import IntakeCore
import Testing

@testable import IntakeStore

/// `intake key rotate` while another intake process has the store open (a flush, a fill): each
/// read and write uses the key the store holds at that moment, so nothing is sealed under a
/// discarded key and nothing is quarantined because of a rotation.
struct KeyRotationTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-rotation-\(UUID().uuidString)")

    func open(passphrase: String? = nil) throws -> LocalStore {
        try LocalStore(
            directory: directory, configuration: EncryptionTests.fastConfiguration(passphrase: passphrase, newStorePassphrase: passphrase))
    }

    @Test(arguments: [nil, "a long passphrase"]) func aProcessThatUnlockedBeforeARotationKeepsWorkingAfterIt(_ passphrase: String?) throws {
        let filling = try open(passphrase: passphrase)
        try filling.enqueue(LocalStoreTests.record(given: "Before"))
        #expect(try filling.pending(limit: 10).count == 1)  // unlocked with the first key

        let rotating = try open(passphrase: passphrase)
        #expect(try rotating.rotateKey() == 1)

        // The first process saves and queues after the rotation: sealed under the new key.
        let draft = Draft(response: LocalStoreTests.record(given: "Draftafter"))
        try filling.save(draft)
        try filling.enqueue(LocalStoreTests.record(given: "Queuedafter"))
        // It reads what the rotation re-sealed, and what it wrote itself.
        #expect(try filling.pending(limit: 10).map(\.response.patient.givenName).sorted() == ["Before", "Queuedafter"])
        #expect(try filling.draft(id: draft.response.id)?.response.patient.givenName == "Draftafter")

        // A fresh process reads everything; nothing went to quarantine.
        let later = try open(passphrase: passphrase)
        #expect(try later.pending(limit: 10).count == 2)
        #expect(try later.drafts().count == 1)
        #expect(try later.quarantined().isEmpty)

        // And a second rotation, from the process that is still open, works as well.
        #expect(try filling.rotateKey() == 3)
        #expect(try rotating.pending(limit: 10).count == 2)
        #expect(try rotating.quarantined().isEmpty)
    }

    @Test func aSealedDocumentIsKeptAcrossARotationAndReplacedBySaving() throws {
        let store = try open(passphrase: "a long passphrase")
        #expect(try store.document("inbox") == nil)
        try store.saveDocument("inbox", Data("first".utf8), at: Date(timeIntervalSince1970: 100))
        try store.saveDocument("inbox", Data("second".utf8), at: Date(timeIntervalSince1970: 200))
        _ = try store.rotateKey()
        let reopened = try open(passphrase: "a long passphrase")
        let kept = try #require(try reopened.document("inbox"))
        #expect(String(decoding: kept.data, as: UTF8.self) == "second" && kept.savedAt == Date(timeIntervalSince1970: 200))
        for suffix in ["", "-wal"] {
            let file = directory.appendingPathComponent(LocalStore.fileName + suffix)
            guard let raw = try? Data(contentsOf: file) else { continue }
            #expect(raw.range(of: Data("second".utf8)) == nil, "sealed, not in the clear in \(file.lastPathComponent)")
        }
    }
}

/// A record moved to another questionnaire version: the record and its move are kept in one
/// transaction, the answers set aside sealed, and a key rotation re-seals them too.
struct RecordMoveStoreTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-moves-\(UUID().uuidString)")

    @Test func aMoveIsKeptWithTheRecordAndSurvivesARotation() throws {
        let store = try LocalStore(directory: directory, configuration: EncryptionTests.fastConfiguration())
        var record = LocalStoreTests.record(given: "Moved")
        try store.enqueue(record)
        let from = record.questionnaire
        record.questionnaire = QuestionnaireReference(id: from.id, version: "v2")
        record.status = .draft
        let json = Array(
            #"{"setAside":[{"question":"q","questionText":"Q","position":"1.2","reason":"question_removed","detail":"gone"}]}"#.utf8)
        try store.saveMove(Draft(response: record), queue: false, from: from, setAside: json, setAsideCount: 1)
        #expect(try store.queueEntries().isEmpty, "out of the queue")
        #expect(try store.draft(id: record.id)?.response.questionnaire.version == "v2", "a draft on the new version")
        let prefix = String(record.id.uuidString.lowercased().prefix(8))
        #expect(try store.moves(idPrefix: prefix).map(\.setAside.first?.question) == ["q"])
        // Sealed: the answers set aside are not in the file in clear.
        for name in [LocalStore.fileName, LocalStore.fileName + "-wal"] {
            let file = (try? Data(contentsOf: directory.appendingPathComponent(name))) ?? Data()
            #expect(file.range(of: Data("question_removed".utf8)) == nil, "\(name)")
        }
        #expect(try store.rotateKey() == 2)
        let reopened = try LocalStore(directory: directory, configuration: EncryptionTests.fastConfiguration())
        let moves = try reopened.moves(idPrefix: prefix)
        #expect(moves.count == 1 && moves[0].json == json && moves[0].from == from.description && moves[0].to == "\(from.id)@v2")
        #expect(try reopened.moves(idPrefix: "ffffffff").isEmpty)
    }
}
