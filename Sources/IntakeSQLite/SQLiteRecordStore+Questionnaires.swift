import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    public func publish(_ q: PublishedQuestionnaire) async throws -> Bool {
        let files = try Self.json(q.files), lists = try Self.json(q.lists)
        return try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO questionnaire (id, version, title, questionCount, files, lists, publishedAt, state, stateChangedAt, stateChangedBy)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id, version) DO NOTHING
                    """,
                arguments: [
                    q.id, q.version, q.title, q.questionCount, files, lists, Self.timestamp(q.publishedAt), q.status.state.rawValue,
                    q.status.changedAt.map(Self.timestamp), q.status.changedBy,
                ])
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

    public func questionnaireStatus(id: String, version: String) async throws -> QuestionnaireStatus? {
        try await database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT state, stateChangedAt, stateChangedBy FROM questionnaire WHERE id = ? AND version = ?",
                arguments: [id, version]
            ).map(Self.questionnaireStatus)
        }
    }

    public func changeQuestionnaireState(
        id: String, version: String, from: QuestionnaireState, to: QuestionnaireState, by user: String, at time: Date
    ) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql:
                    "UPDATE questionnaire SET state = ?, stateChangedAt = ?, stateChangedBy = ? WHERE id = ? AND version = ? AND state = ?",
                arguments: [to.rawValue, Self.timestamp(time), user, id, version, from.rawValue])
            guard db.changesCount > 0 else { return false }
            _ = try Self.appendAudit(
                [
                    AuditEntry(
                        at: time, actor: user, action: .questionnaireState, subject: "\(id)@\(version)",
                        details: ["from": from.rawValue, "to": to.rawValue])
                ],
                db)
            return true
        }
    }

    static func questionnaireStatus(_ row: Row) -> QuestionnaireStatus {
        QuestionnaireStatus(
            state: QuestionnaireState(rawValue: row["state"]) ?? .published, changedAt: (row["stateChangedAt"] as Double?).map(date),
            changedBy: row["stateChangedBy"])
    }

    static func questionnaire(_ row: Row) throws -> PublishedQuestionnaire {
        PublishedQuestionnaire(
            id: row["id"], version: row["version"], title: row["title"], questionCount: row["questionCount"],
            files: try JSONDecoder().decode([String: String].self, from: Data((row["files"] as String).utf8)),
            lists: try JSONDecoder().decode([String: String].self, from: Data((row["lists"] as String).utf8)),
            publishedAt: date(row["publishedAt"]), status: questionnaireStatus(row))
    }

    static func json(_ value: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension SQLiteRecordStore {
    public func setCollectorOnly(questionnaireId: String, _ collectorOnly: Bool, by user: String, at time: Date) async throws -> Bool {
        try await database.write { db in
            let current = try Bool.fetchOne(
                db, sql: "SELECT collectorOnly FROM questionnaireAccess WHERE questionnaireId = ?", arguments: [questionnaireId])
            guard (current ?? false) != collectorOnly else { return false }
            try db.execute(
                sql: """
                    INSERT INTO questionnaireAccess (questionnaireId, collectorOnly, changedBy, changedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT (questionnaireId) DO UPDATE SET collectorOnly = excluded.collectorOnly, changedBy = excluded.changedBy,
                        changedAt = excluded.changedAt
                    """,
                arguments: [questionnaireId, collectorOnly, user, Self.timestamp(time)])
            // Every record of it counts as changed: the change feed brings or takes them away.
            for row in try Row.fetchAll(
                db, sql: "SELECT id, teamId FROM record WHERE questionnaireId = ? AND deletedAt IS NULL ORDER BY changeSeq",
                arguments: [questionnaireId])
            {
                try db.execute(
                    sql: """
                        UPDATE record SET changeSeq = (SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record),
                            teamSeq = (SELECT COALESCE(MAX(t.teamSeq), 0) + 1 FROM record t WHERE t.teamId = ?)
                        WHERE id = ?
                        """, arguments: [row["teamId"] as Int64, row["id"] as String])
            }
            _ = try Self.appendAudit(
                [
                    AuditEntry(
                        at: time, actor: user, action: .questionnaireAccess, subject: questionnaireId,
                        details: ["collectorOnly": String(collectorOnly)])
                ],
                db)
            return true
        }
    }

    public func collectorOnlyQuestionnaires() async throws -> Set<String> {
        try await database.read { db in
            Set(try String.fetchAll(db, sql: "SELECT questionnaireId FROM questionnaireAccess WHERE collectorOnly = 1"))
        }
    }
}

extension SQLiteRecordStore {
    public func storeTestRecord(_ record: TestRecord) async throws -> Bool {
        try await database.write { db in
            let owner = try Int64.fetchOne(db, sql: "SELECT teamId FROM testRecord WHERE id = ?", arguments: [Self.key(record.id)])
            // Another team's test record of that id is never replaced.
            if let owner, owner != record.teamId { throw RecordStoreError.alreadyExists("test record \(Self.key(record.id))") }
            let known = owner != nil
            try db.execute(
                sql: """
                    INSERT INTO testRecord (id, questionnaireId, version, teamId, collector, submittedBy, receivedAt, answerCount, payload)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET questionnaireId = excluded.questionnaireId, version = excluded.version,
                        teamId = excluded.teamId, collector = excluded.collector, submittedBy = excluded.submittedBy,
                        receivedAt = excluded.receivedAt, answerCount = excluded.answerCount, payload = excluded.payload
                    """,
                arguments: [
                    Self.key(record.id), record.questionnaireId, record.version, record.teamId, record.collector, record.submittedBy,
                    Self.timestamp(record.receivedAt), record.answerCount, Data(record.payload),
                ])
            return !known
        }
    }

    public func testRecords(questionnaireId: String, version: String, teamId: Int64?) async throws -> [TestRecord] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, questionnaireId, version, teamId, collector, submittedBy, receivedAt, answerCount FROM testRecord
                    WHERE questionnaireId = ? AND version = ? AND (? IS NULL OR teamId = ?) ORDER BY receivedAt DESC, id
                    """,
                arguments: [questionnaireId, version, teamId, teamId]
            ).map { row in
                TestRecord(
                    id: UUID(uuidString: row["id"])!, questionnaireId: row["questionnaireId"], version: row["version"],
                    teamId: row["teamId"],
                    collector: row["collector"], submittedBy: row["submittedBy"], receivedAt: Self.date(row["receivedAt"]),
                    answerCount: row["answerCount"], payload: [])
            }
        }
    }

    public func deleteTestRecords(questionnaireId: String, version: String, teamId: Int64?) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: "DELETE FROM testRecord WHERE questionnaireId = ? AND version = ? AND (? IS NULL OR teamId = ?)",
                arguments: [questionnaireId, version, teamId, teamId])
            return db.changesCount
        }
    }
}
