import Foundation
import GRDB
import IntakeCore

extension SQLiteRecordStore {
    /// Stores records straight into the database, without validation or revisions, for
    /// benchmarks that need a million rows quickly. Not for real data.
    package func benchmarkFill(_ records: [PatientResponse], teamId: Int64, username: String) throws {
        try database.write { db in
            var next = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(changeSeq), 0) FROM record") ?? 0
            let statement = try db.makeStatement(
                sql: """
                    INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, status, revision,
                                        createdAt, updatedAt, receivedAt, givenNameKey, familyNameKey, dateOfBirth, externalId, body, changeSeq)
                    VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for record in records {
                next += 1
                let body = String(decoding: try record.jsonData(), as: UTF8.self)
                try statement.execute(arguments: [
                    Self.key(record.id), record.questionnaire.id, record.questionnaire.version, teamId, username, record.status.rawValue,
                    Self.timestamp(record.createdAt), Self.timestamp(record.updatedAt), Self.timestamp(record.updatedAt),
                    NameKey.fold(record.patient.givenName), NameKey.fold(record.patient.familyName),
                    record.patient.dateOfBirth?.description,
                    record.patient.externalId, body, next,
                ])
            }
        }
    }

    /// Moves the write-ahead log into the database file, so other programs read every row from it.
    package func checkpoint() throws {
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
