import Foundation
import GRDB

/// Small documents kept sealed like drafts, by name: copies of what the server said (the last
/// fetched inbox), so a field worker offline still sees them. Each save replaces the last.
extension LocalStore {
    public func saveDocument(_ name: String, _ data: Data, at time: Date = Date()) throws(LocalStoreError) {
        try writeSealed("save \(name)") { db, cipher in
            let id = UUID()
            let payload: Data
            do {
                payload = try cipher.seal(data, id: id)
            } catch {
                throw LocalStoreError("cannot seal \(name)", fix: "this is a bug in Intake; please report it")
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO document (name, id, savedAt, payload) VALUES (?, ?, ?, ?)",
                arguments: [name, Self.key(id), time.timeIntervalSince1970, payload])
        }
    }

    /// The document saved under `name` and when; nil when there is none, or it no longer opens.
    public func document(_ name: String) throws(LocalStoreError) -> (data: Data, savedAt: Date)? {
        guard
            try read("read \(name)", { db in try Int.fetchOne(db, sql: "SELECT 1 FROM document WHERE name = ?", arguments: [name]) }) != nil
        else { return nil }
        return try writeSealed("read \(name)") { db, cipher in
            guard let row = try Row.fetchOne(db, sql: "SELECT id, savedAt, payload FROM document WHERE name = ?", arguments: [name]),
                let id = UUID(uuidString: row["id"]), let plain = try? cipher.open(row["payload"] as Data, id: id)
            else { return nil }
            return (Data(plain), Date(timeIntervalSince1970: row["savedAt"]))
        }
    }
}
