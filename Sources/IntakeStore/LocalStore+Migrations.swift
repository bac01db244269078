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
        return migrator
    }
}
