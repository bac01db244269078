import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    public func lookup(_ query: LookupQuery) async throws -> [LookupMatch] {
        try await LookupRanking.lookup(query, in: SQLiteLookupIndex(database: database))
    }
}

/// The SQLite store's lookup index: the narrow `lookupEntry` table (kept by triggers on
/// `record`), newest-first B-trees per name key and per pair of keys, and the vocabulary
/// `lookupKey` with its FTS5 trigram index `lookupKeyName` for substrings.
struct SQLiteLookupIndex: LookupIndex {
    let database: DatabasePool

    func nameKeys(team: Int64, field: NameField, matching folded: String, substrings: Bool) async throws -> [String] {
        try await database.read { db in
            var keys = try String.fetchAll(
                db,
                sql: "SELECT key FROM lookupKey WHERE teamId = ? AND field = ? AND key >= ? AND key < ?",
                arguments: [team, field.rawValue, folded, folded + "\u{10FFFF}"])
            if substrings {
                keys += try String.fetchAll(
                    db,
                    sql: """
                        SELECT k.key FROM lookupKeyName f JOIN lookupKey k ON k.keyId = f.rowid
                        WHERE lookupKeyName MATCH ? AND k.teamId = ? AND k.field = ?
                        """,
                    arguments: ["\"" + folded.replacingOccurrences(of: "\"", with: "\"\"") + "\"", team, field.rawValue])
            }
            return Array(Set(keys))
        }
    }

    func newest(team: Int64, family: [String]?, given: [String]?, limit: Int) async throws -> [LookupEntry] {
        var conditions = ["teamId = ?"]
        var arguments: StatementArguments = [team]
        for (column, keys) in [("familyNameKey", family), ("givenNameKey", given)] {
            guard let keys else { continue }
            conditions.append("\(column) IN (\(databaseQuestionMarks(count: keys.count)))")
            arguments += StatementArguments(keys)
        }
        arguments += [limit]
        let (sql, bound) = (
            """
            SELECT recordId, updatedAt, familyNameKey, givenNameKey, dateOfBirth, externalIdKey FROM lookupEntry
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY updatedAt DESC, recordId LIMIT ?
            """, arguments
        )
        return try await database.read { db in try Row.fetchAll(db, sql: sql, arguments: bound).map(Self.entry) }
    }

    func entries(team: Int64, dateOfBirth: String?, externalIdKey: String?, limit: Int) async throws -> [LookupEntry] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT recordId, updatedAt, familyNameKey, givenNameKey, dateOfBirth, externalIdKey FROM lookupEntry
                    WHERE teamId = ? AND dateOfBirth = ?
                    UNION
                    SELECT recordId, updatedAt, familyNameKey, givenNameKey, dateOfBirth, externalIdKey FROM lookupEntry
                    WHERE teamId = ? AND externalIdKey = ?
                    LIMIT ?
                    """,
                arguments: [team, dateOfBirth, team, externalIdKey, limit]
            ).map(Self.entry)
        }
    }

    func records(ids: [String]) async throws -> [String: (revision: Int, body: [UInt8], collector: String)] {
        guard !ids.isEmpty else { return [:] }
        return try await database.read { db in
            var found: [String: (revision: Int, body: [UInt8], collector: String)] = [:]
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT id, revision, body, collector FROM record WHERE id IN (\(databaseQuestionMarks(count: ids.count))) AND deletedAt IS NULL",
                arguments: StatementArguments(ids))
            {
                found[row["id"]] = (row["revision"], Array((row["body"] as String).utf8), row["collector"])
            }
            return found
        }
    }

    private static func entry(_ row: Row) -> LookupEntry {
        LookupEntry(
            recordId: row["recordId"], updatedAt: row["updatedAt"], familyNameKey: row["familyNameKey"], givenNameKey: row["givenNameKey"],
            dateOfBirth: row["dateOfBirth"], externalIdKey: row["externalIdKey"])
    }
}
