import Foundation
import IntakeCore
import IntakeServer
import PostgresNIO

extension PostgresRecordStore {
    public func lookup(_ query: LookupQuery) async throws -> [LookupMatch] {
        guard let sql = Self.lookupQuery(query) else { return [] }
        return try await client.query(sql, logger: Self.logger).collect().map { row in
            let (revision, body, updatedAt, score) = try row.decode((Int, String, Double, Int).self)
            let record = try RecordCodec.decode(Array(body.utf8))
            return LookupMatch(
                id: record.id, revision: revision, status: record.status, questionnaire: record.questionnaire, patient: record.patient,
                updatedAt: Self.date(updatedAt), score: score)
        }
    }

    /// The same ranking and candidates as the SQLite store: a name's prefix from the B-tree on
    /// the narrow `lookupEntry` table (byte order), its substrings (three letters or more) from
    /// the pg_trgm GIN index, date of birth and external id by equality. Only candidates are
    /// scored, and bodies are read for the page alone. nil when the query asks for nothing.
    static func lookupQuery(_ query: LookupQuery) -> PostgresQuery? {
        var binds = PostgresBindings()
        func bind(_ value: String) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        func bind(_ value: Int) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        var scores: [String] = []
        var candidates: [String] = []
        for (column, value, weights) in [
            ("familyNameKey", query.familyName, (40, 25, 10)),
            ("givenNameKey", query.givenName, (30, 20, 8)),
        ] {
            guard let value else { continue }
            let folded = NameKey.fold(value)
            guard !folded.isEmpty else { continue }
            let exact = bind(folded), high = bind(folded + "\u{10FFFF}")
            let prefix = "\(column) COLLATE \"C\" >= \(exact) AND \(column) COLLATE \"C\" < \(high)"
            scores.append(
                "CASE WHEN \(column) = \(exact) THEN \(weights.0) WHEN \(prefix) THEN \(weights.1) "
                    + "WHEN strpos(\(column), \(exact)) > 0 THEN \(weights.2) ELSE 0 END")
            candidates.append("(\(prefix))")
            if folded.unicodeScalars.count >= 3 {
                candidates.append("\(column) LIKE \(bind("%" + NameKey.likeEscaped(folded) + "%")) ESCAPE '\\'")
            }
        }
        if let birth = query.dateOfBirth {
            let value = bind(birth.description)
            scores.append("CASE WHEN dateOfBirth = \(value) THEN 30 ELSE 0 END")
            candidates.append("dateOfBirth = \(value)")
        }
        if let external = query.externalId?.trimmingCharacters(in: .whitespaces), !external.isEmpty {
            let value = bind(external.lowercased())
            scores.append("CASE WHEN externalIdKey = \(value) THEN 50 ELSE 0 END")
            candidates.append("externalIdKey = \(value)")
        }
        guard !candidates.isEmpty else { return nil }
        let team = bind(Int(query.teamId)), limit = bind(query.limit), offset = bind(query.offset)
        return PostgresQuery(
            unsafeSQL: """
                SELECT r.revision, r.body, e.updatedAt, e.score FROM (
                    SELECT recordId, updatedAt, (\(scores.joined(separator: " + "))) AS score FROM lookupEntry
                    WHERE teamId = \(team) AND (\(candidates.joined(separator: " OR ")))
                    ORDER BY score DESC, updatedAt DESC, recordId COLLATE "C" LIMIT \(limit) OFFSET \(offset)
                ) e JOIN record r ON r.id = e.recordId
                ORDER BY e.score DESC, e.updatedAt DESC, e.recordId COLLATE "C"
                """, binds: binds)
    }
}
