import Foundation
import GRDB
import IntakeCore
import IntakeServer

extension SQLiteRecordStore {
    public func publish(_ q: PublishedQuestionnaire) async throws -> Bool {
        let files = try Self.json(q.files), lists = try Self.json(q.lists)
        return try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO questionnaire (id, version, title, questionCount, files, lists, publishedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id, version) DO NOTHING
                    """,
                arguments: [q.id, q.version, q.title, q.questionCount, files, lists, Self.timestamp(q.publishedAt)])
            return db.changesCount > 0
        }
    }

    public func questionnaire(id: String, version: String) async throws -> PublishedQuestionnaire? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM questionnaire WHERE id = ? AND version = ?", arguments: [id, version])
                .map(Self.questionnaire)
        }
    }

    public func questionnaires() async throws -> [PublishedQuestionnaire] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM questionnaire ORDER BY publishedAt DESC, id").map(Self.questionnaire)
        }
    }

    static func questionnaire(_ row: Row) throws -> PublishedQuestionnaire {
        PublishedQuestionnaire(
            id: row["id"], version: row["version"], title: row["title"], questionCount: row["questionCount"],
            files: try JSONDecoder().decode([String: String].self, from: Data((row["files"] as String).utf8)),
            lists: try JSONDecoder().decode([String: String].self, from: Data((row["lists"] as String).utf8)),
            publishedAt: date(row["publishedAt"]))
    }

    static func json(_ value: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
