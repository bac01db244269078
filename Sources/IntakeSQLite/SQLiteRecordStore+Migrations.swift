import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    /// Migrations never change once shipped; add new ones at the end.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: questionnaires, records, revisions, accounts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE schemaVersion (version INTEGER NOT NULL);
                    INSERT INTO schemaVersion (version) VALUES (1);
                    CREATE TABLE questionnaire (
                        id TEXT NOT NULL,
                        version TEXT NOT NULL,
                        title TEXT NOT NULL,
                        questionCount INTEGER NOT NULL,
                        files TEXT NOT NULL,
                        lists TEXT NOT NULL,
                        publishedAt REAL NOT NULL,
                        PRIMARY KEY (id, version)
                    );
                    CREATE TABLE team (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL UNIQUE,
                        createdAt REAL NOT NULL
                    );
                    CREATE TABLE user (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        username TEXT NOT NULL UNIQUE,
                        passwordHash TEXT NOT NULL,
                        role TEXT NOT NULL CHECK (role IN ('fieldworker', 'coordinator', 'researcher', 'admin')),
                        teamId INTEGER REFERENCES team(id),
                        disabled INTEGER NOT NULL DEFAULT 0,
                        createdAt REAL NOT NULL
                    );
                    CREATE TABLE token (
                        hash TEXT PRIMARY KEY NOT NULL,
                        userId INTEGER NOT NULL REFERENCES user(id),
                        name TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        expiresAt REAL
                    );
                    CREATE TABLE record (
                        id TEXT PRIMARY KEY NOT NULL,
                        questionnaireId TEXT NOT NULL,
                        questionnaireVersion TEXT NOT NULL,
                        teamId INTEGER NOT NULL REFERENCES team(id),
                        receivedBy TEXT NOT NULL,
                        status TEXT NOT NULL,
                        revision INTEGER NOT NULL,
                        createdAt REAL NOT NULL,
                        updatedAt REAL NOT NULL,
                        receivedAt REAL NOT NULL,
                        givenNameKey TEXT NOT NULL,
                        familyNameKey TEXT NOT NULL,
                        dateOfBirth TEXT,
                        externalId TEXT,
                        body TEXT NOT NULL
                    );
                    CREATE INDEX record_team_family ON record (teamId, familyNameKey);
                    CREATE INDEX record_team_given ON record (teamId, givenNameKey);
                    CREATE TABLE recordRevision (
                        recordId TEXT NOT NULL REFERENCES record(id),
                        revision INTEGER NOT NULL,
                        contentHash TEXT NOT NULL,
                        body TEXT NOT NULL,
                        savedBy TEXT NOT NULL,
                        savedAt REAL NOT NULL,
                        PRIMARY KEY (recordId, revision)
                    );
                    CREATE INDEX recordRevision_hash ON recordRevision (recordId, contentHash);
                    """)
        }
        migrator.registerMigration("v2: change cursor for exports, server secrets") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN changeSeq INTEGER NOT NULL DEFAULT 0;
                    UPDATE record SET changeSeq = rowid;
                    CREATE INDEX record_change ON record (changeSeq);
                    CREATE TABLE serverSecret (
                        name TEXT PRIMARY KEY NOT NULL,
                        value BLOB NOT NULL,
                        createdAt REAL NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v3: records in the canonical form of RecordCodec 1, hashed with it") { db in
            try rewriteCanonically(table: "recordRevision", hashColumn: "contentHash", db)
            try rewriteCanonically(table: "record", hashColumn: nil, db)
        }
        migrator.registerMigration("v4: a narrow lookup table, kept by triggers, with a trigram index of names") { db in
            try db.execute(
                sql: """
                    CREATE TABLE lookupEntry (
                        entry INTEGER PRIMARY KEY,
                        recordId TEXT NOT NULL UNIQUE REFERENCES record(id),
                        teamId INTEGER NOT NULL,
                        familyNameKey TEXT NOT NULL,
                        givenNameKey TEXT NOT NULL,
                        dateOfBirth TEXT,
                        externalIdKey TEXT,
                        updatedAt REAL NOT NULL
                    );
                    CREATE INDEX lookupEntry_family ON lookupEntry
                        (teamId, familyNameKey, givenNameKey, dateOfBirth, externalIdKey, updatedAt);
                    CREATE INDEX lookupEntry_given ON lookupEntry
                        (teamId, givenNameKey, familyNameKey, dateOfBirth, externalIdKey, updatedAt);
                    CREATE INDEX lookupEntry_birth ON lookupEntry (teamId, dateOfBirth);
                    CREATE INDEX lookupEntry_external ON lookupEntry (teamId, externalIdKey);
                    CREATE VIRTUAL TABLE lookupName USING fts5(
                        familyNameKey, givenNameKey, content='lookupEntry', content_rowid='entry', tokenize='trigram');
                    CREATE TRIGGER lookupEntry_insert AFTER INSERT ON lookupEntry BEGIN
                        INSERT INTO lookupName (rowid, familyNameKey, givenNameKey) VALUES (new.entry, new.familyNameKey, new.givenNameKey);
                    END;
                    CREATE TRIGGER lookupEntry_update AFTER UPDATE ON lookupEntry BEGIN
                        INSERT INTO lookupName (lookupName, rowid, familyNameKey, givenNameKey)
                            VALUES ('delete', old.entry, old.familyNameKey, old.givenNameKey);
                        INSERT INTO lookupName (rowid, familyNameKey, givenNameKey) VALUES (new.entry, new.familyNameKey, new.givenNameKey);
                    END;
                    CREATE TRIGGER record_lookup_insert AFTER INSERT ON record BEGIN
                        INSERT INTO lookupEntry (recordId, teamId, familyNameKey, givenNameKey, dateOfBirth, externalIdKey, updatedAt)
                        VALUES (new.id, new.teamId, new.familyNameKey, new.givenNameKey, new.dateOfBirth, lower(new.externalId), new.updatedAt);
                    END;
                    CREATE TRIGGER record_lookup_update AFTER UPDATE ON record BEGIN
                        UPDATE lookupEntry SET teamId = new.teamId, familyNameKey = new.familyNameKey, givenNameKey = new.givenNameKey,
                            dateOfBirth = new.dateOfBirth, externalIdKey = lower(new.externalId), updatedAt = new.updatedAt
                        WHERE recordId = new.id;
                    END;
                    INSERT INTO lookupEntry (recordId, teamId, familyNameKey, givenNameKey, dateOfBirth, externalIdKey, updatedAt)
                        SELECT id, teamId, familyNameKey, givenNameKey, dateOfBirth, lower(externalId), updatedAt FROM record;
                    DROP INDEX record_team_family;
                    DROP INDEX record_team_given;
                    """)
        }
        migrator.registerMigration("v5: a vocabulary of the name keys each team has used, and newest-first indexes per key") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER lookupEntry_insert;
                    DROP TRIGGER lookupEntry_update;
                    DROP TABLE lookupName;
                    DROP INDEX lookupEntry_family;
                    DROP INDEX lookupEntry_given;
                    CREATE INDEX lookupEntry_family_newest ON lookupEntry (teamId, familyNameKey, updatedAt DESC, recordId);
                    CREATE INDEX lookupEntry_given_newest ON lookupEntry (teamId, givenNameKey, updatedAt DESC, recordId);
                    CREATE INDEX lookupEntry_pair_newest ON lookupEntry (teamId, familyNameKey, givenNameKey, updatedAt DESC, recordId);
                    CREATE TABLE lookupKey (
                        keyId INTEGER PRIMARY KEY,
                        teamId INTEGER NOT NULL,
                        field INTEGER NOT NULL,
                        key TEXT NOT NULL,
                        UNIQUE (teamId, field, key)
                    );
                    CREATE VIRTUAL TABLE lookupKeyName USING fts5(key, content='lookupKey', content_rowid='keyId', tokenize='trigram');
                    CREATE TRIGGER lookupKey_insert AFTER INSERT ON lookupKey BEGIN
                        INSERT INTO lookupKeyName (rowid, key) VALUES (new.keyId, new.key);
                    END;
                    CREATE TRIGGER lookupEntry_keys_insert AFTER INSERT ON lookupEntry BEGIN
                        INSERT OR IGNORE INTO lookupKey (teamId, field, key) VALUES (new.teamId, 0, new.familyNameKey);
                        INSERT OR IGNORE INTO lookupKey (teamId, field, key) VALUES (new.teamId, 1, new.givenNameKey);
                    END;
                    CREATE TRIGGER lookupEntry_keys_update AFTER UPDATE OF teamId, familyNameKey, givenNameKey ON lookupEntry BEGIN
                        INSERT OR IGNORE INTO lookupKey (teamId, field, key) VALUES (new.teamId, 0, new.familyNameKey);
                        INSERT OR IGNORE INTO lookupKey (teamId, field, key) VALUES (new.teamId, 1, new.givenNameKey);
                    END;
                    INSERT OR IGNORE INTO lookupKey (teamId, field, key) SELECT DISTINCT teamId, 0, familyNameKey FROM lookupEntry;
                    INSERT OR IGNORE INTO lookupKey (teamId, field, key) SELECT DISTINCT teamId, 1, givenNameKey FROM lookupEntry;
                    """)
        }
        migrator.registerMigration("v6: failed sign-ins per account, and the lock they lead to") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN failedSignIns INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE user ADD COLUMN lastFailedSignInAt REAL;
                    ALTER TABLE user ADD COLUMN lockedAt REAL;
                    """)
        }
        migrator.registerMigration("v7: a change cursor per team, so one team's exports say nothing of another's pace") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN teamSeq INTEGER NOT NULL DEFAULT 0;
                    UPDATE record SET teamSeq = numbered.seq
                        FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY teamId ORDER BY changeSeq) AS seq FROM record) AS numbered
                        WHERE record.id = numbered.id;
                    CREATE UNIQUE INDEX record_team_change ON record (teamId, teamSeq);
                    """)
        }
        migrator.registerMigration("v8: team membership history, invitations and notifications") { db in
            try db.execute(
                sql: """
                    ALTER TABLE user ADD COLUMN teamSince REAL;
                    UPDATE user SET teamSince = createdAt WHERE teamId IS NOT NULL;
                    CREATE TABLE membershipEvent (
                        id INTEGER PRIMARY KEY,
                        teamId INTEGER NOT NULL REFERENCES team(id),
                        username TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        role TEXT,
                        actor TEXT NOT NULL,
                        at REAL NOT NULL
                    );
                    CREATE INDEX membershipEvent_team ON membershipEvent (teamId, id);
                    INSERT INTO membershipEvent (teamId, username, kind, role, actor, at)
                        SELECT teamId, username, 'joined', role, 'admin', createdAt FROM user WHERE teamId IS NOT NULL ORDER BY id;
                    CREATE TABLE invitation (
                        id TEXT PRIMARY KEY NOT NULL,
                        teamId INTEGER NOT NULL REFERENCES team(id),
                        inviteeId INTEGER NOT NULL REFERENCES user(id),
                        role TEXT NOT NULL,
                        invitedBy TEXT NOT NULL,
                        passcodeHash TEXT NOT NULL,
                        state TEXT NOT NULL,
                        failedAttempts INTEGER NOT NULL DEFAULT 0,
                        createdAt REAL NOT NULL,
                        expiresAt REAL NOT NULL,
                        updatedAt REAL NOT NULL
                    );
                    CREATE INDEX invitation_invitee ON invitation (inviteeId, createdAt);
                    CREATE INDEX invitation_team ON invitation (teamId, createdAt);
                    CREATE TABLE notification (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        userId INTEGER NOT NULL REFERENCES user(id),
                        type TEXT NOT NULL,
                        eventKey TEXT NOT NULL,
                        subject TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        readAt REAL,
                        UNIQUE (userId, eventKey)
                    );
                    CREATE INDEX notification_user ON notification (userId, id);
                    """)
        }
        migrator.registerMigration("v9: announcements") { db in
            try db.execute(
                sql: """
                    CREATE TABLE announcement (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        teamId INTEGER REFERENCES team(id),
                        author TEXT NOT NULL,
                        text TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        recipients INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v10: referrals and their threads") { db in
            try db.execute(
                sql: """
                    CREATE TABLE referral (
                        id TEXT PRIMARY KEY NOT NULL,
                        recordId TEXT NOT NULL REFERENCES record(id),
                        fromTeamId INTEGER NOT NULL REFERENCES team(id),
                        referrer TEXT NOT NULL,
                        toTeamId INTEGER NOT NULL REFERENCES team(id),
                        assignee TEXT,
                        reason TEXT NOT NULL,
                        priority TEXT NOT NULL,
                        allowEdit INTEGER NOT NULL,
                        state TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        updatedAt REAL NOT NULL
                    );
                    CREATE INDEX referral_from ON referral (fromTeamId, createdAt);
                    CREATE INDEX referral_to ON referral (toTeamId, createdAt);
                    CREATE INDEX referral_record ON referral (recordId, state);
                    CREATE TABLE referralMessage (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        referralId TEXT NOT NULL REFERENCES referral(id),
                        author TEXT NOT NULL,
                        text TEXT NOT NULL,
                        at REAL NOT NULL
                    );
                    CREATE INDEX referralMessage_referral ON referralMessage (referralId, id);
                    """)
        }
        migrator.registerMigration("v11: webhooks and the progress of their deliveries") { db in
            try db.execute(
                sql: """
                    CREATE TABLE webhook (
                        id TEXT PRIMARY KEY NOT NULL,
                        ownerId INTEGER REFERENCES user(id),
                        createdBy TEXT NOT NULL,
                        url TEXT NOT NULL,
                        types TEXT NOT NULL,
                        secret TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        deliveredThrough INTEGER NOT NULL,
                        delivered INTEGER NOT NULL DEFAULT 0,
                        failures INTEGER NOT NULL DEFAULT 0,
                        lastError TEXT,
                        lastAttemptAt REAL,
                        nextAttemptAt REAL NOT NULL,
                        suspended INTEGER NOT NULL DEFAULT 0,
                        leaseUntil REAL
                    );
                    CREATE INDEX webhook_due ON webhook (suspended, nextAttemptAt);
                    """)
        }
        migrator.registerMigration("v12: the patient registry and its append-only consent history") { db in
            try db.execute(
                sql: """
                    CREATE TABLE patient (
                        id TEXT PRIMARY KEY NOT NULL,
                        teamId INTEGER NOT NULL REFERENCES team(id),
                        givenName TEXT NOT NULL,
                        familyName TEXT NOT NULL,
                        givenKey TEXT NOT NULL,
                        familyKey TEXT NOT NULL,
                        dateOfBirth TEXT,
                        sex TEXT,
                        externalId TEXT UNIQUE,
                        revision INTEGER NOT NULL,
                        archivedAt REAL,
                        sharingScope TEXT,
                        createdBy TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        updatedAt REAL NOT NULL
                    );
                    CREATE INDEX patient_family ON patient (familyKey, givenKey);
                    CREATE INDEX patient_given ON patient (givenKey);
                    CREATE INDEX patient_team ON patient (teamId, familyKey);
                    CREATE INDEX patient_birth ON patient (dateOfBirth);
                    CREATE TABLE consent (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        patientId TEXT NOT NULL REFERENCES patient(id),
                        scope TEXT NOT NULL,
                        method TEXT NOT NULL,
                        recordedBy TEXT NOT NULL,
                        recordedAt REAL NOT NULL
                    );
                    CREATE INDEX consent_patient ON consent (patientId, id);
                    CREATE TRIGGER consent_no_update BEFORE UPDATE ON consent
                        BEGIN SELECT RAISE(ABORT, 'consent history is append-only'); END;
                    CREATE TRIGGER consent_no_delete BEFORE DELETE ON consent
                        BEGIN SELECT RAISE(ABORT, 'consent history is append-only'); END;
                    """)
        }
        migrator.registerMigration("v13: records point to a registry patient") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN patientId TEXT;
                    CREATE INDEX record_patient ON record (patientId);
                    """)
        }
        migrator.registerMigration("v14: researchers' access levels") { db in
            try db.execute(sql: "ALTER TABLE user ADD COLUMN researchAccess TEXT")
        }
        migrator.registerMigration("v15: data groups and the patients in them") { db in
            try db.execute(
                sql: """
                    CREATE TABLE dataGroup (
                        name TEXT PRIMARY KEY NOT NULL,
                        description TEXT NOT NULL,
                        createdBy TEXT NOT NULL,
                        createdAt REAL NOT NULL
                    );
                    CREATE TABLE patientGroup (
                        patientId TEXT NOT NULL REFERENCES patient(id),
                        groupName TEXT NOT NULL REFERENCES dataGroup(name),
                        PRIMARY KEY (patientId, groupName)
                    );
                    CREATE INDEX patientGroup_group ON patientGroup (groupName);
                    """)
        }
        migrator.registerMigration("v16: dated report series and their reports, every version kept") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reportSeries (
                        name TEXT PRIMARY KEY NOT NULL,
                        dateKind TEXT NOT NULL
                    );
                    CREATE TABLE report (
                        patientId TEXT NOT NULL REFERENCES patient(id),
                        series TEXT NOT NULL REFERENCES reportSeries(name),
                        dateKey TEXT NOT NULL,
                        version INTEGER NOT NULL,
                        body TEXT NOT NULL,
                        recordedBy TEXT NOT NULL,
                        recordedAt REAL NOT NULL,
                        PRIMARY KEY (patientId, series, dateKey, version)
                    );
                    """)
        }
        migrator.registerMigration(
            "v17: consent changes placed among record changes, and where each record began, so an export knows what it held"
        ) { db in
            try db.execute(
                sql: """
                    ALTER TABLE consent ADD COLUMN changeSeq INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE consent ADD COLUMN teamSeq INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE record ADD COLUMN firstChangeSeq INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE record ADD COLUMN firstTeamSeq INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        migrator.registerMigration("v18: the audit trail, append-only and hash-chained") { db in
            try db.execute(
                sql: """
                    CREATE TABLE auditEvent (
                        seq INTEGER PRIMARY KEY NOT NULL,
                        at TEXT NOT NULL,
                        actor TEXT NOT NULL,
                        action TEXT NOT NULL,
                        subject TEXT NOT NULL,
                        details TEXT NOT NULL,
                        previousHash TEXT NOT NULL,
                        hash TEXT NOT NULL
                    );
                    CREATE INDEX auditEvent_actor ON auditEvent (actor, seq);
                    CREATE INDEX auditEvent_subject ON auditEvent (subject, seq);
                    CREATE TRIGGER auditEvent_no_update BEFORE UPDATE ON auditEvent
                        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
                    CREATE TRIGGER auditEvent_no_delete BEFORE DELETE ON auditEvent
                        BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
                    """)
        }
        migrator.registerMigration("v19: the device each revision was saved from") { db in
            try db.execute(sql: "ALTER TABLE recordRevision ADD COLUMN deviceId TEXT")
        }
        migrator.registerMigration("v20: deleted records leave a tombstone, and no lookup entry") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN deletedAt REAL;
                    ALTER TABLE record ADD COLUMN deletedBy TEXT;
                    ALTER TABLE record ADD COLUMN deleteReason TEXT;
                    CREATE INDEX record_deleted ON record (deletedAt) WHERE deletedAt IS NOT NULL;
                    CREATE TRIGGER record_lookup_delete AFTER UPDATE OF deletedAt ON record WHEN new.deletedAt IS NOT NULL BEGIN
                        DELETE FROM lookupEntry WHERE recordId = new.id;
                    END;
                    CREATE TABLE changeHorizon (
                        teamId INTEGER PRIMARY KEY NOT NULL,
                        teamSeq INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v21: grants of access to one record, to a user or a team, until a time") { db in
            try db.execute(
                sql: """
                    CREATE TABLE recordGrant (
                        id TEXT PRIMARY KEY NOT NULL,
                        recordId TEXT NOT NULL REFERENCES record(id) ON DELETE CASCADE,
                        toUser TEXT,
                        toTeamId INTEGER REFERENCES team(id),
                        access TEXT NOT NULL CHECK (access IN ('read', 'edit')),
                        expiresAt REAL NOT NULL,
                        grantedBy TEXT NOT NULL,
                        grantedAt REAL NOT NULL,
                        revokedAt REAL,
                        revokedBy TEXT,
                        CHECK ((toUser IS NULL) <> (toTeamId IS NULL))
                    );
                    CREATE INDEX recordGrant_record ON recordGrant (recordId, grantedAt);
                    CREATE INDEX recordGrant_user ON recordGrant (toUser, expiresAt) WHERE toUser IS NOT NULL;
                    CREATE INDEX recordGrant_team ON recordGrant (toTeamId, expiresAt) WHERE toTeamId IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v22: questionnaires whose records only their collectors (and coordinators) see") { db in
            try db.execute(
                sql: """
                    CREATE TABLE questionnaireAccess (
                        questionnaireId TEXT PRIMARY KEY NOT NULL,
                        collectorOnly INTEGER NOT NULL,
                        changedBy TEXT NOT NULL,
                        changedAt REAL NOT NULL
                    );
                    CREATE INDEX record_questionnaire ON record (questionnaireId, changeSeq);
                    """)
        }
        migrator.registerMigration("v23: a record moved to another team leaves an exit entry in its old team") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN exitOf TEXT;
                    ALTER TABLE record ADD COLUMN exitTo INTEGER;
                    """)
        }
        migrator.registerMigration("v24: the collector, checked at upload, apart from who uploaded") { db in
            // Records stored before keep who uploaded them as their collector.
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN collector TEXT NOT NULL DEFAULT '';
                    UPDATE record SET collector = receivedBy;
                    """)
        }
        migrator.registerMigration("v25: when a referral was accepted and by whom; an invitation's message") { db in
            // Referrals accepted before keep no time: it is unknown (updatedAt may be a later change).
            try db.execute(
                sql: """
                    ALTER TABLE referral ADD COLUMN acceptedAt REAL;
                    ALTER TABLE referral ADD COLUMN acceptedBy TEXT;
                    ALTER TABLE invitation ADD COLUMN message TEXT;
                    """)
        }
        migrator.registerMigration("v26: name keys with Arabic letter variants made one, tatweel and harakat left out") { db in
            for statement in arabicNameKeys { try db.execute(sql: statement) }
        }
        // Versions stored before were published as they were stored.
        migrator.registerMigration("v27: a questionnaire version's state: draft, published, closed or retired") { db in
            try db.execute(
                sql: """
                    ALTER TABLE questionnaire ADD COLUMN state TEXT NOT NULL DEFAULT 'published';
                    ALTER TABLE questionnaire ADD COLUMN stateChangedAt REAL;
                    ALTER TABLE questionnaire ADD COLUMN stateChangedBy TEXT;
                    """)
        }
        migrator.registerMigration("v28: enrolment codes and the machines enrolled with them") { db in
            try db.execute(
                sql: """
                    CREATE TABLE enrolment (
                        id TEXT PRIMARY KEY NOT NULL,
                        teamId INTEGER NOT NULL REFERENCES team(id),
                        username TEXT NOT NULL,
                        secretHash TEXT NOT NULL,
                        createdBy TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        expiresAt REAL NOT NULL,
                        state TEXT NOT NULL DEFAULT 'open',
                        failedAttempts INTEGER NOT NULL DEFAULT 0,
                        usedAt REAL,
                        deviceId TEXT
                    );
                    CREATE INDEX enrolmentByTeam ON enrolment (teamId, createdAt);
                    CREATE TABLE device (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        deviceId TEXT NOT NULL,
                        name TEXT NOT NULL,
                        teamId INTEGER NOT NULL REFERENCES team(id),
                        username TEXT NOT NULL,
                        enrolment TEXT NOT NULL,
                        tokenHash TEXT NOT NULL UNIQUE,
                        enrolledAt REAL NOT NULL,
                        revokedAt REAL,
                        revokedBy TEXT,
                        lastSeenAt REAL,
                        lastUploadAt REAL,
                        queueSize INTEGER,
                        intakeVersion TEXT
                    );
                    CREATE INDEX deviceByTeam ON device (teamId, enrolledAt);
                    """)
        }
        migrator.registerMigration("v29: test records of draft questionnaire versions, kept apart") { db in
            try db.execute(
                sql: """
                    CREATE TABLE testRecord (
                        id TEXT PRIMARY KEY NOT NULL,
                        questionnaireId TEXT NOT NULL,
                        version TEXT NOT NULL,
                        teamId INTEGER NOT NULL REFERENCES team(id),
                        collector TEXT NOT NULL,
                        submittedBy TEXT NOT NULL,
                        receivedAt REAL NOT NULL,
                        answerCount INTEGER NOT NULL,
                        payload BLOB NOT NULL
                    );
                    CREATE INDEX testRecordByVersion ON testRecord (questionnaireId, version, receivedAt);
                    """)
        }
        migrator.registerMigration("v30: records' review: state, lock and thread") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN reviewState TEXT NOT NULL DEFAULT 'received';
                    ALTER TABLE record ADD COLUMN reviewLocked INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE record ADD COLUMN reviewedAt REAL;
                    ALTER TABLE record ADD COLUMN reviewedBy TEXT;
                    CREATE INDEX recordByReview ON record (teamId, reviewState, updatedAt);
                    CREATE TABLE reviewEntry (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        recordId TEXT NOT NULL,
                        author TEXT NOT NULL,
                        state TEXT,
                        locked INTEGER,
                        text TEXT NOT NULL,
                        at REAL NOT NULL
                    );
                    CREATE INDEX reviewEntryByRecord ON reviewEntry (recordId, id);
                    """)
        }
        migrator.registerMigration("v31: the language a user chose for the console") { db in
            try db.execute(sql: "ALTER TABLE user ADD COLUMN language TEXT")
        }
        migrator.registerMigration("v32: the time zone a team's pages show times in") { db in
            try db.execute(sql: "ALTER TABLE team ADD COLUMN timeZone TEXT")
        }
        // A record's current revision kept its body twice (the record's and the revision's):
        // now it is the record's alone, the revision's NULL until an edit makes it a past one.
        // The content hash is looked up through the key (a record has few revisions), so its
        // own index goes. SQLite cannot drop a NOT NULL: the table is made again.
        migrator.registerMigration("v33: each revision's body stored once") { db in
            try db.execute(
                sql: """
                    CREATE TABLE recordRevision_v33 (
                        recordId TEXT NOT NULL REFERENCES record(id),
                        revision INTEGER NOT NULL,
                        contentHash TEXT NOT NULL,
                        body TEXT,
                        savedBy TEXT NOT NULL,
                        savedAt REAL NOT NULL,
                        deviceId TEXT,
                        PRIMARY KEY (recordId, revision)
                    );
                    INSERT INTO recordRevision_v33 (recordId, revision, contentHash, body, savedBy, savedAt, deviceId)
                        SELECT v.recordId, v.revision, v.contentHash,
                            CASE WHEN v.revision = r.revision AND v.body = r.body THEN NULL ELSE v.body END,
                            v.savedBy, v.savedAt, v.deviceId
                        FROM recordRevision v LEFT JOIN record r ON r.id = v.recordId;
                    DROP TABLE recordRevision;
                    ALTER TABLE recordRevision_v33 RENAME TO recordRevision;
                    """)
        }
        // A lookup entry is keyed by its record's rowid, which grows as records come: its
        // insert lands at the end of the table's B-tree, not on a page at random, and the
        // unique index of record ids it kept (one page written a record, at scale) goes. Should
        // the record table's rowids move (a dump restored into a new file without
        // --preserve-rowids closes the gaps purged tombstones leave; SQLite's documentation says
        // a VACUUM may too), the update and delete triggers, which match the record's id as well
        // as its rowid, leave a misplaced entry alone rather than take it for another record's;
        // a new record's entry takes the place of whatever sits at its rowid (v36); and
        // `placeRowsKeyedByRecord` remakes them all at the open. A record inserted deleted (a
        // transfer's exit entry) gets no entry.
        migrator.registerMigration("v34: lookup entries keyed by their record's rowid") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER record_lookup_insert;
                    DROP TRIGGER record_lookup_update;
                    DROP TRIGGER record_lookup_delete;
                    CREATE TABLE lookupEntry_v34 (
                        entry INTEGER PRIMARY KEY,
                        recordId TEXT NOT NULL,
                        teamId INTEGER NOT NULL,
                        familyNameKey TEXT NOT NULL,
                        givenNameKey TEXT NOT NULL,
                        dateOfBirth TEXT,
                        externalIdKey TEXT,
                        updatedAt REAL NOT NULL
                    );
                    INSERT INTO lookupEntry_v34 (entry, recordId, teamId, familyNameKey, givenNameKey, dateOfBirth, externalIdKey, updatedAt)
                        SELECT r.rowid, e.recordId, e.teamId, e.familyNameKey, e.givenNameKey, e.dateOfBirth, e.externalIdKey, e.updatedAt
                        FROM lookupEntry e JOIN record r ON r.id = e.recordId
                        WHERE r.deletedAt IS NULL
                        ORDER BY r.rowid;
                    DROP TABLE lookupEntry;
                    ALTER TABLE lookupEntry_v34 RENAME TO lookupEntry;
                    CREATE INDEX lookupEntry_birth ON lookupEntry (teamId, dateOfBirth);
                    CREATE INDEX lookupEntry_external ON lookupEntry (teamId, externalIdKey);
                    CREATE INDEX lookupEntry_family_newest ON lookupEntry (teamId, familyNameKey, updatedAt DESC, recordId);
                    CREATE INDEX lookupEntry_given_newest ON lookupEntry (teamId, givenNameKey, updatedAt DESC, recordId);
                    CREATE INDEX lookupEntry_pair_newest ON lookupEntry (teamId, familyNameKey, givenNameKey, updatedAt DESC, recordId);
                    CREATE TRIGGER lookupEntry_keys_insert AFTER INSERT ON lookupEntry BEGIN
                        INSERT OR IGNORE INTO lookupKey (teamId, field, key) VALUES (new.teamId, 0, new.familyNameKey);
                        INSERT OR IGNORE INTO lookupKey (teamId, field, key) VALUES (new.teamId, 1, new.givenNameKey);
                    END;
                    CREATE TRIGGER lookupEntry_keys_update AFTER UPDATE OF teamId, familyNameKey, givenNameKey ON lookupEntry BEGIN
                        INSERT OR IGNORE INTO lookupKey (teamId, field, key) VALUES (new.teamId, 0, new.familyNameKey);
                        INSERT OR IGNORE INTO lookupKey (teamId, field, key) VALUES (new.teamId, 1, new.givenNameKey);
                    END;
                    CREATE TRIGGER record_lookup_insert AFTER INSERT ON record WHEN new.deletedAt IS NULL BEGIN
                        INSERT INTO lookupEntry (entry, recordId, teamId, familyNameKey, givenNameKey, dateOfBirth, externalIdKey, updatedAt)
                        VALUES (new.rowid, new.id, new.teamId, new.familyNameKey, new.givenNameKey, new.dateOfBirth, lower(new.externalId),
                            new.updatedAt);
                    END;
                    CREATE TRIGGER record_lookup_update AFTER UPDATE ON record BEGIN
                        UPDATE lookupEntry SET teamId = new.teamId, familyNameKey = new.familyNameKey, givenNameKey = new.givenNameKey,
                            dateOfBirth = new.dateOfBirth, externalIdKey = lower(new.externalId), updatedAt = new.updatedAt
                        WHERE entry = new.rowid AND recordId = new.id;
                    END;
                    CREATE TRIGGER record_lookup_delete AFTER UPDATE OF deletedAt ON record WHEN new.deletedAt IS NOT NULL BEGIN
                        DELETE FROM lookupEntry WHERE entry = new.rowid AND recordId = new.id;
                    END;
                    """)
        }
        // v34's insert trigger failed a new record whose rowid held a misplaced entry (a UNIQUE
        // constraint, at every try until a restart remade the entries): it replaces it now.
        migrator.registerMigration("v35: a new record's lookup entry replaces a misplaced one") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER record_lookup_insert;
                    CREATE TRIGGER record_lookup_insert AFTER INSERT ON record WHEN new.deletedAt IS NULL BEGIN
                        INSERT OR REPLACE INTO lookupEntry (entry, recordId, teamId, familyNameKey, givenNameKey, dateOfBirth, externalIdKey, updatedAt)
                        VALUES (new.rowid, new.id, new.teamId, new.familyNameKey, new.givenNameKey, new.dateOfBirth, lower(new.externalId),
                            new.updatedAt);
                    END;
                    """)
        }
        // v35's `INSERT OR REPLACE` made ingest a fifth slower (SQLite's REPLACE path, measured
        // with `intake-bench store`: 8,260 and 8,369 → 6,527 and 6,566 records/s): a misplaced
        // entry at the new record's rowid is deleted by its key first, then the entry inserted.
        migrator.registerMigration("v36: a new record's lookup entry takes a misplaced one's place without REPLACE") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER record_lookup_insert;
                    CREATE TRIGGER record_lookup_insert AFTER INSERT ON record WHEN new.deletedAt IS NULL BEGIN
                        DELETE FROM lookupEntry WHERE entry = new.rowid;
                        INSERT INTO lookupEntry (entry, recordId, teamId, familyNameKey, givenNameKey, dateOfBirth, externalIdKey, updatedAt)
                        VALUES (new.rowid, new.id, new.teamId, new.familyNameKey, new.givenNameKey, new.dateOfBirth, lower(new.externalId),
                            new.updatedAt);
                    END;
                    """)
        }
        // A record's revisions are keyed by the record's rowid, which grows as records come:
        // a new record's revision lands at the end of the table's one B-tree (WITHOUT ROWID),
        // where its key on the record's id put it on a page at random (one page written a
        // record, at scale). The id stays in the row and every statement matches both, so a
        // revision left on a renumbered rowid (see v34) is never taken for another record's;
        // `placeRowsKeyedByRecord` puts them back at the open, and the store's writes do before they
        // touch a record whose revisions are not where its rowid says (``placedRevisions``).
        // No foreign key: SQLite would look for a purged record's revisions by a scan.
        migrator.registerMigration("v37: revisions keyed by their record's rowid") { db in
            try db.execute(
                sql: """
                    CREATE TABLE recordRevision_v37 (
                        recordRow INTEGER NOT NULL,
                        revision INTEGER NOT NULL,
                        recordId TEXT NOT NULL,
                        contentHash TEXT NOT NULL,
                        body TEXT,
                        savedBy TEXT NOT NULL,
                        savedAt REAL NOT NULL,
                        deviceId TEXT,
                        PRIMARY KEY (recordRow, revision)
                    ) WITHOUT ROWID;
                    INSERT INTO recordRevision_v37 (recordRow, revision, recordId, contentHash, body, savedBy, savedAt, deviceId)
                        SELECT r.rowid, v.revision, v.recordId, v.contentHash, v.body, v.savedBy, v.savedAt, v.deviceId
                        FROM recordRevision v JOIN record r ON r.id = v.recordId
                        WHERE r.deletedAt IS NULL
                        ORDER BY r.rowid, v.revision;
                    DROP TABLE recordRevision;
                    ALTER TABLE recordRevision_v37 RENAME TO recordRevision;
                    """)
        }
        // Cases (issue 49): one row a case, its inputs and state in `body` (CaseBody), the columns
        // a pull reads by. `changeSeq` orders case changes (the one writer takes the next).
        migrator.registerMigration("v38: cases") { db in
            try db.execute(
                sql: """
                    CREATE TABLE intakeCase (
                        id TEXT PRIMARY KEY NOT NULL,
                        teamId INTEGER NOT NULL,
                        list TEXT NOT NULL,
                        patientId TEXT,
                        assignee TEXT,
                        status TEXT NOT NULL,
                        due TEXT,
                        revision INTEGER NOT NULL,
                        changeSeq INTEGER NOT NULL UNIQUE,
                        updatedAt REAL NOT NULL,
                        body TEXT NOT NULL
                    );
                    CREATE INDEX intakeCase_team ON intakeCase (teamId, changeSeq);
                    CREATE INDEX intakeCase_assignee ON intakeCase (teamId, assignee, changeSeq) WHERE status = 'open';
                    CREATE INDEX intakeCase_open ON intakeCase (teamId, changeSeq) WHERE status = 'open';
                    CREATE TABLE caseCursor (teamId INTEGER PRIMARY KEY NOT NULL, cursor INTEGER NOT NULL);
                    """)
        }
        // What a record does to cases, worked out at ingest and kept on its row (CaseWorkCodec):
        // the case service reads it, not the record. A record stored before, which the case
        // service has not read yet, is marked to be read once ('derive'). The case a record
        // names (`followsCase`) stays when it is deleted or moved: its visit is withdrawn.
        migrator.registerMigration("v39: a record's case work on its row") { db in
            try db.execute(
                sql: """
                    ALTER TABLE record ADD COLUMN caseWork TEXT;
                    ALTER TABLE record ADD COLUMN followsCase TEXT;
                    CREATE INDEX intakeCase_due ON intakeCase (teamId, due) WHERE status = 'open';
                    UPDATE record SET followsCase = json_extract(body, '$.case.id')
                        WHERE deletedAt IS NULL AND exitOf IS NULL AND instr(body, '"case"') > 0 AND json_valid(body);
                    UPDATE record SET caseWork = 'derive'
                        WHERE deletedAt IS NULL AND exitOf IS NULL
                          AND teamSeq > COALESCE((SELECT c.cursor FROM caseCursor c WHERE c.teamId = record.teamId), 0);
                    """)
        }
        return migrator
    }

    /// Every revision put on its record's rowid now, in place: first moved to keys no rowid has
    /// (negative), then each onto its record's rowid, so no two ever meet on one key (no copy of
    /// the table: past bodies are patients' data, and this can run inside a group commit, whose
    /// temporary storage is memory). Those of records deleted (or purged) while they were
    /// misplaced, which the delete's keyed statement missed, go first: a deleted record's
    /// revisions are not kept.
    static func remakeRevisions(_ db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM recordRevision
                    WHERE NOT EXISTS (SELECT 1 FROM record r WHERE r.id = recordRevision.recordId AND r.deletedAt IS NULL);
                UPDATE recordRevision SET recordRow = -recordRow - 1 WHERE recordRow >= 0;
                UPDATE recordRevision SET recordRow = (SELECT r.rowid FROM record r WHERE r.id = recordRevision.recordId);
                """)
    }

    /// Lookup entries (v34) and revisions (v37) sit on their records' rowids. Should something
    /// have renumbered the record table's rowids since (see v34), the newest of them no longer
    /// match the records at their keys, and all are placed again from the records. Asked at
    /// every open: a read of the 64 newest of each by key (a sample: renumbering closes gaps,
    /// which moves the newest rows), and a write only when one is misplaced.
    static func placeRowsKeyedByRecord(_ database: some DatabaseWriter) throws {
        let tables: [(table: String, key: String, remake: (Database) throws -> Void)] = [
            ("lookupEntry", "entry", remakeLookupEntries), ("recordRevision", "recordRow", remakeRevisions),
        ]
        for (table, key, remake) in tables {
            let misplaced = try database.read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) FROM (
                            SELECT t.recordId, r.id FROM \(table) t LEFT JOIN record r ON r.rowid = t.\(key) ORDER BY t.\(key) DESC LIMIT 64
                        ) WHERE id IS NOT recordId
                        """) ?? 0
            }
            if misplaced > 0 { try database.write { db in try remake(db) } }
        }
    }

    private static func remakeLookupEntries(_ db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM lookupEntry;
                INSERT INTO lookupEntry (entry, recordId, teamId, familyNameKey, givenNameKey, dateOfBirth, externalIdKey, updatedAt)
                    SELECT rowid, id, teamId, familyNameKey, givenNameKey, dateOfBirth, lower(externalId), updatedAt
                    FROM record WHERE deletedAt IS NULL ORDER BY rowid;
                """)
    }

    /// Keys stored before v26 are `NameKey.fold` of the names; `NameKey.lookupKey` is that with
    /// `NameKey.arabicFoldings` applied, which `replace()` does here, on the rows it changes only.
    /// A record's update carries its new keys to its lookup entry (record_lookup_update) and adds
    /// them to the vocabulary (lookupEntry_keys_update); lookup entries are updated too, should one
    /// differ. The vocabulary's keys nothing can look up any more (those of before, and those
    /// half-way through the passes) leave it, and its trigram index.
    private static var arabicNameKeys: [String] {
        let stale = NameKey.holdsArabicVariantSQL("key")
        return NameKey.foldingArabicUpdates(table: "record", columns: ["givenNameKey", "familyNameKey"])
            + NameKey.foldingArabicUpdates(table: "lookupEntry", columns: ["givenNameKey", "familyNameKey"])
            + [
                "INSERT INTO lookupKeyName (lookupKeyName, rowid, key) SELECT 'delete', keyId, key FROM lookupKey WHERE \(stale)",
                "DELETE FROM lookupKey WHERE \(stale)",
            ]
            + NameKey.foldingArabicUpdates(table: "patient", columns: ["givenKey", "familyKey"])
    }

    /// Rewrites every body of `table` in canonical form (and its hash), a thousand rows at a time.
    private static func rewriteCanonically(table: String, hashColumn: String?, _ db: Database) throws {
        let set = hashColumn.map { "body = ?, \($0) = ?" } ?? "body = ?"
        let update = try db.makeStatement(sql: "UPDATE \(table) SET \(set) WHERE rowid = ?")
        var after: Int64 = 0
        while true {
            let rows = try Row.fetchAll(
                db, sql: "SELECT rowid, body FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT 1000", arguments: [after])
            guard let last = rows.last else { return }
            for row in rows {
                let canonical = RecordCodec.encode(try RecordCodec.decode(Array((row["body"] as String).utf8)))
                let body = String(decoding: canonical, as: UTF8.self)
                let rowid: Int64 = row["rowid"]
                if hashColumn != nil {
                    try update.execute(arguments: [body, RecordCodec.contentHash(ofCanonical: canonical), rowid])
                } else {
                    try update.execute(arguments: [body, rowid])
                }
            }
            after = last["rowid"]
        }
    }
}
