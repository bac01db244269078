import Foundation
import GRDB
import IntakeCore
import Testing

@testable import IntakeStore

/// Every payload sealed; keys wrapped by a device key file or a passphrase; damage contained.
struct EncryptionTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intake-crypto-\(UUID().uuidString)")

    static func fastConfiguration(passphrase: String? = nil, newStorePassphrase: String? = nil) -> LocalStore.Configuration {
        let ask: (@Sendable () throws -> String)? = passphrase.map { value in { @Sendable in value } }
        var configuration = LocalStore.Configuration(passphrase: ask, newStorePassphrase: newStorePassphrase)
        configuration.scryptRounds = 1024
        return configuration
    }

    private func open(passphrase: String? = nil, newStorePassphrase: String? = nil) throws -> LocalStore {
        try LocalStore(
            directory: directory, configuration: Self.fastConfiguration(passphrase: passphrase, newStorePassphrase: newStorePassphrase))
    }

    private func fileBytes() throws -> String {
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasPrefix(LocalStore.fileName) {
            bytes += try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func noNameOrAnswerIsReadableOnDisk() throws {
        let store = try open()
        try store.save(Draft(response: LocalStoreTests.record(given: "Zyxwvu", answers: [1: [1: .text("Secretanswer")]])))
        try store.enqueue(LocalStoreTests.record(given: "Qponml"))
        let onDisk = try fileBytes()
        for secret in ["Zyxwvu", "Secretanswer", "Qponml", "Haddad"] { #expect(!onDisk.contains(secret)) }
        let key = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("device.key").path)
        #expect(key[.posixPermissions] as? Int == 0o600)
        #expect(try store.summaries().first?.initials == "Z. H.")
    }

    @Test func aPassphraseProtectedStoreOpensOnlyWithItsPassphrase() throws {
        let record = LocalStoreTests.record()
        try open(newStorePassphrase: "correct horse").enqueue(record)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("device.key").path))
        #expect(try open().keyProtection() == .passphrase)
        #expect {
            _ = try open(passphrase: "wrong horse").pending(limit: 10)
        } throws: { ($0 as? LocalStoreError)?.message == "wrong passphrase" }
        #expect(try open(passphrase: "wrong horse").queueEntries().count == 1, "a wrong passphrase changes nothing")
        #expect(try open(passphrase: "correct horse").pending(limit: 10).first?.response == record)
    }

    @Test func changingThePassphraseKeepsEveryRecord() throws {
        let record = LocalStoreTests.record()
        try open().enqueue(record)
        try open().changePassphrase(to: "new passphrase")
        #expect(try open(passphrase: "new passphrase").pending(limit: 10).first?.response == record)
        #expect(throws: LocalStoreError.self) { try open(passphrase: "old").changePassphrase(to: nil) }
        try open(passphrase: "new passphrase").changePassphrase(to: nil)
        #expect(try open().keyProtection() == .deviceKey)
        #expect(try open().pending(limit: 10).first?.response == record)
    }

    @Test func rotatingTheKeyResealsEverything() throws {
        let store = try open()
        let queued = LocalStoreTests.record(given: "A"), draft = LocalStoreTests.record(given: "B")
        try store.enqueue(queued)
        try store.save(Draft(response: draft))
        let before = try fileBytes()
        #expect(try store.rotateKey() == 2)
        #expect(try fileBytes() != before)
        let reopened = try open()
        #expect(try reopened.pending(limit: 10).map(\.response) == [queued])
        #expect(try reopened.drafts().map(\.response) == [draft])
    }

    @Test func aTamperedEntryIsQuarantinedAndTheRestStillWorks() throws {
        let store = try open()
        let good = LocalStoreTests.record(given: "Good"), bad = LocalStoreTests.record(given: "Bad")
        try store.enqueue(good)
        try store.enqueue(bad)
        let pool = try DatabasePool(path: directory.appendingPathComponent(LocalStore.fileName).path)
        try pool.write { db in
            var payload = try Data.fetchOne(
                db, sql: "SELECT payload FROM outbox WHERE id = ?", arguments: [bad.id.uuidString.lowercased()])!
            payload[payload.count - 3] ^= 0xFF
            try db.execute(sql: "UPDATE outbox SET payload = ? WHERE id = ?", arguments: [payload, bad.id.uuidString.lowercased()])
        }
        #expect(try store.pending(limit: 10).map(\.response) == [good])
        #expect(try store.quarantined().map(\.id) == [bad.id.uuidString.lowercased()])
        #expect(try store.queueEntries().count == 1)
    }

    @Test func aPayloadMovedToAnotherRecordDoesNotOpen() throws {
        let store = try open()
        let a = LocalStoreTests.record(given: "A"), b = LocalStoreTests.record(given: "B")
        try store.enqueue(a)
        try store.enqueue(b)
        let pool = try DatabasePool(path: directory.appendingPathComponent(LocalStore.fileName).path)
        try pool.write { db in
            try db.execute(
                sql: "UPDATE outbox SET payload = (SELECT payload FROM outbox WHERE id = ?) WHERE id = ?",
                arguments: [a.id.uuidString.lowercased(), b.id.uuidString.lowercased()])
        }
        #expect(try store.pending(limit: 10).map(\.response) == [a])
        #expect(try store.quarantined().count == 1)
    }

    @Test func aMissingDeviceKeyIsAClearError() throws {
        try open().enqueue(LocalStoreTests.record())
        try FileManager.default.removeItem(at: directory.appendingPathComponent("device.key"))
        #expect {
            _ = try open().pending(limit: 1)
        } throws: { ($0 as? LocalStoreError)?.message.contains("device key file") == true }
    }

    @Test func backupsMoveTheQueueToAnotherMachineStillEncrypted() throws {
        let records = [LocalStoreTests.record(given: "A"), LocalStoreTests.record(given: "B")]
        for record in records { try open().enqueue(record) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("backup-\(UUID().uuidString).json")
        #expect(try open().exportQueue(to: file, passphrase: "usb passphrase") == 2)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("Haddad"))
        let other = try LocalStore(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("intake-other-\(UUID().uuidString)"),
            configuration: Self.fastConfiguration())
        #expect(throws: LocalStoreError.self) { try other.importQueue(from: file, passphrase: "wrong") }
        #expect(try other.queueEntries().isEmpty)
        let result = try other.importQueue(from: file, passphrase: "usb passphrase")
        #expect(result.imported == 2 && result.alreadyQueued == 0)
        #expect(try other.importQueue(from: file, passphrase: "usb passphrase").alreadyQueued == 2)
        #expect(Set(try other.pending(limit: 10).map(\.response.id)) == Set(records.map(\.id)))
    }

    @Test func queueKeepsRecordsUntilAcknowledged() throws {
        let store = try open()
        let a = LocalStoreTests.record(given: "A"), b = LocalStoreTests.record(given: "B")
        try store.save(Draft(response: a))
        try store.enqueue(a)
        try store.enqueue(b)
        #expect(try store.summaries().isEmpty, "queueing a record removes its draft")
        try store.recordAttempt([a.id], reason: "offline")
        try store.reject(b.id, reason: "conflict: other content")
        #expect(try store.pendingCount() == 1)
        #expect(try store.queueEntries().map(\.attempts) == [1, 1])
        #expect(try store.retry() == 1)
        try store.acknowledge([a.id, b.id])
        #expect(try store.queueEntries().isEmpty)
    }
}
