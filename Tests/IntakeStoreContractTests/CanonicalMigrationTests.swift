import Crypto
import Foundation
import GRDB
import IntakeCore
import IntakeDeployment
import IntakeStoreTesting
import Testing

@testable import IntakeSQLite
@testable import IntakeServer
@testable import IntakeService

/// Records stored before the canonical form (as JSONEncoder wrote them) are moved into it, with
/// their hashes, so a device re-sending one is still told "duplicate", not "conflict".
struct CanonicalMigrationTests {
    /// The record as the server wrote it before: keys sorted as strings ("10" before "2"),
    /// whole decimals without a fraction, slashes unescaped.
    static func legacyBody(_ record: PatientResponse) throws -> String {
        let canonical = try #require(JSONSerialization.jsonObject(with: Data(RecordCodec.encode(record))) as? [String: Any])
        let data = try JSONSerialization.data(withJSONObject: canonical, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    @Test func recordsStoredBeforeTheCanonicalFormAreRewrittenAndStillRecognised() async throws {
        let path = try MigrationDatabase.path()
        // A sample record whose old spelling differs from the canonical one (most do: ten answers
        // in a section, a whole decimal).
        var found: (PatientResponse, String)?
        for seed in UInt64(1)...50 {
            let candidate = RecordStoreContract.record(seed)
            let spelled = try Self.legacyBody(candidate)
            if Array(spelled.utf8) != RecordCodec.encode(candidate) {
                found = (candidate, spelled)
                break
            }
        }
        let (record, legacy) = try #require(found, "the old spelling differs from the canonical one")

        // Given a database at schema v2 holding the record in the old spelling and hash
        let queue = try DatabaseQueue(path: path)
        try SQLiteRecordStore.migrator.migrate(queue, upTo: "v2: change cursor for exports, server secrets")
        let id = record.id.uuidString.lowercased()
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO team (id, name, createdAt) VALUES (1, 't', 0)")
            try db.execute(
                sql: """
                    INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, status, revision, createdAt,
                        updatedAt, receivedAt, givenNameKey, familyNameKey, body, changeSeq)
                    VALUES (?, ?, ?, 1, 'u', 'complete', 1, 0, 0, 0, '', '', ?, 1)
                    """, arguments: [id, record.questionnaire.id, record.questionnaire.version, legacy])
            try db.execute(
                sql: "INSERT INTO recordRevision (recordId, revision, contentHash, body, savedBy, savedAt) VALUES (?, 1, ?, ?, 'u', 0)",
                arguments: [id, SHA256.hash(data: Array(legacy.utf8)).map { String(format: "%02x", $0) }.joined(), legacy])
        }
        try queue.close()

        // When the server opens it
        let store = try SQLiteRecordStore(path: path)

        // Then the record reads back the same, is stored canonically, and re-sending it is a duplicate
        #expect(try await store.record(id: record.id)?.record == record)
        let (body, revisionBody) = try await store.database.read { db in
            (
                try String.fetchOne(db, sql: "SELECT body FROM record WHERE id = ?", arguments: [id]),
                try String.fetchOne(db, sql: "SELECT body FROM recordRevision WHERE recordId = ?", arguments: [id])
            )
        }
        #expect(body.map { Array($0.utf8) } == RecordCodec.encode(record))
        // Stored once (v33): the current revision's body is the record's.
        #expect(revisionBody == nil)
        #expect(try await store.revisions(of: record.id).map(\.record) == [record])
        let outcome = try await store.ingest([IngestItem(record: record)], owner: RecordOwner(teamId: 1, username: "u"), at: Date())
        #expect(outcome == [.duplicate(revision: 1)])
    }

    @Test func recordsStoredBeforeTeamCursorsGetTheirTeamsCursorsInTheOrderTheyChanged() async throws {
        let path = try MigrationDatabase.path()
        // Given a database at schema v6 with changes of two teams interleaved
        let queue = try DatabaseQueue(path: path)
        try SQLiteRecordStore.migrator.migrate(queue, upTo: "v6: failed sign-ins per account, and the lock they lead to")
        let records = (1...5).map { RecordStoreContract.record(UInt64(40 + $0)) }
        let teams: [Int64] = [1, 2, 1, 2, 1]
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO team (id, name, createdAt) VALUES (1, 'a', 0), (2, 'b', 0)")
            for (index, record) in records.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, status, revision, createdAt,
                            updatedAt, receivedAt, givenNameKey, familyNameKey, body, changeSeq)
                        VALUES (?, ?, ?, ?, 'u', 'complete', 1, 0, 0, 0, '', '', ?, ?)
                        """,
                    arguments: [
                        record.id.uuidString.lowercased(), record.questionnaire.id, record.questionnaire.version, teams[index],
                        String(decoding: RecordCodec.encode(record), as: UTF8.self), 10 - index,
                    ])
            }
        }
        try queue.close()

        // When the server opens it
        let store = try SQLiteRecordStore(path: path)

        // Then each team's cursors count its own changes, in the order they were made (changeSeq 10, 8, 6 of team 1 are 3, 2, 1)
        let a = try await store.exportSnapshot(teamId: 1)
        let page = try await a.page(ExportQuery(questionnaireId: records[0].questionnaire.id, teamId: 1, after: 0, upTo: a.cursor))
        #expect(a.cursor == 3 && page.map(\.cursor) == [1, 2, 3])
        #expect(try page.map { try $0.record().id } == [records[4].id, records[2].id, records[0].id])
        #expect(try await store.exportSnapshot(teamId: 2).cursor == 2)
        _ = try await store.ingest(
            [IngestItem(record: RecordStoreContract.record(99))], owner: RecordOwner(teamId: 2, username: "u"), at: Date())
        #expect(try await store.exportSnapshot(teamId: 2).cursor == 3)
        #expect(try await store.exportSnapshot(teamId: nil).cursor == 11)
    }
}
