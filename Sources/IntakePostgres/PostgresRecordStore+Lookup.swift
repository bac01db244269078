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

    /// The same ranking as the SQLite store: exact matches score highest, then prefixes, then
    /// substrings, plus date of birth and external id; nil when the query asks for nothing.
    static func lookupQuery(_ query: LookupQuery) -> PostgresQuery? {
        var binds = PostgresBindings()
        func bind(_ value: some PostgresEncodable & Sendable) -> String {
            try! binds.append(value)
            return "$\(binds.count)"
        }
        var scores: [String] = []
        var filter: [String] = []
        for (column, value, weights) in [
            ("familyNameKey", query.familyName, (40, 25, 10)),
            ("givenNameKey", query.givenName, (30, 20, 8)),
        ] {
            guard let value, !NameKey.fold(value).isEmpty else { continue }
            let folded = NameKey.fold(value), escaped = NameKey.likeEscaped(folded)
            let exact = bind(folded), prefix = bind(escaped + "%"), any = bind("%" + escaped + "%")
            scores.append(
                """
                CASE WHEN \(column) = \(exact) THEN \(weights.0) WHEN \(column) LIKE \(prefix) ESCAPE '\\' THEN \(weights.1) \
                WHEN \(column) LIKE \(any) ESCAPE '\\' THEN \(weights.2) ELSE 0 END
                """)
            filter.append("\(column) LIKE \(any) ESCAPE '\\'")
        }
        if let birth = query.dateOfBirth {
            let value = bind(birth.description)
            scores.append("CASE WHEN dateOfBirth = \(value) THEN 30 ELSE 0 END")
            filter.append("dateOfBirth = \(value)")
        }
        if let external = query.externalId?.trimmingCharacters(in: .whitespaces), !external.isEmpty {
            let value = bind(external.lowercased())
            scores.append("CASE WHEN LOWER(externalId) = \(value) THEN 50 ELSE 0 END")
            filter.append("LOWER(externalId) = \(value)")
        }
        guard !filter.isEmpty else { return nil }
        let team = bind(query.teamId), limit = bind(query.limit), offset = bind(query.offset)
        return PostgresQuery(
            unsafeSQL: """
                SELECT revision, body, updatedAt, (\(scores.joined(separator: " + "))) AS score FROM record
                WHERE teamId = \(team) AND (\(filter.joined(separator: " OR ")))
                ORDER BY score DESC, updatedAt DESC, id LIMIT \(limit) OFFSET \(offset)
                """, binds: binds)
    }
}
