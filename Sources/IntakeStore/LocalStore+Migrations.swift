import Foundation
import GRDB

extension LocalStore {
    /// Migrations never change once shipped; add new ones at the end.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: records and meta") { db in
            try db.execute(
                sql: """
                    CREATE TABLE record (
                        id TEXT PRIMARY KEY NOT NULL,
                        questionnaireId TEXT NOT NULL,
                        questionnaireVersion TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('draft', 'complete')),
                        cursorSection INTEGER,
                        cursorIndex INTEGER,
                        answerCount INTEGER NOT NULL,
                        createdAt REAL NOT NULL,
                        updatedAt REAL NOT NULL,
                        payload BLOB NOT NULL
                    );
                    CREATE INDEX record_state_updated ON record (state, updatedAt);
                    CREATE TABLE meta (
                        key TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v2: outbound queue, quarantine, base revisions") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN baseRevision INTEGER;
                    CREATE TABLE outbox (
                        id TEXT PRIMARY KEY NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('pending', 'rejected')),
                        baseRevision INTEGER,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        enqueuedAt REAL NOT NULL,
                        lastAttemptAt REAL,
                        reason TEXT,
                        size INTEGER NOT NULL,
                        payload BLOB NOT NULL
                    );
                    CREATE INDEX outbox_state_enqueued ON outbox (state, enqueuedAt);
                    CREATE TABLE quarantine (
                        id TEXT NOT NULL,
                        source TEXT NOT NULL,
                        reason TEXT NOT NULL,
                        quarantinedAt REAL NOT NULL,
                        payload BLOB NOT NULL
                    );
                    INSERT INTO outbox (id, state, attempts, enqueuedAt, size, payload)
                        SELECT id, 'pending', 0, updatedAt, length(payload), payload FROM record WHERE state = 'complete';
                    DELETE FROM record WHERE state = 'complete';
                    """)
        }
        migrator.registerMigration("v3: sealed documents (the last fetched inbox)") { db in
            try db.execute(
                sql: """
                    CREATE TABLE document (
                        name TEXT PRIMARY KEY NOT NULL,
                        id TEXT NOT NULL,
                        savedAt REAL NOT NULL,
                        payload BLOB NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v4: answers given offline (a referral accepted or declined), sealed") { db in
            try db.execute(
                sql: """
                    CREATE TABLE action (
                        id TEXT PRIMARY KEY NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        enqueuedAt REAL NOT NULL,
                        lastAttemptAt REAL,
                        reason TEXT,
                        payload BLOB NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v5: the synced copy of the team's records, sealed") { db in
            try db.execute(
                sql: """
                    CREATE TABLE synced (
                        id TEXT PRIMARY KEY NOT NULL,
                        cursor INTEGER NOT NULL,
                        revision INTEGER NOT NULL,
                        updatedAt REAL NOT NULL,
                        payload BLOB NOT NULL
                    );
                    """)
        }
        // Questionnaires are no patient data: kept as they are, readable before the store is unlocked.
        migrator.registerMigration("v6: questionnaire versions pulled from the server, for offline use") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pulledQuestionnaire (
                        id TEXT NOT NULL,
                        version TEXT NOT NULL,
                        title TEXT NOT NULL,
                        state TEXT NOT NULL,
                        files TEXT NOT NULL,
                        lists TEXT NOT NULL,
                        publishedAt TEXT NOT NULL,
                        pulledAt REAL NOT NULL,
                        server TEXT NOT NULL,
                        PRIMARY KEY (id, version)
                    );
                    """)
        }
        migrator.registerMigration("v7: a record's moves to other questionnaire versions, with the answers set aside, sealed") { db in
            try db.execute(
                sql: """
                    CREATE TABLE recordHistory (
                        number INTEGER PRIMARY KEY AUTOINCREMENT,
                        recordId TEXT NOT NULL,
                        fromVersion TEXT NOT NULL,
                        toVersion TEXT NOT NULL,
                        movedAt REAL NOT NULL,
                        setAsideCount INTEGER NOT NULL,
                        payload BLOB NOT NULL
                    );
                    CREATE INDEX recordHistoryByRecord ON recordHistory (recordId, number);
                    """)
        }
        migrator.registerMigration("v8: queued actions the server refused, kept aside for a person") { db in
            try db.execute(sql: "ALTER TABLE action ADD COLUMN setAside INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v9: files answering photo, audio, document and signature questions, sealed, by content") { db in
            try db.execute(
                sql: """
                    CREATE TABLE attachment (
                        sha256 TEXT PRIMARY KEY,
                        id TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        savedAt REAL NOT NULL,
                        payload BLOB NOT NULL
                    )
                    """)
        }
        return migrator
    }

    /// Seals payloads written before encryption existed (format 1 stores), in place.
    static func sealPlaintextPayloads(with cipher: RecordCipher, _ db: Database) throws {
        for table in ["record", "outbox"] {
            let rows = try Row.fetchAll(db, sql: "SELECT id, payload FROM \(table)")
            for row in rows {
                let payload: Data = row["payload"]
                guard !RecordCipher.isSealed(payload), let id = UUID(uuidString: row["id"]) else { continue }
                try db.execute(
                    sql: "UPDATE \(table) SET payload = ? WHERE id = ?", arguments: [try cipher.seal(payload, id: id), row["id"] as String])
            }
        }
    }
}
