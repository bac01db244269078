import Foundation
import GRDB
import IntakeCore

extension LocalStore {
    /// Puts a finished record in the outbound queue, sealed, and removes its draft, in one transaction.
    /// A record already queued is replaced (its newest content is what will be sent).
    public func enqueue(_ response: PatientResponse, baseRevision: Int? = nil) throws(LocalStoreError) {
        try writeSealed("queue the record") { db, cipher in try Self.enqueue(response, baseRevision: baseRevision, cipher, db) }
    }

    static func enqueue(_ response: PatientResponse, baseRevision: Int?, _ cipher: RecordCipher, _ db: Database) throws {
        let payload = try Self.seal(response, with: cipher)
        try markIfWithoutCollector(response, db)
        try db.execute(
            sql: """
                INSERT INTO outbox (id, state, baseRevision, attempts, enqueuedAt, size, payload) VALUES (?, 'pending', ?, 0, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET state = 'pending', baseRevision = excluded.baseRevision, reason = NULL,
                    size = excluded.size, payload = excluded.payload
                """,
            arguments: [Self.key(response.id), baseRevision, Date().timeIntervalSince1970, payload.count, payload])
        try db.execute(sql: "DELETE FROM record WHERE id = ?", arguments: [Self.key(response.id)])
    }

    /// The queue's entries, oldest first; reads no payload, so needs no key.
    public func queueEntries() throws(LocalStoreError) -> [QueueEntry] {
        try read("list the queue") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM outbox ORDER BY enqueuedAt, id").map(Self.entry)
        }
    }

    public func pendingCount() throws(LocalStoreError) -> Int {
        try read("count the queue") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE state = 'pending'") ?? 0 }
    }

    /// Up to `limit` pending records, oldest first, decrypted; entries that do not decrypt are quarantined.
    public func pending(limit: Int, after: (enqueuedAt: Date, id: UUID)? = nil) throws(LocalStoreError) -> [QueuedRecord] {
        return try writeSealed("read the queue") { db, cipher in
            try Self.pendingRows(limit: limit, after: after, db).compactMap { row in
                try Self.open(row, cipher, source: "outbox", db).map { QueuedRecord(entry: try Self.entry(row), response: $0) }
            }
        }
    }

    /// Pending rows after `after`, in queue order.
    private static func pendingRows(limit: Int, after: (enqueuedAt: Date, id: UUID)?, _ db: Database) throws -> [Row] {
        guard let after else {
            return try Row.fetchAll(
                db, sql: "SELECT * FROM outbox WHERE state = 'pending' ORDER BY enqueuedAt, id LIMIT ?", arguments: [limit])
        }
        return try Row.fetchAll(
            db, sql: "SELECT * FROM outbox WHERE state = 'pending' AND (enqueuedAt, id) > (?, ?) ORDER BY enqueuedAt, id LIMIT ?",
            arguments: [after.enqueuedAt.timeIntervalSince1970, key(after.id), limit])
    }

    /// Pending records after `after` (oldest first) as the JSON they were queued with, decrypted
    /// once and not parsed: at most `limit` of them and, past the first, at most `maxBytes` in all.
    /// Entries that do not decrypt are quarantined.
    public func pendingPayloads(limit: Int, maxBytes: Int, after: QueueEntry? = nil) throws(LocalStoreError) -> [QueuedPayload] {
        return try writeSealed("read the queue") { db, cipher in
            let rows = try Self.pendingRows(limit: limit, after: after.map { ($0.enqueuedAt, $0.id) }, db)
            var payloads: [QueuedPayload] = []
            var bytes = 0
            for row in rows {
                let size: Int = row["size"]
                if !payloads.isEmpty, bytes + size > maxBytes { break }
                bytes += size
                if let json = try Self.openJSON(row, cipher, source: "outbox", db) {
                    payloads.append(QueuedPayload(entry: try Self.entry(row), json: json))
                }
            }
            return payloads
        }
    }

    /// The queued record whose id starts with `prefix`.
    public func queuedRecord(idPrefix prefix: String) throws(LocalStoreError) -> QueuedRecord {
        let rows = try rows(matching: prefix, in: "outbox", listCommand: "intake queue list")
        let id: String = rows[0]["id"]
        let found = try writeSealed("read the queued record") { db, cipher -> (Row, PatientResponse?)? in
            // Read again inside the transaction, with the key of this moment.
            try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE id = ?", arguments: [id]).map {
                ($0, try Self.open($0, cipher, source: "outbox", db))
            }
        }
        guard let (row, opened) = found else {
            throw LocalStoreError("the queued record \(id.prefix(8)) is gone", fix: "see 'intake queue list'")
        }
        guard let response = opened else { throw Self.quarantined(id) }
        do {
            return QueuedRecord(entry: try Self.entry(row), response: response)
        } catch {
            throw LocalStoreError("cannot read the queue entry", fix: "the store is damaged; restore it from a backup")
        }
    }

    /// Removes records the server acknowledged (created or already stored), in one transaction.
    public func acknowledge(_ ids: [UUID]) throws(LocalStoreError) {
        guard !ids.isEmpty else { return }
        try write("remove acknowledged records") { db in
            let statement = try db.cachedStatement(sql: "DELETE FROM outbox WHERE id = ?")
            for id in ids { try statement.execute(arguments: [Self.key(id)]) }
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES ('lastSentAt', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: [String(Date().timeIntervalSince1970)])
        }
    }

    /// When the server last acknowledged records from this machine; nil before the first time.
    public func lastSent() throws(LocalStoreError) -> Date? {
        try read("read when records were last sent") { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'lastSentAt'").flatMap(Double.init).map(
                Date.init(timeIntervalSince1970:))
        }
    }

    /// Sets a record the server refused aside, with the server's reason.
    public func reject(_ id: UUID, reason: String) throws(LocalStoreError) {
        try write("set the record aside") { db in
            try db.execute(
                sql: "UPDATE outbox SET state = 'rejected', reason = ?, attempts = attempts + 1, lastAttemptAt = ? WHERE id = ?",
                arguments: [reason, Date().timeIntervalSince1970, Self.key(id)])
        }
    }

    /// Notes a failed attempt (network, server error) on records that stay pending.
    public func recordAttempt(_ ids: [UUID], reason: String) throws(LocalStoreError) {
        try write("note the attempt") { db in
            for id in ids {
                try db.execute(
                    sql: "UPDATE outbox SET attempts = attempts + 1, lastAttemptAt = ?, reason = ? WHERE id = ?",
                    arguments: [Date().timeIntervalSince1970, reason, Self.key(id)])
            }
        }
    }

    /// Puts rejected records back in line: the one named by `idPrefix`, or all of them. Returns how many.
    @discardableResult
    public func retry(idPrefix: String? = nil) throws(LocalStoreError) -> Int {
        try retry(idPrefix: idPrefix, collector: nil).retried
    }

    public func quarantined() throws(LocalStoreError) -> [QuarantineEntry] {
        try read("list the quarantine") { db in
            try Row.fetchAll(db, sql: "SELECT id, source, reason, quarantinedAt FROM quarantine ORDER BY quarantinedAt").map {
                QuarantineEntry(
                    id: $0["id"], source: $0["source"], reason: $0["reason"],
                    quarantinedAt: Date(timeIntervalSince1970: $0["quarantinedAt"]))
            }
        }
    }

    static func entry(_ row: Row) throws -> QueueEntry {
        guard let id = UUID(uuidString: row["id"]), let state = QueueEntry.State(rawValue: row["state"]) else {
            throw LocalStoreError("a queue entry is damaged", fix: "restore the store from a backup")
        }
        let lastAttempt: Double? = row["lastAttemptAt"]
        return QueueEntry(
            id: id, state: state, baseRevision: row["baseRevision"], attempts: row["attempts"],
            enqueuedAt: Date(timeIntervalSince1970: row["enqueuedAt"]), lastAttemptAt: lastAttempt.map(Date.init(timeIntervalSince1970:)),
            reason: row["reason"], size: row["size"])
    }
}

extension LocalStore {
    /// Moves a queued record back into the drafts, to edit before it is sent, in one transaction.
    public func takeOutOfQueue(id: UUID) throws(LocalStoreError) -> Draft {
        let draft = try writeSealed("take the record out of the queue") { db, cipher -> Draft? in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE id = ?", arguments: [Self.key(id)]),
                var response = try Self.open(row, cipher, source: "outbox", db)
            else { return nil }
            response.status = .draft
            let draft = Draft(response: response, cursor: QuestionPosition(section: 0, index: 1), baseRevision: row["baseRevision"])
            try db.execute(
                sql: """
                    INSERT INTO record (id, questionnaireId, questionnaireVersion, state, cursorSection, cursorIndex, answerCount,
                                        createdAt, updatedAt, baseRevision, payload)
                    VALUES (?, ?, ?, 'draft', 0, 1, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Self.key(id), response.questionnaire.id, response.questionnaire.version, response.answerCount,
                    response.createdAt.timeIntervalSince1970, response.updatedAt.timeIntervalSince1970, draft.baseRevision,
                    try cipher.seal(try response.jsonData(), id: id),
                ])
            try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [Self.key(id)])
            return draft
        }
        guard let draft else { throw LocalStoreError("the record is no longer queued", fix: "search again; it may have been uploaded") }
        return draft
    }
}

extension LocalStore {
    /// Deletes a queued record (or a quarantined entry) from this machine for good: it will never
    /// be sent. The id it had.
    public func discardFromQueue(idPrefix prefix: String) throws(LocalStoreError) -> String {
        let rows = try rows(matching: prefix, in: "outbox", listCommand: "intake queue list")
        let id: String = rows[0]["id"]
        try write("discard the queued record") { db in
            try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id])
        }
        return id
    }
}
