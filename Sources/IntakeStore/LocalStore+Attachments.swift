import Crypto
import Foundation
import GRDB
import IntakeCore

/// The files that answer photo, audio, document and signature questions: sealed like drafts,
/// kept by their content (a file attached twice is kept once), until no draft and no queued
/// record names them any more.
extension LocalStore {
    /// Keeps a file's bytes; nothing happens when it is kept already (and opens), else it is
    /// kept afresh.
    public func keepAttachment(_ bytes: Data, ref: AttachmentRef, at time: Date = Date()) throws(LocalStoreError) {
        guard SHA256.hash(data: bytes).hex == ref.sha256, bytes.count == ref.size else {
            throw LocalStoreError("the file changed while it was read", fix: "attach it again")
        }
        try writeSealed("keep the file") { db, cipher in
            if let row = try Row.fetchOne(db, sql: "SELECT id, payload FROM attachment WHERE sha256 = ?", arguments: [ref.sha256]),
                let id = UUID(uuidString: row["id"]), (try? cipher.open(row["payload"] as Data, id: id)) != nil
            {
                try db.execute(
                    sql: "UPDATE attachment SET savedAt = ? WHERE sha256 = ?", arguments: [time.timeIntervalSince1970, ref.sha256])
                return
            }
            let id = UUID()
            let payload: Data
            do {
                payload = try cipher.seal(bytes, id: id)
            } catch {
                throw LocalStoreError("cannot seal the file", fix: "this is a bug in Intake; please report it")
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO attachment (sha256, id, size, savedAt, payload) VALUES (?, ?, ?, ?, ?)",
                arguments: [ref.sha256, Self.key(id), ref.size, time.timeIntervalSince1970, payload])
        }
    }

    /// A kept file's bytes, checked against their hash; nil when it is not kept (or no longer opens).
    public func attachment(_ sha256: String) throws(LocalStoreError) -> Data? {
        guard
            try read("find the file", { db in try Int.fetchOne(db, sql: "SELECT 1 FROM attachment WHERE sha256 = ?", arguments: [sha256]) })
                != nil
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

    /// How long a kept file stays even when nothing names it yet (the draft naming it may not
    /// be saved yet; another command may be running).
    public static let attachmentGrace: TimeInterval = 24 * 3600

    /// Removes the files no draft, no queued record (pending or set aside) and no answer set
    /// aside by a migration names, kept longer ago than ``attachmentGrace``; how many. While any
    /// record is quarantined (it may name files, and may yet be recovered) nothing is removed.
    @discardableResult public func removeUnreferencedAttachments(now: Date = Date()) throws(LocalStoreError) -> Int {
        guard try attachmentCount() > 0 else { return 0 }
        return try writeSealed("remove files no record needs") { db, cipher in
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM quarantine") ?? 0 > 0 { return 0 }
            var named = Set<String>()
            for table in ["record", "outbox"] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table)") {
                    guard let json = try Self.openJSON(row, cipher, source: table, db), let record = try? PatientResponse(jsonData: json)
                    else {
                        return 0
                    }
                    named.formUnion(record.attachments.map(\.sha256))
                }
            }
            // Answers a move to another version set aside keep their files too.
            var setAside = ""
            for row in try Row.fetchAll(db, sql: "SELECT recordId, payload FROM recordHistory") {
                guard let id = UUID(uuidString: row["recordId"]), let plain = try? cipher.open(row["payload"] as Data, id: id) else {
                    return 0
                }
                setAside += String(decoding: plain, as: UTF8.self)
            }
            let cutoff = now.timeIntervalSince1970 - Self.attachmentGrace
            var removed = 0
            for sha256 in try String.fetchAll(db, sql: "SELECT sha256 FROM attachment WHERE savedAt < ?", arguments: [cutoff])
            where !named.contains(sha256) && !setAside.contains(sha256) {
                try db.execute(sql: "DELETE FROM attachment WHERE sha256 = ?", arguments: [sha256])
                removed += 1
            }
            return removed
        }
    }
}
