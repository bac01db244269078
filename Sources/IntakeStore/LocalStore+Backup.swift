import Foundation
import GRDB
import IntakeCore

/// An encrypted copy of the queue, sealed with a passphrase of its own, to carry to another machine.
struct QueueBackup: Codable {
    static let format = "intake-queue-backup"

    struct Entry: Codable {
        var id: UUID
        var baseRevision: Int?
        var sealed: Data
    }

    var format = QueueBackup.format
    var version = 1
    var salt: Data
    var rounds: Int
    var entries: [Entry]
}

extension LocalStore {
    /// Writes every queued record, decrypted here and sealed again under a key made from
    /// `passphrase`, to `url`. Returns how many.
    @discardableResult
    public func exportQueue(to url: URL, passphrase: String) throws(LocalStoreError) -> Int {
        _ = try cipher()
        let salt = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        do {
            let backupCipher = RecordCipher(key: try KeyVault.stretch(passphrase, salt: salt, rounds: configuration.scryptRounds))
            let entries = try database.write { db in
                let cipher = try self.cipher(in: db)
                return try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY enqueuedAt, id").compactMap { row -> QueueBackup.Entry? in
                    guard let response = try Self.open(row, cipher, source: "outbox", db) else { return nil }
                    return QueueBackup.Entry(
                        id: response.id, baseRevision: row["baseRevision"],
                        sealed: try backupCipher.seal(try response.jsonData(), id: response.id))
                }
            }
            let data = try JSONEncoder().encode(QueueBackup(salt: salt, rounds: configuration.scryptRounds, entries: entries))
            guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw LocalStoreError("cannot write \(url.path)", fix: "check that the folder exists and is writable")
            }
            return entries.count
        } catch let error as LocalStoreError {
            throw error
        } catch {
            throw LocalStoreError("cannot export the queue", fix: "check the disk and try again")
        }
    }

    /// Adds the records of a backup to this queue, sealed with this store's key. Records already
    /// queued are left as they are; damaged entries are skipped and counted.
    public func importQueue(from url: URL, passphrase: String) throws(LocalStoreError) -> (imported: Int, alreadyQueued: Int, damaged: Int)
    {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw LocalStoreError("cannot read \(url.path)", fix: "check the file name")
        }
        guard let backup = try? JSONDecoder().decode(QueueBackup.self, from: data), backup.format == QueueBackup.format else {
            throw LocalStoreError("\(url.path) is not an Intake queue backup", fix: "give a file written by 'intake queue export'")
        }
        guard backup.version <= 1 else {
            throw LocalStoreError("the backup was written by a newer Intake (version \(backup.version))", fix: "update Intake to import it")
        }
        let records: [(QueueBackup.Entry, PatientResponse?)]
        do {
            let backupCipher = RecordCipher(key: try KeyVault.stretch(passphrase, salt: backup.salt, rounds: backup.rounds))
            records = backup.entries.map { entry in
                let plain = try? backupCipher.open(entry.sealed, id: entry.id)
                let response = plain.flatMap { try? PatientResponse(jsonData: $0) }
                return (entry, response?.id == entry.id ? response : nil)
            }
        } catch {
            throw LocalStoreError("cannot derive the backup's key", fix: "check the passphrase")
        }
        let readable = records.compactMap { entry, response in response.map { (entry, $0) } }
        if readable.isEmpty, !records.isEmpty {
            throw LocalStoreError(
                "wrong passphrase for this backup (or every entry is damaged)",
                fix: "nothing was imported; try again with the backup's passphrase")
        }
        return try writeSealed("import the backup") { db, cipher in
            var imported = 0, already = 0
            for (entry, response) in readable {
                if try Int.fetchOne(db, sql: "SELECT 1 FROM outbox WHERE id = ?", arguments: [Self.key(response.id)]) != nil {
                    already += 1
                    continue
                }
                let payload = try cipher.seal(try response.jsonData(), id: response.id)
                // Not marked without a collector: a queue carried here was filled on another
                // machine, and whoever flushes it here did not fill it (intake queue retry
                // --collector names its collector, if the server sets it aside).
                try db.execute(
                    sql:
                        "INSERT INTO outbox (id, state, baseRevision, attempts, enqueuedAt, size, payload) VALUES (?, 'pending', ?, 0, ?, ?, ?)",
                    arguments: [Self.key(response.id), entry.baseRevision, Date().timeIntervalSince1970, payload.count, payload])
                imported += 1
            }
            return (imported, already, records.count - readable.count)
        }
    }
}
