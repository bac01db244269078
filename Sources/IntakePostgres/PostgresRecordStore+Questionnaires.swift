import Foundation
import IntakeServer
import PostgresNIO

extension PostgresRecordStore {
    public func publish(_ q: PublishedQuestionnaire) async throws -> Bool {
        let files = try Self.json(q.files), lists = try Self.json(q.lists)
        let rows = try await client.query(
            """
            INSERT INTO questionnaire (id, version, title, questionCount, files, lists, publishedAt)
            VALUES (\(q.id), \(q.version), \(q.title), \(q.questionCount), \(files), \(lists), \(Self.timestamp(q.publishedAt)))
            ON CONFLICT (id, version) DO NOTHING RETURNING id
            """, logger: Self.logger
        ).collect()
        return !rows.isEmpty
    }

    public func questionnaire(id: String, version: String) async throws -> PublishedQuestionnaire? {
        try await client.query(
            "SELECT \(unescaped: Self.questionnaireColumns) FROM questionnaire WHERE id = \(id) AND version = \(version)", logger: Self.logger
        ).collect().first.map(Self.questionnaire)
    }

    public func questionnaires() async throws -> [PublishedQuestionnaire] {
        try await client.query(
            "SELECT \(unescaped: Self.questionnaireColumns) FROM questionnaire ORDER BY publishedAt DESC, id", logger: Self.logger
        ).collect().map(Self.questionnaire)
    }

    private static let questionnaireColumns = "id, version, title, questionCount, files, lists, publishedAt"

    private static func questionnaire(_ row: PostgresRow) throws -> PublishedQuestionnaire {
        let (id, version, title, questionCount, files, lists, publishedAt) = try row.decode(
            (String, String, String, Int, String, String, Double).self)
        return PublishedQuestionnaire(
            id: id, version: version, title: title, questionCount: questionCount,
            files: try JSONDecoder().decode([String: String].self, from: Data(files.utf8)),
            lists: try JSONDecoder().decode([String: String].self, from: Data(lists.utf8)), publishedAt: date(publishedAt))
    }

    static func json(_ value: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
