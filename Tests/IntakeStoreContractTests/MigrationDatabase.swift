import Foundation
import GRDB
import IntakeCore
import IntakeStoreTesting

@testable import IntakeSQLite

/// A SQLite database in a folder of its own, brought to an older schema, for the tests of what a
/// migration does to what an older server stored.
enum MigrationDatabase {
    /// A fresh path, its folder made.
    static func path() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("intake-migration-\(UUID().uuidString)/db.sqlite").path
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        return path
    }

    /// A database at a fresh path, migrated up to (and with) `migration`.
    static func queue(upTo migration: String) throws -> (path: String, queue: DatabaseQueue) {
        let path = try path()
        let queue = try DatabaseQueue(path: path)
        try SQLiteRecordStore.migrator.migrate(queue, upTo: migration)
        return (path, queue)
    }

    /// Records of the people named (given, family), their seeds counted up from `seed`.
    static func records(of people: [(given: String, family: String)], seed: UInt64) -> [PatientResponse] {
        people.enumerated().map { index, name in
            RecordStoreContract.record(seed + UInt64(index)).with {
                $0.patient.givenName = name.given
                $0.patient.familyName = name.family
            }
        }
    }

    /// A record's row as a server of schema v24 to v33 stored it, in team 1, with the name keys
    /// given; `index` orders its times and cursors.
    static func insertRecord(_ record: PatientResponse, index: Int, givenKey: String, familyKey: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, status, revision, createdAt,
                    updatedAt, receivedAt, givenNameKey, familyNameKey, body, changeSeq, teamSeq, firstChangeSeq, firstTeamSeq, collector)
                VALUES (?, ?, ?, 1, 'u', 'complete', 1, 0, ?, 0, ?, ?, ?, ?, ?, ?, ?, 'u')
                """,
            arguments: [
                record.id.uuidString.lowercased(), record.questionnaire.id, record.questionnaire.version, Double(index), givenKey,
                familyKey,
                String(decoding: RecordCodec.encode(record), as: UTF8.self), index + 1, index + 1, index + 1, index + 1,
            ])
    }
}
