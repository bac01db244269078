import Foundation
import GRDB
import IntakeCore

/// The synced copy: what the user's team holds on the server, sealed like drafts, kept up to
/// date from the change feed (`intake sync`), searched offline (`intake lookup --offline`).
/// It is a copy: a row that no longer opens is dropped, not quarantined, and comes back with
/// the next sync from the start.
extension LocalStore {
    /// Applies one page of the feed in one transaction: drops the whole copy first when `reset`,
    /// or when it was a copy of another server or team; then saves and removes records and moves
    /// the cursor. A crash leaves the copy at the last page applied.
    public func applySynced(_ changes: [SyncedChange], cursor: Int64, server: String, team: String, reset: Bool, at time: Date = Date())
        throws(LocalStoreError)
    {
        try writeSealed("update the synced copy") { db, cipher in
            let state = try Self.syncMeta(db)
            if reset || state["sync.server"] != server || state["sync.team"] != team {
                try db.execute(sql: "DELETE FROM synced")
            }
            for change in changes {
                switch change {
                case .saved(let response, let revision, let cursor, let updatedAt):
                    let payload = try Self.seal(response, with: cipher)
                    try db.execute(
                        sql: """
                            INSERT INTO synced (id, cursor, revision, updatedAt, payload) VALUES (?, ?, ?, ?, ?)
                            ON CONFLICT (id) DO UPDATE SET cursor = excluded.cursor, revision = excluded.revision,
                                updatedAt = excluded.updatedAt, payload = excluded.payload
                            """,
                        arguments: [Self.key(response.id), cursor, revision, updatedAt.timeIntervalSince1970, payload])
                case .removed(let id, _):
                    try db.execute(sql: "DELETE FROM synced WHERE id = ?", arguments: [Self.key(id)])
                }
            }
            for (key, value) in [
                ("sync.server", server), ("sync.team", team), ("sync.cursor", String(cursor)),
                ("sync.at", String(time.timeIntervalSince1970)),
            ] {
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
            }
        }
    }

    /// Where the copy stands; nil before the first sync.
    public func syncState() throws(LocalStoreError) -> SyncState? {
        try read("read the synced copy's state") { db in
            let meta = try Self.syncMeta(db)
            guard let server = meta["sync.server"], let team = meta["sync.team"], let cursor = meta["sync.cursor"].flatMap(Int64.init),
                let at = meta["sync.at"].flatMap(Double.init)
            else { return nil }
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM synced") ?? 0
            return SyncState(server: server, team: team, cursor: cursor, syncedAt: Date(timeIntervalSince1970: at), count: count)
        }
    }

    /// Drops the whole copy and its state (the user lost access, or asked).
    public func clearSynced() throws(LocalStoreError) {
        try write("clear the synced copy") { db in
            try db.execute(sql: "DELETE FROM synced")
            try db.execute(sql: "DELETE FROM meta WHERE key LIKE 'sync.%'")
        }
    }

    /// Every record of the copy, opened; rows that no longer open are dropped.
    public func syncedRecords() throws(LocalStoreError) -> [SyncedRecord] {
        try writeSealed("read the synced copy") { db, cipher in
            var records: [SyncedRecord] = []
            for row in try Row.fetchAll(db, sql: "SELECT * FROM synced ORDER BY updatedAt DESC, id") {
                guard let record = try Self.synced(row, cipher, db) else { continue }
                records.append(record)
            }
            return records
        }
    }

    public func syncedRecord(id: UUID) throws(LocalStoreError) -> SyncedRecord? {
        try writeSealed("read the synced copy") { db, cipher in
            try Row.fetchOne(db, sql: "SELECT * FROM synced WHERE id = ?", arguments: [Self.key(id)]).flatMap {
                try Self.synced($0, cipher, db)
            }
        }
    }

    static func synced(_ row: Row, _ cipher: RecordCipher, _ db: Database) throws -> SyncedRecord? {
        let key: String = row["id"]
        guard let id = UUID(uuidString: key), let plain = try? cipher.open(row["payload"] as Data, id: id),
            let response = try? PatientResponse(jsonData: plain), response.id == id
        else {
            try db.execute(sql: "DELETE FROM synced WHERE id = ?", arguments: [key])
            try db.execute(sql: "UPDATE meta SET value = '0' WHERE key = 'sync.cursor'")
            return nil
        }
        return SyncedRecord(response: response, revision: row["revision"], updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
    }

    static func syncMeta(_ db: Database) throws -> [String: String] {
        Dictionary(
            try Row.fetchAll(db, sql: "SELECT key, value FROM meta WHERE key LIKE 'sync.%'").map {
                ($0["key"] as String, $0["value"] as String)
            },
            uniquingKeysWith: { first, _ in first })
    }
}
