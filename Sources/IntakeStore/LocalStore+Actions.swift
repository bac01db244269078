import Foundation
import GRDB

/// Answers given offline, sealed with the store's key and sent in the order given by `intake flush`.
/// A newer answer to the same referral replaces one not sent yet (the last decision stands);
/// work on the patient registry (registrations, changes, consents, reports) is all kept and sent
/// in order, each change after the one before it.
extension LocalStore {
    @discardableResult
    public func enqueueAction(_ action: QueuedAction, at time: Date = Date()) throws(LocalStoreError) -> UUID {
        try writeSealed("queue an answer") { db, cipher in
            for row in try Row.fetchAll(db, sql: "SELECT id, payload FROM action") where action.kind == .referralAnswer {
                if let earlier = try Self.openAction(row, cipher, db), earlier.kind == action.kind, earlier.target == action.target {
                    try db.execute(sql: "DELETE FROM action WHERE id = ?", arguments: [row["id"] as String])
                }
            }
            let id = UUID()
            let payload: Data
            do {
                payload = try cipher.seal(try JSONEncoder().encode(action), id: id)
            } catch {
                throw LocalStoreError("cannot seal an answer", fix: "this is a bug in Intake; please report it")
            }
            try db.execute(
                sql: "INSERT INTO action (id, enqueuedAt, payload) VALUES (?, ?, ?)",
                arguments: [Self.key(id), time.timeIntervalSince1970, payload])
            return id
        }
    }

    /// How many answers wait to be sent (without unlocking the store); those set aside for a
    /// person (``setActionAside(_:reason:)``) are not counted.
    public func pendingActionCount() throws(LocalStoreError) -> Int {
        try read("count the queued answers") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM action WHERE setAside = 0") ?? 0 }
    }

    /// How many actions the server refused and are kept aside for a person.
    public func setAsideActionCount() throws(LocalStoreError) -> Int {
        try read("count the queued answers") { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM action WHERE setAside = 1") ?? 0 }
    }

    /// The server refused it for a reason a person must settle: it is kept, with the reason, and
    /// not sent again until it is replaced or discarded.
    public func setActionAside(_ id: UUID, reason: String, at time: Date = Date()) throws(LocalStoreError) {
        try write("set a queued action aside") { db in
            try db.execute(
                sql: "UPDATE action SET setAside = 1, attempts = attempts + 1, lastAttemptAt = ?, reason = ? WHERE id = ?",
                arguments: [time.timeIntervalSince1970, reason, Self.key(id)])
        }
    }

    /// The answers waiting, oldest first. One that does not decrypt is quarantined.
    public func pendingActions(includingSetAside: Bool = false) throws(LocalStoreError) -> [PendingAction] {
        guard try pendingActionCount() + (includingSetAside ? setAsideActionCount() : 0) > 0 else { return [] }
        return try writeSealed("read the queued answers") { db, cipher in
            try Row.fetchAll(
                db, sql: "SELECT * FROM action" + (includingSetAside ? "" : " WHERE setAside = 0") + " ORDER BY enqueuedAt, id"
            ).compactMap { row in
                guard let action = try Self.openAction(row, cipher, db), let id = UUID(uuidString: row["id"]) else { return nil }
                return PendingAction(
                    id: id, action: action, enqueuedAt: Date(timeIntervalSince1970: row["enqueuedAt"]), attempts: row["attempts"],
                    reason: row["reason"])
            }
        }
    }

    /// The queued action whose id starts with `prefix` (at least 4 characters), if exactly one.
    public func actionId(prefix: String) throws(LocalStoreError) -> UUID? {
        let prefix = prefix.lowercased()
        guard prefix.count >= 4 else { return nil }
        let ids = try read("find a queued action") { db in
            try String.fetchAll(db, sql: "SELECT id FROM action WHERE substr(id, 1, ?) = ?", arguments: [prefix.count, prefix])
        }
        return ids.count == 1 ? UUID(uuidString: ids[0]) : nil
    }

    /// The server took the answer (or refused it for good): it leaves the queue.
    public func removeAction(_ id: UUID) throws(LocalStoreError) {
        try write("remove a sent answer") { db in try db.execute(sql: "DELETE FROM action WHERE id = ?", arguments: [Self.key(id)]) }
    }

    /// The server could not be reached: the answer stays, with why.
    public func actionAttemptFailed(_ id: UUID, reason: String, at time: Date = Date()) throws(LocalStoreError) {
        try write("note a failed answer") { db in
            try db.execute(
                sql: "UPDATE action SET attempts = attempts + 1, lastAttemptAt = ?, reason = ? WHERE id = ?",
                arguments: [time.timeIntervalSince1970, reason, Self.key(id)])
        }
    }

    /// The answer in a row, or nil after quarantining one that does not open.
    static func openAction(_ row: Row, _ cipher: RecordCipher, _ db: Database) throws -> QueuedAction? {
        guard let plain = try openJSON(row, cipher, source: "action", db) else { return nil }
        return try? JSONDecoder().decode(QueuedAction.self, from: Data(plain))
    }
}
