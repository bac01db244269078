import Foundation
import GRDB
import IntakeCore

extension LocalStore {
    /// Saves a draft, sealed, replacing the earlier copy, in one durable transaction.
    public func save(_ draft: Draft) throws(LocalStoreError) {
        try writeSealed("save the draft") { db, cipher in try Self.save(draft, cipher, db) }
    }

    static func save(_ draft: Draft, _ cipher: RecordCipher, _ db: Database) throws {
        let response = draft.response
        let payload = try Self.seal(response, with: cipher)
        try markIfWithoutCollector(response, db)
        try db.execute(
            sql: """
                INSERT INTO record (id, questionnaireId, questionnaireVersion, state, cursorSection, cursorIndex,
                                    answerCount, createdAt, updatedAt, baseRevision, payload)
                VALUES (?, ?, ?, 'draft', ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET
                    questionnaireId = excluded.questionnaireId, questionnaireVersion = excluded.questionnaireVersion,
                    cursorSection = excluded.cursorSection, cursorIndex = excluded.cursorIndex,
                    answerCount = excluded.answerCount, updatedAt = excluded.updatedAt,
                    baseRevision = excluded.baseRevision, payload = excluded.payload
                """,
            arguments: [
                Self.key(response.id), response.questionnaire.id, response.questionnaire.version, draft.cursor?.section,
                draft.cursor?.index, response.answerCount, response.createdAt.timeIntervalSince1970,
                response.updatedAt.timeIntervalSince1970, draft.baseRevision, payload,
            ])
    }

    /// The draft with this id, if any.
    public func draft(id: UUID) throws(LocalStoreError) -> Draft? {
        let found = try writeSealed("read the draft") { db, cipher -> Draft?? in
            try Row.fetchOne(db, sql: "SELECT * FROM record WHERE id = ?", arguments: [Self.key(id)]).map { try Self.draft($0, cipher, db) }
        }
        guard let found else { return nil }
        guard let draft = found else { throw Self.quarantined(Self.key(id)) }
        return draft
    }

    /// The draft whose id starts with `prefix` (at least 4 characters), as shown by `drafts list`.
    public func draft(idPrefix prefix: String) throws(LocalStoreError) -> Draft {
        let rows = try rows(matching: prefix, in: "record", listCommand: "intake drafts list")
        let id: String = rows[0]["id"]
        let found = try writeSealed("read the draft") { db, cipher -> Draft?? in
            // Read again inside the transaction, with the key of this moment.
            try Row.fetchOne(db, sql: "SELECT * FROM record WHERE id = ?", arguments: [id]).map { try Self.draft($0, cipher, db) }
        }
        guard let found else { throw LocalStoreError("the draft \(id.prefix(8)) is gone", fix: "see 'intake drafts list'") }
        guard let draft = found else { throw Self.quarantined(id) }
        return draft
    }

    /// Every draft, most recently changed first. Drafts that do not decrypt are quarantined.
    public func summaries() throws(LocalStoreError) -> [DraftSummary] {
        try drafts().map { draft in
            DraftSummary(
                id: draft.response.id, questionnaire: draft.response.questionnaire, answerCount: draft.response.answerCount,
                cursor: draft.cursor, initials: draft.response.patient.initials, baseRevision: draft.baseRevision,
                createdAt: draft.response.createdAt, updatedAt: draft.response.updatedAt)
        }
    }

    /// How many drafts of a questionnaire the store holds, without unlocking it.
    public func draftCount(questionnaireId: String) throws(LocalStoreError) -> Int {
        try read("count the drafts") { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM record WHERE questionnaireId = ?", arguments: [questionnaireId]) ?? 0
        }
    }

    /// How many drafts the store holds (every questionnaire), without unlocking it.
    public func draftCount() throws(LocalStoreError) -> Int {
        try read("count the drafts") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record") ?? 0 }
    }

    /// Every draft, decrypted, most recently changed first.
    public func drafts() throws(LocalStoreError) -> [Draft] {
        return try writeSealed("list the drafts") { db, cipher in
            try Row.fetchAll(db, sql: "SELECT * FROM record ORDER BY updatedAt DESC").compactMap { try Self.draft($0, cipher, db) }
        }
    }

    /// Deletes a draft. Returns false when there was none.
    @discardableResult
    public func discard(id: UUID) throws(LocalStoreError) -> Bool {
        try write("discard the draft") { db in
            try db.execute(sql: "DELETE FROM record WHERE id = ?", arguments: [Self.key(id)])
            return db.changesCount > 0
        }
    }

    static func key(_ id: UUID) -> String { id.uuidString.lowercased() }

    static func seal(_ response: PatientResponse, with cipher: RecordCipher) throws(LocalStoreError) -> Data {
        do {
            return try cipher.seal(try response.jsonData(), id: response.id)
        } catch {
            throw LocalStoreError("cannot seal the record", fix: "this is a bug in Intake; please report it")
        }
    }

    /// Rows of `table` whose id starts with `prefix`; exactly one, or an error saying what to do.
    func rows(matching prefix: String, in table: String, listCommand: String) throws(LocalStoreError) -> [Row] {
        let prefix = prefix.lowercased()
        guard prefix.count >= 4, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw LocalStoreError(
                "'\(prefix)' is not a record id", fix: "give at least the first 4 characters of an id from '\(listCommand)'")
        }
        let rows = try read("find the record") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE id LIKE ? LIMIT 2", arguments: [prefix + "%"])
        }
        guard rows.count == 1 else {
            throw rows.isEmpty
                ? LocalStoreError("no record here has an id starting with '\(prefix)'", fix: "see '\(listCommand)' for the ids")
                : LocalStoreError("more than one record has an id starting with '\(prefix)'", fix: "give more characters of the id")
        }
        return rows
    }

    /// Opens a draft row; one that does not decrypt is moved to quarantine and gives nil.
    static func draft(_ row: Row, _ cipher: RecordCipher, _ db: Database) throws -> Draft? {
        guard let response = try open(row, cipher, source: "record", db) else { return nil }
        let section: Int? = row["cursorSection"]
        let index: Int? = row["cursorIndex"]
        let cursor = section.flatMap { s in index.map { QuestionPosition(section: s, index: $0) } }
        return Draft(response: response, cursor: cursor, baseRevision: row["baseRevision"])
    }

    /// The record sealed in a row of `source`, or nil after quarantining a row that does not open.
    static func open(_ row: Row, _ cipher: RecordCipher, source: String, _ db: Database) throws -> PatientResponse? {
        let id: String = row["id"]
        if let plain = try openJSON(row, cipher, source: source, db) {
            if let uuid = UUID(uuidString: id), let response = try? PatientResponse(jsonData: plain), response.id == uuid {
                return response
            }
            try quarantine(row, source: source, db)
        }
        return nil
    }

    /// The payload's plaintext JSON, or nil after quarantining a payload that does not decrypt.
    static func openJSON(_ row: Row, _ cipher: RecordCipher, source: String, _ db: Database) throws -> [UInt8]? {
        let id: String = row["id"]
        let payload: Data = row["payload"]
        if let uuid = UUID(uuidString: id), let plain = try? cipher.open(payload, id: uuid) { return Array(plain) }
        try quarantine(row, source: source, db)
        return nil
    }

    private static func quarantine(_ row: Row, source: String, _ db: Database) throws {
        let id: String = row["id"]
        let payload: Data = row["payload"]
        try db.execute(
            sql: "INSERT INTO quarantine (id, source, reason, quarantinedAt, payload) VALUES (?, ?, ?, ?, ?)",
            arguments: [
                id, source, "does not decrypt with this store's key (damaged or tampered with)", Date().timeIntervalSince1970, payload,
            ])
        try db.execute(sql: "DELETE FROM \(source) WHERE id = ?", arguments: [id])
    }

    static func quarantined(_ id: String) -> LocalStoreError {
        LocalStoreError(
            "record \(id.prefix(8)) is damaged or was tampered with and cannot be decrypted",
            fix: "it was moved to quarantine ('intake queue list' shows it); the other records are unaffected")
    }
}
