import Foundation
import GRDB
import IntakeCore

/// Records filled before anyone signed in on this machine carry no collector
/// (``PatientResponse/collectorToCome``); they are sent as the account that signs in here.
extension LocalStore {
    /// How many new records (drafts and queued, not edits of server records) have no collector
    /// yet. Reads nothing sealed unless such a record was ever saved here (a mark in `meta`).
    public func countWithoutCollector() throws(LocalStoreError) -> Int {
        guard try read("find records without a collector", { db in try Self.mayLackCollector(db) }) else { return 0 }
        return try writeSealed("find records without a collector") { db, cipher in
            let count = try Self.newRecordRows(db).filter { try Self.lacksCollector($0.row, $0.table, cipher, db) }.count
            if count == 0 { try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [Self.collectorMark]) }
            return count
        }
    }

    /// The mark in `meta` saying that a record without a collector was saved here since the
    /// last time every record was given one.
    static let collectorMark = "collectorToCome"

    /// Marks that `response` is saved without a collector (see ``countWithoutCollector()``).
    static func markIfWithoutCollector(_ response: PatientResponse, _ db: Database) throws {
        guard response.collector == PatientResponse.collectorToCome else { return }
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING", arguments: [collectorMark])
    }

    private static func mayLackCollector(_ db: Database) throws -> Bool {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [collectorMark]) != nil
    }

    /// Gives every new record without a collector (drafts and queued) this one, in one
    /// transaction. Returns how many were given it.
    @discardableResult
    public func giveCollector(_ collector: String) throws(LocalStoreError) -> Int {
        guard !collector.isEmpty, try read("find records without a collector", { db in try Self.mayLackCollector(db) }) else { return 0 }
        return try writeSealed("give records their collector") { db, cipher in
            defer { try? db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [Self.collectorMark]) }
            var given = 0
            for (row, table) in try Self.newRecordRows(db) where try Self.lacksCollector(row, table, cipher, db) {
                guard var response = try Self.open(row, cipher, source: table, db) else { continue }
                response.collector = collector
                try Self.reseal(response, in: table, cipher, db)
                // One the server set aside for having no collector goes back in line with it.
                if table == "outbox" {
                    try db.execute(
                        sql: "UPDATE outbox SET state = 'pending', reason = NULL WHERE id = ?", arguments: [Self.key(response.id)])
                }
                given += 1
            }
            return given
        }
    }

    /// Puts queued records back in line (the one named by `idPrefix`, or every one set aside);
    /// with a `collector`, the new ones among them are given it first (an edit of a server record
    /// keeps the collector it was stored with). Returns how many were put back and how many of
    /// them took the collector.
    public func retry(idPrefix: String?, collector: String?) throws(LocalStoreError) -> (retried: Int, changed: Int) {
        let ids: [String]
        if let idPrefix {
            ids = [try rows(matching: idPrefix, in: "outbox", listCommand: "intake queue list")[0]["id"]]
        } else {
            ids = try read("list rejected records") { db in try String.fetchAll(db, sql: "SELECT id FROM outbox WHERE state = 'rejected'") }
        }
        guard let collector else {
            // Nothing to open: the store need not be unlocked.
            return try write("retry records") { db in
                for id in ids { try db.execute(sql: "UPDATE outbox SET state = 'pending', reason = NULL WHERE id = ?", arguments: [id]) }
                return (ids.count, 0)
            }
        }
        return try writeSealed("retry records with their collector") { db, cipher in
            var changed = 0
            for id in ids {
                guard let row = try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE id = ?", arguments: [id]) else { continue }
                let baseRevision: Int? = row["baseRevision"]
                let reason: String? = row["reason"]
                // Named by its id, a new record takes the collector; of all those set aside, only
                // those refused for their collector (or without one) do.
                let forCollector = idPrefix != nil || (reason ?? "").contains("collector")
                if baseRevision == nil, var response = try Self.open(row, cipher, source: "outbox", db), response.collector != collector,
                    forCollector || response.collector == PatientResponse.collectorToCome
                {
                    response.collector = collector
                    try Self.reseal(response, in: "outbox", cipher, db)
                    changed += 1
                }
                try db.execute(sql: "UPDATE outbox SET state = 'pending', reason = NULL WHERE id = ?", arguments: [id])
            }
            return (ids.count, changed)
        }
    }

    /// Whether a queued record's JSON (as ``pendingPayloads(limit:maxBytes:after:)`` gives it) has no
    /// collector yet: such a record is not sent (the server would refuse it) until someone signs
    /// in and ``giveCollector(_:)`` gives it one.
    public static func lacksCollector(json: [UInt8]) -> Bool {
        guard ByteSearch.contains(collectorToCome, in: json) else { return false }
        return (try? PatientResponse(jsonData: json))?.collector == PatientResponse.collectorToCome
    }

    private static let collectorToCome = Array(#""collector":"""#.utf8)

    /// Drafts and queued records that are not edits of a server record, with their table.
    private static func newRecordRows(_ db: Database) throws -> [(row: Row, table: String)] {
        try Row.fetchAll(db, sql: "SELECT * FROM record WHERE baseRevision IS NULL").map { ($0, "record") }
            + Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE baseRevision IS NULL").map { ($0, "outbox") }
    }

    /// The canonical JSON names its collector once, as `"collector":"…"`; only a record whose
    /// bytes hold `"collector":""` is opened to be sure (a compound's field could be so named).
    private static func lacksCollector(_ row: Row, _ table: String, _ cipher: RecordCipher, _ db: Database) throws -> Bool {
        guard let json = try openJSON(row, cipher, source: table, db), ByteSearch.contains(collectorToCome, in: json) else { return false }
        return try open(row, cipher, source: table, db)?.collector == PatientResponse.collectorToCome
    }

    private static func reseal(_ response: PatientResponse, in table: String, _ cipher: RecordCipher, _ db: Database) throws {
        let payload = try seal(response, with: cipher)
        let size = table == "outbox" ? ", size = \(payload.count)" : ""
        try db.execute(sql: "UPDATE \(table) SET payload = ?\(size) WHERE id = ?", arguments: [payload, key(response.id)])
    }
}
