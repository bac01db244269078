import Foundation
import GRDB
import IntakeCore

extension LocalStore {
    /// Saves a draft or complete record, replacing the earlier copy, in one durable transaction.
    public func save(_ draft: Draft) throws(LocalStoreError) {
        let payload: Data
        do {
            payload = try draft.response.jsonData()
        } catch {
            throw LocalStoreError("cannot encode the record", fix: "this is a bug in Intake; please report it")
        }
        let response = draft.response
        try write("save the record") { db in
            try db.execute(
                sql: """
                    INSERT INTO record (id, questionnaireId, questionnaireVersion, state, cursorSection, cursorIndex,
                                        answerCount, createdAt, updatedAt, payload)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET
                        questionnaireId = excluded.questionnaireId, questionnaireVersion = excluded.questionnaireVersion,
                        state = excluded.state, cursorSection = excluded.cursorSection, cursorIndex = excluded.cursorIndex,
                        answerCount = excluded.answerCount, updatedAt = excluded.updatedAt, payload = excluded.payload
                    """,
                arguments: [
                    Self.key(response.id), response.questionnaire.id, response.questionnaire.version,
                    response.status.rawValue, draft.cursor?.section, draft.cursor?.index, response.answerCount,
                    response.createdAt.timeIntervalSince1970, response.updatedAt.timeIntervalSince1970, payload,
                ])
        }
    }

    /// The stored record with this id, if any.
    public func draft(id: UUID) throws(LocalStoreError) -> Draft? {
        try read("read the record") { db in
            try Row.fetchOne(db, sql: "SELECT * FROM record WHERE id = ?", arguments: [Self.key(id)]).map(Self.draft)
        }
    }

    /// The record whose id starts with `prefix` (at least 4 characters), as shown by `drafts list`.
    public func draft(idPrefix prefix: String) throws(LocalStoreError) -> Draft {
        let prefix = prefix.lowercased()
        guard prefix.count >= 4, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw LocalStoreError(
                "'\(prefix)' is not a record id", fix: "give at least the first 4 characters of an id from 'intake drafts list'")
        }
        let rows = try read("find the record") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM record WHERE id LIKE ? ORDER BY updatedAt DESC LIMIT 2", arguments: [prefix + "%"])
        }
        guard rows.count == 1 else {
            throw rows.isEmpty
                ? LocalStoreError("no local record has an id starting with '\(prefix)'", fix: "see 'intake drafts list --all' for the ids")
                : LocalStoreError("more than one record has an id starting with '\(prefix)'", fix: "give more characters of the id")
        }
        do {
            return try Self.draft(rows[0])
        } catch {
            throw LocalStoreError("cannot read the record \(prefix)", fix: "the stored copy is damaged or was written by a newer Intake")
        }
    }

    /// Summaries of local records, most recently changed first.
    public func summaries(including states: Set<PatientResponse.Status> = [.draft]) throws(LocalStoreError) -> [DraftSummary] {
        let placeholders = Array(repeating: "?", count: states.count).joined(separator: ", ")
        return try read("list the records") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM record WHERE state IN (\(placeholders)) ORDER BY updatedAt DESC",
                arguments: StatementArguments(states.map(\.rawValue).sorted())
            ).map { row in
                let draft = try Self.draft(row)
                return DraftSummary(
                    id: draft.response.id, questionnaire: draft.response.questionnaire, status: draft.response.status,
                    answerCount: row["answerCount"], cursor: draft.cursor, initials: draft.response.patient.initials,
                    createdAt: draft.response.createdAt, updatedAt: draft.response.updatedAt)
            }
        }
    }

    /// Deletes a local record. Returns false when there was none.
    @discardableResult
    public func discard(id: UUID) throws(LocalStoreError) -> Bool {
        try write("discard the record") { db in
            try db.execute(sql: "DELETE FROM record WHERE id = ?", arguments: [Self.key(id)])
            return db.changesCount > 0
        }
    }

    static func key(_ id: UUID) -> String { id.uuidString.lowercased() }

    static func draft(_ row: Row) throws -> Draft {
        let payload: Data = row["payload"]
        let response = try PatientResponse(jsonData: payload)
        let section: Int? = row["cursorSection"]
        let index: Int? = row["cursorIndex"]
        let cursor = section.flatMap { s in index.map { QuestionPosition(section: s, index: $0) } }
        return Draft(response: response, cursor: cursor)
    }
}
