import Foundation
import GRDB
import IntakeCore

extension SQLiteRecordStore {
    public func lookup(_ query: LookupQuery) async throws -> [LookupMatch] {
        let (score, filter, arguments) = Self.lookupSQL(query)
        guard !filter.isEmpty else { return [] }
        return try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, revision, status, body, updatedAt, \(score) AS score FROM record
                    WHERE teamId = :team AND (\(filter.joined(separator: " OR ")))
                    ORDER BY score DESC, updatedAt DESC, id LIMIT :limit OFFSET :offset
                    """,
                arguments: arguments
            ).map { row in
                let record = try PatientResponse(jsonData: Data((row["body"] as String).utf8))
                return LookupMatch(
                    id: record.id, revision: row["revision"], status: record.status, questionnaire: record.questionnaire,
                    patient: record.patient, updatedAt: Self.date(row["updatedAt"]), score: row["score"])
            }
        }
    }

    /// The score expression, the OR-ed match conditions and their arguments. Exact matches score
    /// highest, then prefixes, then substrings; portable SQL (CASE, LIKE … ESCAPE).
    static func lookupSQL(_ query: LookupQuery) -> (score: String, filter: [String], arguments: StatementArguments) {
        var scores: [String] = []
        var filter: [String] = []
        var arguments: [String: (any DatabaseValueConvertible)?] = ["team": query.teamId, "limit": query.limit, "offset": query.offset]
        for (column, name, value, weights) in [
            ("familyNameKey", "family", query.familyName, (40, 25, 10)),
            ("givenNameKey", "given", query.givenName, (30, 20, 8)),
        ] {
            guard let value, !NameKey.fold(value).isEmpty else { continue }
            let folded = NameKey.fold(value), escaped = NameKey.likeEscaped(folded)
            arguments[name] = folded
            arguments[name + "Prefix"] = escaped + "%"
            arguments[name + "Any"] = "%" + escaped + "%"
            scores.append(
                """
                CASE WHEN \(column) = :\(name) THEN \(weights.0) WHEN \(column) LIKE :\(name)Prefix ESCAPE '\\' THEN \(weights.1) \
                WHEN \(column) LIKE :\(name)Any ESCAPE '\\' THEN \(weights.2) ELSE 0 END
                """)
            filter.append("\(column) LIKE :\(name)Any ESCAPE '\\'")
        }
        if let birth = query.dateOfBirth {
            arguments["birth"] = birth.description
            scores.append("CASE WHEN dateOfBirth = :birth THEN 30 ELSE 0 END")
            filter.append("dateOfBirth = :birth")
        }
        if let external = query.externalId?.trimmingCharacters(in: .whitespaces), !external.isEmpty {
            arguments["external"] = external.lowercased()
            scores.append("CASE WHEN LOWER(externalId) = :external THEN 50 ELSE 0 END")
            filter.append("LOWER(externalId) = :external")
        }
        return (scores.isEmpty ? "0" : scores.joined(separator: " + "), filter, StatementArguments(arguments))
    }
}
