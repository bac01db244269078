import Foundation
import IntakeService
import PostgresNIO

extension PostgresRecordStore {
    public func publish(_ q: PublishedQuestionnaire) async throws -> Bool {
        let files = try Self.json(q.files), lists = try Self.json(q.lists)
        let rows = try await client.query(
            """
            INSERT INTO questionnaire (id, version, title, questionCount, files, lists, publishedAt, state, stateChangedAt, stateChangedBy)
            VALUES (\(q.id), \(q.version), \(q.title), \(q.questionCount), \(files), \(lists), \(Self.timestamp(q.publishedAt)),
                    \(q.status.state.rawValue), \(q.status.changedAt.map(Self.timestamp)), \(q.status.changedBy))
            ON CONFLICT (id, version) DO NOTHING RETURNING id
            """, logger: Self.logger
        ).collect()
        return !rows.isEmpty
    }

    public func questionnaire(id: String, version: String) async throws -> PublishedQuestionnaire? {
        try await client.query(
            "SELECT \(unescaped: Self.questionnaireColumns) FROM questionnaire WHERE id = \(id) AND version = \(version)",
            logger: Self.logger
        ).collect().first.map(Self.questionnaire)
    }

    public func questionnaires() async throws -> [PublishedQuestionnaire] {
        try await client.query(
            "SELECT \(unescaped: Self.questionnaireColumns) FROM questionnaire ORDER BY publishedAt DESC, id", logger: Self.logger
        ).collect().map(Self.questionnaire)
    }

    public func questionnaireStatus(id: String, version: String) async throws -> QuestionnaireStatus? {
        try await client.query(
            "SELECT state, stateChangedAt, stateChangedBy FROM questionnaire WHERE id = \(id) AND version = \(version)", logger: Self.logger
        ).collect().first.map { row in
            let (state, changedAt, changedBy) = try row.decode((String, Double?, String?).self)
            return Self.status(state, changedAt, changedBy)
        }
    }

    public func changeQuestionnaireState(
        id: String, version: String, from: QuestionnaireState, to: QuestionnaireState, by user: String, at time: Date
    ) async throws -> Bool {
        try await transaction { connection in
            let rows = try await connection.query(
                """
                UPDATE questionnaire SET state = \(to.rawValue), stateChangedAt = \(Self.timestamp(time)), stateChangedBy = \(user)
                WHERE id = \(id) AND version = \(version) AND state = \(from.rawValue) RETURNING id
                """, logger: Self.logger
            ).collect()
            guard !rows.isEmpty else { return false }
            _ = try await Self.appendAudit(
                [
                    AuditEntry(
                        at: time, actor: user, action: .questionnaireState, subject: "\(id)@\(version)",
                        details: ["from": from.rawValue, "to": to.rawValue])
                ],
                connection)
            return true
        }
    }

    private static func status(_ state: String, _ changedAt: Double?, _ changedBy: String?) -> QuestionnaireStatus {
        QuestionnaireStatus(state: QuestionnaireState(rawValue: state) ?? .published, changedAt: changedAt.map(date), changedBy: changedBy)
    }

    private static let questionnaireColumns =
        "id, version, title, questionCount, files, lists, publishedAt, state, stateChangedAt, stateChangedBy"

    private static func questionnaire(_ row: PostgresRow) throws -> PublishedQuestionnaire {
        let (id, version, title, questionCount, files, lists, publishedAt, state, changedAt, changedBy) = try row.decode(
            (String, String, String, Int, String, String, Double, String, Double?, String?).self)
        return PublishedQuestionnaire(
            id: id, version: version, title: title, questionCount: questionCount,
            files: try JSONDecoder().decode([String: String].self, from: Data(files.utf8)),
            lists: try JSONDecoder().decode([String: String].self, from: Data(lists.utf8)), publishedAt: date(publishedAt),
            status: status(state, changedAt, changedBy))
    }

    static func json(_ value: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension PostgresRecordStore {
    public func setCollectorOnly(questionnaireId: String, _ collectorOnly: Bool, by user: String, at time: Date) async throws -> Bool {
        try await transaction { connection in
            // The change lock: the records' new cursors are given out in commit order.
            try await Self.lock(Self.changeLock, connection)
            let current = try await connection.query(
                "SELECT collectorOnly FROM questionnaireAccess WHERE questionnaireId = \(questionnaireId)", logger: Self.logger
            ).collect().first?.decode(Bool.self)
            guard (current ?? false) != collectorOnly else { return false }
            try await connection.query(
                """
                INSERT INTO questionnaireAccess (questionnaireId, collectorOnly, changedBy, changedAt)
                VALUES (\(questionnaireId), \(collectorOnly), \(user), \(Self.timestamp(time)))
                ON CONFLICT (questionnaireId) DO UPDATE SET collectorOnly = EXCLUDED.collectorOnly, changedBy = EXCLUDED.changedBy,
                    changedAt = EXCLUDED.changedAt
                """, logger: Self.logger)
            let rows = try await connection.query(
                "SELECT id, teamId FROM record WHERE questionnaireId = \(questionnaireId) AND deletedAt IS NULL ORDER BY changeSeq",
                logger: Self.logger
            ).collect()
            try await Self.markChanges(teams: try rows.map { try $0.decode((String, Int64).self).1 }, connection)
            for row in rows {
                let (id, teamId) = try row.decode((String, Int64).self)
                try await connection.query(
                    "UPDATE record SET changeSeq = nextval('record_change'), teamSeq = nextval(\(Self.teamSequence(teamId))::regclass) WHERE id = \(id)",
                    logger: Self.logger)
            }
            _ = try await Self.appendAudit(
                [
                    AuditEntry(
                        at: time, actor: user, action: .questionnaireAccess, subject: questionnaireId,
                        details: ["collectorOnly": String(collectorOnly)])
                ],
                connection)
            return true
        }
    }

    public func collectorOnlyQuestionnaires() async throws -> Set<String> {
        let rows = try await client.query("SELECT questionnaireId FROM questionnaireAccess WHERE collectorOnly", logger: Self.logger)
            .collect()
        return Set(try rows.map { try $0.decode(String.self) })
    }
}

extension PostgresRecordStore {
    public func storeTestRecord(_ record: TestRecord) async throws -> Bool {
        let rows = try await client.query(
            """
            INSERT INTO testRecord (id, questionnaireId, version, teamId, collector, submittedBy, receivedAt, answerCount, payload)
            VALUES (\(Self.key(record.id)), \(record.questionnaireId), \(record.version), \(record.teamId), \(record.collector),
                    \(record.submittedBy), \(Self.timestamp(record.receivedAt)), \(record.answerCount), \(String(decoding: record.payload, as: UTF8.self)))
            ON CONFLICT (id) DO UPDATE SET questionnaireId = excluded.questionnaireId, version = excluded.version,
                teamId = excluded.teamId, collector = excluded.collector, submittedBy = excluded.submittedBy,
                receivedAt = excluded.receivedAt, answerCount = excluded.answerCount, payload = excluded.payload
            WHERE testRecord.teamId = excluded.teamId
            RETURNING (xmax = 0) AS inserted
            """, logger: Self.logger
        ).collect()
        // No row: another team's test record has that id, and is never replaced.
        guard let row = rows.first else { throw RecordStoreError.alreadyExists("test record \(Self.key(record.id))") }
        return try row.decode(Bool.self)
    }

    public func testRecords(questionnaireId: String, version: String, teamId: Int64?) async throws -> [TestRecord] {
        try await client.query(
            """
            SELECT id, questionnaireId, version, teamId, collector, submittedBy, receivedAt, answerCount FROM testRecord
            WHERE questionnaireId = \(questionnaireId) AND version = \(version) AND (\(teamId)::BIGINT IS NULL OR teamId = \(teamId))
            ORDER BY receivedAt DESC, id
            """, logger: Self.logger
        ).collect().map { row in
            let (id, questionnaireId, version, teamId, collector, submittedBy, receivedAt, answerCount) = try row.decode(
                (String, String, String, Int64, String, String, Double, Int).self)
            return TestRecord(
                id: UUID(uuidString: id)!, questionnaireId: questionnaireId, version: version, teamId: teamId, collector: collector,
                submittedBy: submittedBy, receivedAt: Self.date(receivedAt), answerCount: answerCount, payload: [])
        }
    }

    public func deleteTestRecords(questionnaireId: String, version: String, teamId: Int64?) async throws -> Int {
        try await client.query(
            """
            DELETE FROM testRecord
            WHERE questionnaireId = \(questionnaireId) AND version = \(version) AND (\(teamId)::BIGINT IS NULL OR teamId = \(teamId))
            RETURNING id
            """, logger: Self.logger
        ).collect().count
    }
}
