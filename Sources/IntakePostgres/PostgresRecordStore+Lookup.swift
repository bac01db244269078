import Foundation
import IntakeCore
import IntakeService
import Logging
import PostgresNIO

extension PostgresRecordStore {
    public func lookup(_ query: LookupQuery) async throws -> [LookupMatch] {
        try await LookupRanking.lookup(query, in: PostgresLookupIndex(client: client))
    }
}

/// The PostgreSQL store's lookup index: the narrow `lookupEntry` table (kept by a trigger on
/// `record`), newest-first B-trees per name key and per pair of keys, and the vocabulary
/// `lookupKey` with a pg_trgm GIN index for substrings.
struct PostgresLookupIndex: LookupIndex {
    let client: PostgresClient
    var logger: Logger { PostgresRecordStore.logger }

    func nameKeys(team: Int64, field: NameField, matching folded: String, substrings: Bool) async throws -> [String] {
        var keys: [String] = []
        let prefix = try await client.query(
            """
            SELECT key FROM lookupKey WHERE teamId = \(team) AND field = \(field.rawValue)
            AND key COLLATE "C" >= \(folded) AND key COLLATE "C" < \(folded + "\u{10FFFF}")
            """, logger: logger)
        for try await key in prefix.decode(String.self) { keys.append(key) }
        if substrings {
            let pattern = "%" + NameKey.likeEscaped(folded) + "%"
            let containing = try await client.query(
                """
                SELECT key FROM lookupKey WHERE teamId = \(team) AND field = \(field.rawValue)
                AND key LIKE \(pattern) ESCAPE '\\'
                """, logger: logger)
            for try await key in containing.decode(String.self) { keys.append(key) }
        }
        return Array(Set(keys))
    }

    func newest(team: Int64, family: [String]?, given: [String]?, limit: Int) async throws -> [LookupEntry] {
        var binds = PostgresBindings()
        binds.append(team)
        var conditions = ["teamId = $1"]
        for (column, keys) in [("familyNameKey", family), ("givenNameKey", given)] {
            guard let keys else { continue }
            // One key as `=`, so the newest-first index is read in order and stops at the limit
            // (`= ANY` of an array makes PostgreSQL read every match and sort).
            if keys.count == 1 {
                binds.append(keys[0])
                conditions.append("\(column) = $\(binds.count)")
            } else {
                binds.append(keys)
                conditions.append("\(column) = ANY($\(binds.count))")
            }
        }
        binds.append(limit)
        return try await entries(
            PostgresQuery(
                unsafeSQL: """
                    SELECT recordId, updatedAt, familyNameKey, givenNameKey, dateOfBirth, externalIdKey FROM lookupEntry
                    WHERE \(conditions.joined(separator: " AND ")) ORDER BY updatedAt DESC, recordId COLLATE "C" LIMIT $\(binds.count)
                    """, binds: binds))
    }

    func entries(team: Int64, dateOfBirth: String?, externalIdKey: String?, limit: Int) async throws -> [LookupEntry] {
        try await entries(
            """
            SELECT recordId, updatedAt, familyNameKey, givenNameKey, dateOfBirth, externalIdKey FROM lookupEntry
            WHERE teamId = \(team) AND (dateOfBirth = \(dateOfBirth) OR externalIdKey = \(externalIdKey)) LIMIT \(limit)
            """)
    }

    private func entries(_ query: PostgresQuery) async throws -> [LookupEntry] {
        try await client.query(query, logger: logger).collect().map { row in
            let (recordId, updatedAt, family, given, birth, external) = try row.decode(
                (String, Double, String, String, String?, String?).self)
            return LookupEntry(
                recordId: recordId, updatedAt: updatedAt, familyNameKey: family, givenNameKey: given, dateOfBirth: birth,
                externalIdKey: external)
        }
    }

    func records(ids: [String]) async throws -> [String: (revision: Int, body: [UInt8], collector: String)] {
        guard !ids.isEmpty else { return [:] }
        var found: [String: (revision: Int, body: [UInt8], collector: String)] = [:]
        let rows = try await client.query(
            "SELECT id, revision, body, collector FROM record WHERE id = ANY(\(ids)) AND deletedAt IS NULL", logger: logger)
        for try await (id, revision, body, collector) in rows.decode((String, Int, ByteBuffer, String).self) {
            found[id] = (revision, Array(body.readableBytesView), collector)
        }
        return found
    }
}
