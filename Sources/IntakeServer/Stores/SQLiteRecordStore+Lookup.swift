import Foundation
import GRDB
import IntakeCore

extension SQLiteRecordStore {
    public func lookup(_ query: LookupQuery) async throws -> [LookupMatch] {
        guard let (sql, arguments) = Self.lookupSQL(query) else { return [] }
        return try await database.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let record = try PatientResponse(jsonData: Data((row["body"] as String).utf8))
                return LookupMatch(
                    id: record.id, revision: row["revision"], status: record.status, questionnaire: record.questionnaire,
                    patient: record.patient, updatedAt: Self.date(row["updatedAt"]), score: row["score"])
            }
        }
    }

    /// The lookup as one statement, nil when the query asks for nothing.
    ///
    /// Candidates come from indexes only: a name's prefix from the B-tree on the narrow
    /// `lookupEntry` table, its substrings (three letters or more) from the FTS5 trigram index
    /// `lookupName`, date of birth and external id by equality. Only candidates are scored
    /// (exact 40/30, prefix 25/20, substring 10/8 for family/given name, 30 for the date of
    /// birth, 50 for the external id), on the narrow table; bodies are read for the page alone.
    /// (`+teamId` keeps SQLite from walking the team's index instead of the candidates.)
    static func lookupSQL(_ query: LookupQuery) -> (String, StatementArguments)? {
        var scores: [String] = []
        var candidates: [String] = []
        var arguments: [String: (any DatabaseValueConvertible)?] = ["team": query.teamId, "limit": query.limit, "offset": query.offset]
        for (column, name, value, weights) in [
            ("familyNameKey", "family", query.familyName, (40, 25, 10)),
            ("givenNameKey", "given", query.givenName, (30, 20, 8)),
        ] {
            guard let value else { continue }
            let folded = NameKey.fold(value)
            guard !folded.isEmpty else { continue }
            arguments[name] = folded
            arguments[name + "High"] = folded + "\u{10FFFF}"
            let prefix = "\(column) >= :\(name) AND \(column) < :\(name)High"
            scores.append(
                "CASE WHEN \(column) = :\(name) THEN \(weights.0) WHEN \(prefix) THEN \(weights.1) "
                    + "WHEN instr(\(column), :\(name)) > 0 THEN \(weights.2) ELSE 0 END")
            candidates.append("SELECT entry FROM lookupEntry WHERE teamId = :team AND \(prefix)")
            if folded.unicodeScalars.count >= 3 {
                arguments[name + "Match"] = "\(column) : \"" + folded.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                candidates.append("SELECT rowid FROM lookupName WHERE lookupName MATCH :\(name)Match")
            }
        }
        if let birth = query.dateOfBirth {
            arguments["birth"] = birth.description
            scores.append("CASE WHEN dateOfBirth = :birth THEN 30 ELSE 0 END")
            candidates.append("SELECT entry FROM lookupEntry WHERE teamId = :team AND dateOfBirth = :birth")
        }
        if let external = query.externalId?.trimmingCharacters(in: .whitespaces), !external.isEmpty {
            arguments["external"] = external.lowercased()
            scores.append("CASE WHEN externalIdKey = :external THEN 50 ELSE 0 END")
            candidates.append("SELECT entry FROM lookupEntry WHERE teamId = :team AND externalIdKey = :external")
        }
        guard !candidates.isEmpty else { return nil }
        let sql = """
            SELECT r.revision, r.body, e.updatedAt, e.score FROM (
                SELECT recordId, updatedAt, \(scores.joined(separator: " + ")) AS score FROM lookupEntry
                WHERE +teamId = :team AND entry IN (\(candidates.joined(separator: " UNION ")))
                ORDER BY score DESC, updatedAt DESC, recordId LIMIT :limit OFFSET :offset
            ) e JOIN record r ON r.id = e.recordId
            ORDER BY e.score DESC, e.updatedAt DESC, e.recordId
            """
        return (sql, StatementArguments(arguments))
    }
}
