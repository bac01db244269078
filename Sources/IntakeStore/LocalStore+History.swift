import Foundation
import GRDB
import IntakeCore

/// One move of a record to another questionnaire version, as the machine keeps it.
public struct RecordMove: Sendable {
    public var recordId: UUID
    public var from: String
    public var to: String
    public var movedAt: Date
    public var setAsideCount: Int
    /// The answers set aside and why (``RecordMigration/json(_:from:to:at:)``), decrypted.
    public var json: [UInt8]

    /// The questions whose answers were set aside, and why (the answers left out).
    public struct SetAside: Decodable, Sendable {
        public var question: String
        public var position: String
        public var reason: String
        public var detail: String
    }

    public var setAside: [SetAside] {
        struct Move: Decodable { var setAside: [SetAside] }
        return (try? JSONDecoder().decode(Move.self, from: Data(json)).setAside) ?? []
    }
}

extension LocalStore {
    /// Keeps a record moved to another questionnaire version, in one transaction: the record
    /// (queued again when `queue`, as a draft otherwise, whichever of the two it was before
    /// gone) and the move, with the answers set aside, sealed.
    public func saveMove(
        _ draft: Draft, queue: Bool, from: QuestionnaireReference, setAside json: [UInt8], setAsideCount: Int, at time: Date = Date()
    ) throws(LocalStoreError) {
        let id = draft.response.id
        try writeSealed("keep the record moved to \(draft.response.questionnaire)") { db, cipher in
            if queue {
                try Self.enqueue(draft.response, baseRevision: draft.baseRevision, cipher, db)
            } else {
                try Self.save(draft, cipher, db)
                try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [Self.key(id)])
            }
            try db.execute(
                sql: """
                    INSERT INTO recordHistory (recordId, fromVersion, toVersion, movedAt, setAsideCount, payload)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Self.key(id), from.description, draft.response.questionnaire.description, time.timeIntervalSince1970, setAsideCount,
                    try cipher.seal(Data(json), id: id),
                ])
        }
    }

    /// The moves of the record whose id starts with `prefix` (at least 4 characters), oldest
    /// first; none when no record of that id was moved.
    public func moves(idPrefix prefix: String) throws(LocalStoreError) -> [RecordMove] {
        let prefix = prefix.lowercased()
        guard prefix.count >= 4 else {
            throw LocalStoreError("'\(prefix)' is too short to name a record", fix: "give at least 4 characters of its id")
        }
        let ids = try read("read the records' history") { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT recordId FROM recordHistory WHERE substr(recordId, 1, ?) = ?", arguments: [prefix.count, prefix])
        }
        guard ids.count <= 1 else {
            throw LocalStoreError("'\(prefix)' starts the ids of \(ids.count) moved records", fix: "give more characters of the id")
        }
        guard let id = ids.first.flatMap(UUID.init(uuidString:)) else { return [] }
        return try moves(of: id)
    }

    /// The moves of record `id` to other questionnaire versions, oldest first.
    public func moves(of id: UUID) throws(LocalStoreError) -> [RecordMove] {
        try writeSealed("read the record's history") { db, cipher in
            try Row.fetchAll(db, sql: "SELECT * FROM recordHistory WHERE recordId = ? ORDER BY number", arguments: [Self.key(id)]).map {
                row in
                guard let plain = try? cipher.open(row["payload"] as Data, id: id) else {
                    throw LocalStoreError(
                        "a move of record \(Self.key(id).prefix(8)) does not decrypt", fix: "restore the store from a backup (intake key)")
                }
                return RecordMove(
                    recordId: id, from: row["fromVersion"], to: row["toVersion"], movedAt: Date(timeIntervalSince1970: row["movedAt"]),
                    setAsideCount: row["setAsideCount"], json: Array(plain))
            }
        }
    }
}
