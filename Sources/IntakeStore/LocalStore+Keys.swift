import Crypto
import Foundation
import GRDB

extension LocalStore {
    /// How the data key is protected, or nil before the store has one.
    public func keyProtection() throws(LocalStoreError) -> KeyProtection? {
        try read("read the key settings") { db in try KeyVault.load(db)?.protection }
    }

    /// Re-wraps the data key: under `passphrase`, or under the device key file when nil. The
    /// current passphrase (if any) is asked for first; nothing changes when it is wrong.
    public func changePassphrase(to passphrase: String?) throws(LocalStoreError) {
        _ = try cipher()
        try write("change the passphrase") { db in
            guard let wrapped = try KeyVault.load(db) else { return }
            // The current passphrase, even when the key agent keeps the key unlocked.
            let key = try KeyVault.unwrap(wrapped, directory: directory) { try self.askPassphrase() }
            let rewrapped = try KeyVault.wrap(key, passphrase: passphrase, directory: directory, rounds: configuration.scryptRounds)
            try KeyVault.save(rewrapped, db)
            if let stored = try KeyVault.storedText(db) { unlocked.set(RecordCipher(key: key), wrapped: stored) }
            rekeep(key, from: wrapped, to: rewrapped)
        }
    }

    /// Makes a new data key and re-seals every draft and queued record with it, in one transaction.
    /// Returns how many payloads were re-sealed; any that did not open are quarantined.
    @discardableResult
    public func rotateKey() throws(LocalStoreError) -> Int {
        let new = RecordCipher(key: RecordCipher.generateKey())
        let count = try writeSealed("rotate the key") { db, old -> Int in
            guard let wrapped = try KeyVault.load(db) else { return 0 }
            var count = 0
            for table in ["record", "outbox"] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table)") {
                    guard let response = try Self.open(row, old, source: table, db) else { continue }
                    let payload = try new.seal(try response.jsonData(), id: response.id)
                    try db.execute(sql: "UPDATE \(table) SET payload = ? WHERE id = ?", arguments: [payload, Self.key(response.id)])
                    count += 1
                }
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, payload FROM action") {
                guard let id = UUID(uuidString: row["id"]), let plain = try Self.openJSON(row, old, source: "action", db) else { continue }
                try db.execute(
                    sql: "UPDATE action SET payload = ? WHERE id = ?", arguments: [try new.seal(Data(plain), id: id), row["id"] as String])
                count += 1
            }
            // The synced copy and documents are copies of what the server holds: one that does not
            // open is dropped, not quarantined (a synced record comes back with the next sync).
            for row in try Row.fetchAll(db, sql: "SELECT * FROM synced") {
                guard let record = try Self.synced(row, old, db) else { continue }
                let payload = try new.seal(try record.response.jsonData(), id: record.response.id)
                try db.execute(sql: "UPDATE synced SET payload = ? WHERE id = ?", arguments: [payload, row["id"] as String])
            }
            for row in try Row.fetchAll(db, sql: "SELECT number, recordId, payload FROM recordHistory") {
                guard let id = UUID(uuidString: row["recordId"]), let plain = try? old.open(row["payload"] as Data, id: id) else {
                    continue
                }
                try db.execute(
                    sql: "UPDATE recordHistory SET payload = ? WHERE number = ?",
                    arguments: [try new.seal(plain, id: id), row["number"] as Int64])
                count += 1
            }
            // Files: re-sealed like drafts; one that does not open stays as it is (attaching the
            // file again replaces it), never dropped here.
            for row in try Row.fetchAll(db, sql: "SELECT sha256, id, payload FROM attachment") {
                guard let id = UUID(uuidString: row["id"]), let plain = try? old.open(row["payload"] as Data, id: id) else { continue }
                try db.execute(
                    sql: "UPDATE attachment SET payload = ? WHERE sha256 = ?",
                    arguments: [try new.seal(plain, id: id), row["sha256"] as String])
                count += 1
            }
            for row in try Row.fetchAll(db, sql: "SELECT name, id, payload FROM document") {
                guard let id = UUID(uuidString: row["id"]), let plain = try? old.open(row["payload"] as Data, id: id) else {
                    try db.execute(sql: "DELETE FROM document WHERE name = ?", arguments: [row["name"] as String])
                    continue
                }
                try db.execute(
                    sql: "UPDATE document SET payload = ? WHERE name = ?", arguments: [try new.seal(plain, id: id), row["name"] as String])
            }
            // The passphrase the new key is wrapped with, checked against the old wrapping first
            // (the key may have come from the key agent, without it): a typo would lock the store.
            var passphrase: String?
            if wrapped.protection == .passphrase {
                let typed = try askPassphrase()
                _ = try KeyVault.unwrap(wrapped, directory: directory) { typed }
                passphrase = typed
            }
            let rewrapped = try KeyVault.wrap(new.key, passphrase: passphrase, directory: directory, rounds: configuration.scryptRounds)
            try KeyVault.save(rewrapped, db)
            if let stored = try KeyVault.storedText(db) { unlocked.set(new, wrapped: stored) }
            rekeep(new.key, from: wrapped, to: rewrapped)
            return count
        }
        return count
    }

    /// The key agent keeps the key under its new wrapping, and forgets the old one.
    func rekeep(_ key: SymmetricKey, from old: KeyVault.Wrapped, to new: KeyVault.Wrapped) {
        guard let agent = configuration.keyAgent else { return }
        agent.forget(KeyVault.agentId(directory: directory, wrapped: old))
        if new.protection == .passphrase { agent.keep(key, for: KeyVault.agentId(directory: directory, wrapped: new)) }
    }
}
