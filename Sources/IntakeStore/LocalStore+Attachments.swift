import Crypto
import Foundation
import GRDB
import IntakeCore

/// The files that answer photo, audio, document and signature questions: sealed like drafts,
/// kept by their content (a file attached twice is kept once), until no draft and no queued
/// record names them any more.
extension LocalStore {
    /// Keeps a file's bytes; nothing happens when it is kept already.
    public func keepAttachment(_ bytes: Data, ref: AttachmentRef, at time: Date = Date()) throws(LocalStoreError) {
        guard SHA256.hash(data: bytes).hex == ref.sha256, bytes.count == ref.size else {
            throw LocalStoreError("the file changed while it was read", fix: "attach it again")
        }
        try writeSealed("keep the file") { db, cipher in
            if try Int.fetchOne(db, sql: "SELECT 1 FROM attachment WHERE sha256 = ?", arguments: [ref.sha256]) != nil { return }
            let id = UUID()
            let payload: Data
            do {
                payload = try cipher.seal(bytes, id: id)
            } catch {
                throw LocalStoreError("cannot seal the file", fix: "this is a bug in Intake; please report it")
            }
            try db.execute(
                sql: "INSERT INTO attachment (sha256, id, size, savedAt, payload) VALUES (?, ?, ?, ?, ?)",
                arguments: [ref.sha256, Self.key(id), ref.size, time.timeIntervalSince1970, payload])
        }
    }

    /// A kept file's bytes, checked against their hash; nil when it is not kept (or no longer opens).
    public func attachment(_ sha256: String) throws(LocalStoreError) -> Data? {
        guard try read("find the file", { db in try Int.fetchOne(db, sql: "SELECT 1 FROM attachment WHERE sha256 = ?", arguments: [sha256]) }) != nil
        else { return nil }
        return try writeSealed("read the file") { db, cipher in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, payload FROM attachment WHERE sha256 = ?", arguments: [sha256]),
                let id = UUID(uuidString: row["id"]), let plain = try? cipher.open(row["payload"] as Data, id: id),
                SHA256.hash(data: plain).hex == sha256
            else { return nil }
            return Data(plain)
        }
    }

    /// How many files are kept.
    public func attachmentCount() throws(LocalStoreError) -> Int {
        try read("count the files") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attachment") ?? 0 }
    }

    /// Removes the files no draft and no queued record (pending or set aside) names; how many.
    /// A record that no longer opens counts as naming every file, so nothing it may need goes.
    @discardableResult public func removeUnreferencedAttachments() throws(LocalStoreError) -> Int {
        guard try attachmentCount() > 0 else { return 0 }
        return try writeSealed("remove files no record needs") { db, cipher in
            var named = Set<String>()
            for table in ["record", "outbox"] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table)") {
                    guard let json = try Self.openJSON(row, cipher, source: table, db), let record = try? PatientResponse(jsonData: json) else {
                        return 0
                    }
                    named.formUnion(record.attachments.map(\.sha256))
                }
            }
            var removed = 0
            for sha256 in try String.fetchAll(db, sql: "SELECT sha256 FROM attachment") where !named.contains(sha256) {
                try db.execute(sql: "DELETE FROM attachment WHERE sha256 = ?", arguments: [sha256])
                removed += 1
            }
            return removed
        }
    }
}
