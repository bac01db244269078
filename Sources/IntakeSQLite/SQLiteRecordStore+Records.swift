import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    public func ingest(_ items: [IngestItem], owner: RecordOwner, at time: Date) async throws -> [IngestOutcome] {
        try await ingestGroup.submit(IngestJob(items: items, owner: owner, time: time))
    }

    public func observeIngest(_ metrics: GroupCommitMetrics) {
        ingestGroup.observe(metrics) { $0.items.count }
        fallbacks.report(to: metrics)
    }

    /// One transaction for every request's records that arrived while the last commit ran.
    ///
    /// The group goes in as one: no savepoint per request, whose sub-journal copied each page a
    /// request touched before changing it (with the statement journals' file, about a sixth of
    /// the server's CPU under `intake flush`, profiled). Should a request fail, the whole group
    /// is rolled back and taken again with a savepoint each (``commitGroup(_:apart:_:)``), so a request
    /// that fails takes nothing else with it. A failing database (full, failing, locked by
    /// another process) is no request's failure: the group fails as one, at once, as it did
    /// when that happened at its `BEGIN` or `COMMIT`, and is counted with the failed groups.
    static func commit(_ jobs: [IngestJob], into database: DatabasePool, fallbacks: FallbackCount, hold: CommitHold? = nil) async throws
        -> [Result<[IngestOutcome], any Error>]
    {
        do {
            return try await database.writeWithoutTransaction { db in
                // The group's statement journals (an insert whose triggers fill the lookup tables
                // keeps a copy of each page it changes until it ends: about 60 KB) stay in
                // memory, not in a file under /var/tmp: no write call is made for them (profiled:
                // that file took more bytes than the database and its WAL together under
                // `intake flush`), and on this path page images of records do not reach an
                // unencrypted temporary file. Only here: a statement that changes many rows (a
                // migration, a purge) and a group taken apart in savepoints keep their journals
                // in a file. SQLite reads the setting as a transaction begins.
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
                defer { try? db.execute(sql: "PRAGMA temp_store = DEFAULT") }
                var results: [Result<[IngestOutcome], any Error>] = []
                try db.inTransaction {
                    results = try commitGroup(jobs, apart: false, db)
                    hold?.reachAndWaitBlocking()
                    return .commit
                }
                return results
            }
        } catch {
            if outage(error) != nil { throw error }
            // A request alone fails alone, as it would have in a savepoint of its own.
            guard jobs.count > 1 else { return [.failure(error)] }
            fallbacks.increment()
            return try await database.write { db in try commitGroup(jobs, apart: true, db) }
        }
    }

    package func holdGroupCommits(at hold: CommitHold?) { commitHold.current = hold }

    /// One writer at a time: a second server's write waits for a transaction held open (up to
    /// the busy timeout, 10 s, then 503).
    package var writersTakeTurns: Bool { true }

    /// Every request's records in the one transaction. Together, the first failure fails them
    /// all; `apart`, each request is in a savepoint of its own and one that fails is rolled back alone.
    private static func commitGroup(_ jobs: [IngestJob], apart: Bool, _ db: Database) throws -> [Result<[IngestOutcome], any Error>] {
        // Which of the group's ids the database holds, in one statement: a record it does not
        // hold (nearly all of them) is inserted without a look of its own.
        var held = try Self.heldIds(jobs.flatMap { $0.items.map { key($0.record.id) } }, db)
        let results = try jobs.map { job -> Result<[IngestOutcome], any Error> in
            var inserted: Set<String> = []
            func run() throws -> [IngestOutcome] {
                try job.items.map { item in try Self.ingest(item, owner: job.owner, at: job.time, held: held, inserted: &inserted, db) }
            }
            let result: Result<[IngestOutcome], any Error>
            if apart {
                result = Result {
                    var outcomes: [IngestOutcome] = []
                    try db.inSavepoint {
                        outcomes = try run()
                        return .commit
                    }
                    return outcomes
                }
            } else {
                result = .success(try run())
            }
            // Only once the request's records are kept: a later request sending one of these ids again finds it.
            if case .success = result { held.formUnion(inserted) }
            return result
        }
        // The audit trail holds every record created, in the same transaction.
        _ = try Self.appendAudit(AuditEntry.recordsCreated(jobs, results, items: \.items, owner: \.owner, at: \.time), db)
        return results
    }

    /// The ids among `ids` that a record row has (deleted ones included).
    private static func heldIds(_ ids: [String], _ db: Database) throws -> Set<String> {
        var list = JSONWriter(capacity: 2 + ids.count * 39)
        list.beginArray()
        for id in ids { list.string(id) }
        list.endArray()
        return try Set(
            String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM record WHERE id IN (SELECT value FROM json_each(?))"),
                arguments: [String(decoding: list.bytes, as: UTF8.self)]))
    }

    /// One record of a group; `held` are the ids the database held before the group (see
    /// ``heldIds(_:_:)``) and its earlier requests stored, `inserted` those this request stored.
    private static func ingest(
        _ item: IngestItem, owner: RecordOwner, at time: Date, held: Set<String>, inserted: inout Set<String>, _ db: Database
    ) throws -> IngestOutcome {
        let id = key(item.record.id)
        if held.contains(id) || inserted.contains(id),
            let existing = try Row.fetchOne(db.cachedStatement(sql: "SELECT rowid, * FROM record WHERE id = ?"), arguments: [id])
        {
            return try RecordRules.resent(standing(existing), teamId: owner.teamId) {
                let row = try placedRevisions(existing, db)
                return try Bool.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT EXISTS (SELECT 1 FROM recordRevision WHERE recordRow = ? AND recordId = ? AND contentHash = ?)"),
                    arguments: [row, id, item.contentHash]) ?? false
            }
        }
        let r = item.record
        let body = String(decoding: item.body, as: UTF8.self)
        try db.cachedStatement(
            sql: """
                INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, collector, status, revision,
                                    createdAt, updatedAt, receivedAt, givenNameKey, familyNameKey, dateOfBirth, externalId, body,
                                    patientId, caseWork, followsCase, changeSeq, teamSeq, firstChangeSeq, firstTeamSeq)
                VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record),
                        (SELECT COALESCE(MAX(teamSeq), 0) + 1 FROM record WHERE teamId = ?),
                        (SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record),
                        (SELECT COALESCE(MAX(teamSeq), 0) + 1 FROM record WHERE teamId = ?))
                """
        ).execute(
            arguments: [
                id, r.questionnaire.id, r.questionnaire.version, owner.teamId, owner.username, r.collector, r.status.rawValue,
                timestamp(r.createdAt), timestamp(time), timestamp(time), item.givenNameKey,
                item.familyNameKey, r.patient.dateOfBirth?.description, r.patient.externalId, body,
                r.patientId.map(key), item.caseWork, item.followsCase, owner.teamId, owner.teamId,
            ])
        try insertRevision(
            item, at: db.lastInsertedRowID, revision: 1, savedBy: owner.username, at: time, deviceId: item.deviceId ?? owner.deviceId, db)
        try notifyAlerts(item, teamId: owner.teamId, at: time, db)
        inserted.insert(id)
        return .created(revision: 1)
    }

    /// The team's coordinators hear of each alert the record raises, in the record's transaction.
    private static func notifyAlerts(_ item: IngestItem, teamId: Int64, at time: Date, _ db: Database) throws {
        for alert in item.alerts {
            try db.cachedStatement(
                sql: """
                    INSERT INTO notification (userId, type, eventKey, subject, createdAt)
                    SELECT id, ?, ?, ?, ? FROM user WHERE role = 'coordinator' AND teamId = ?
                    ON CONFLICT (userId, eventKey) DO NOTHING
                    """
            ).execute(
                arguments: [
                    NotificationType.recordAlert, RecordAlert.eventKey(record: item.record, alert: alert),
                    NotificationSubject.encode(RecordAlert.subject(record: item.record, alert: alert, teamId: teamId)), timestamp(time),
                    teamId,
                ])
        }
    }

    /// The record's new current revision, on the record's rowid `recordRow` (v37). Its body is
    /// the record's (stored once, there): the revision's is NULL until ``keepPastBody(_:row:_:)``
    /// gives it its own as an edit replaces it. `deviceId`: the item's, or its sender's (passed,
    /// not set on a copy of the item: copying the record was 6 % of the store's CPU). Should
    /// another record's revision be in its place (rowids renumbered while the server ran), all
    /// revisions are placed again and it is inserted then.
    private static func insertRevision(
        _ item: IngestItem, at recordRow: Int64, revision: Int, savedBy: String, at time: Date, deviceId: String?, _ db: Database
    ) throws {
        let insert = """
            INSERT INTO recordRevision (recordRow, revision, recordId, contentHash, body, savedBy, savedAt, deviceId)
            VALUES (?, ?, ?, ?, NULL, ?, ?, ?)
            """
        let arguments: StatementArguments = [
            recordRow, revision, key(item.record.id), item.contentHash, savedBy, timestamp(time), deviceId,
        ]
        do {
            try db.cachedStatement(sql: insert).execute(arguments: arguments)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY {
            // Asked for again: a statement that failed is not run twice (GRDB drops it from its
            // cache; its reset would answer with the failure).
            try remakeRevisions(db)
            try db.cachedStatement(sql: insert).execute(arguments: arguments)
        }
    }

    /// The rowid a record's revisions sit on (v37), `row` being its row with its rowid, once
    /// they are known to be there: should its current revision be missing at its rowid but held
    /// elsewhere (rowids renumbered while the server ran, which the open's check had no chance
    /// to see), every revision is placed again first. A lookup by key; the scan and the rewrite
    /// only for a record whose revisions moved, once.
    static func placedRevisions(_ row: Row, _ db: Database) throws -> Int64 {
        let recordRow: Int64 = row["rowid"], id: String = row["id"], revision: Int = row["revision"]
        let placed = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM recordRevision WHERE recordRow = ? AND revision = ? AND recordId = ?)"),
            arguments: [recordRow, revision, id])
        if placed != true,
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM recordRevision WHERE recordId = ?)", arguments: [id]) == true
        {
            try remakeRevisions(db)
        }
        return recordRow
    }

    /// Before an edit replaces the record's body, the revision that was current keeps it.
    private static func keepPastBody(_ id: String, row recordRow: Int64, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE recordRevision SET body = (SELECT body FROM record WHERE id = ?)
                WHERE recordRow = ? AND recordId = ? AND body IS NULL
                """
        ).execute(arguments: [id, recordRow, id])
    }

    public func record(id: UUID) async throws -> StoredRecord? {
        try await database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM record WHERE id = ? AND deletedAt IS NULL", arguments: [Self.key(id)])
            else { return nil }
            return StoredRecord(
                record: try PatientResponse(jsonData: Data((row["body"] as String).utf8)), revision: row["revision"],
                teamId: row["teamId"], receivedBy: row["receivedBy"], collector: row["collector"], receivedAt: Self.date(row["receivedAt"]),
                updatedAt: Self.date(row["updatedAt"]))
        }
    }

    public func records(idPrefix prefix: String, teamId: Int64, limit: Int) async throws -> [RecordIdMatch] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT id, questionnaireId, collector FROM record WHERE teamId = ? AND deletedAt IS NULL AND id LIKE ? ORDER BY id LIMIT ?",
                arguments: [teamId, prefix + "%", limit]
            ).compactMap { row in
                UUID(uuidString: row["id"]).map {
                    RecordIdMatch(id: $0, questionnaireId: row["questionnaireId"], collector: row["collector"])
                }
            }
        }
    }

    public func revisions(of id: UUID) async throws -> [RecordRevision] {
        try await database.read { db in
            // By the record's rowid (v37); should its revisions have moved off it since the open
            // (rowids renumbered while the server ran), found by a scan of them all.
            let select = "SELECT v.revision, COALESCE(v.body, r.body) AS body, v.savedBy, v.savedAt, v.deviceId FROM record r"
            let id = Self.key(id)
            var rows = try Row.fetchAll(
                db,
                sql: "\(select) JOIN recordRevision v ON v.recordRow = r.rowid AND v.recordId = r.id WHERE r.id = ? ORDER BY v.revision",
                arguments: [id])
            if rows.isEmpty,
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM record WHERE id = ? AND deletedAt IS NULL)", arguments: [id])
                    == true
            {
                rows = try Row.fetchAll(
                    db, sql: "\(select) JOIN recordRevision v ON v.recordId = r.id WHERE r.id = ? ORDER BY v.revision", arguments: [id])
            }
            return try rows.map { row in
                RecordRevision(
                    revision: row["revision"], record: try PatientResponse(jsonData: Data((row["body"] as String).utf8)),
                    savedBy: row["savedBy"], savedAt: Self.date(row["savedAt"]), deviceId: row["deviceId"])
            }
        }
    }

    public func update(_ item: IngestItem, baseRevision: Int, teamId: Int64, savedBy: String, at time: Date) async throws
        -> UpdateOutcome
    {
        try await database.write { db in
            let id = Self.key(item.record.id)
            let revision: Int
            let row = try Row.fetchOne(db, sql: "SELECT rowid, * FROM record WHERE id = ?", arguments: [id])
            let standing = row.map(Self.standing)
            switch RecordRules.edit(standing, teamId: teamId, baseRevision: baseRevision) {
            case .refuse(let outcome): return outcome
            case .save(let next): revision = next
            }
            guard let row else { return .notFound }
            let r = item.record
            let recordRow = try Self.placedRevisions(row, db)
            try Self.keepPastBody(id, row: recordRow, db)
            try db.execute(
                sql: """
                    UPDATE record SET questionnaireId = ?, questionnaireVersion = ?, status = ?, revision = ?, updatedAt = ?,
                        givenNameKey = ?, familyNameKey = ?, dateOfBirth = ?, externalId = ?, body = ?, patientId = ?, caseWork = ?, followsCase = ?,
                        changeSeq = (SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record),
                        teamSeq = (SELECT COALESCE(MAX(teamSeq), 0) + 1 FROM record WHERE teamId = ?)
                    WHERE id = ?
                    """,
                arguments: [
                    r.questionnaire.id, r.questionnaire.version, r.status.rawValue, revision, Self.timestamp(time),
                    item.givenNameKey, item.familyNameKey, r.patient.dateOfBirth?.description,
                    r.patient.externalId, String(decoding: item.body, as: UTF8.self), r.patientId.map(Self.key), item.caseWork,
                    item.followsCase, teamId, id,
                ])
            try Self.insertRevision(item, at: recordRow, revision: revision, savedBy: savedBy, at: time, deviceId: item.deviceId, db)
            if let standing { try Self.reviewEdited(standing, id: id, by: savedBy, at: time, db) }
            _ = try Self.appendAudit([AuditEntry.recordUpdate(item, revision: revision, by: savedBy, at: time)], db)
            try Self.notifyAlerts(item, teamId: teamId, at: time, db)
            return .updated(revision: revision)
        }
    }

    public func deleteRecord(id: UUID, teamId: Int64, reason: String, by user: String, at time: Date) async throws -> DeleteOutcome {
        try await database.write { db in
            let key = Self.key(id)
            guard let row = try Row.fetchOne(db, sql: "SELECT rowid, * FROM record WHERE id = ?", arguments: [key]) else {
                return .notFound
            }
            if case .refuse(let outcome) = RecordRules.delete(Self.standing(row), teamId: teamId) { return outcome }
            let recordRow = try Self.placedRevisions(row, db)
            // The content goes; the row stays as the tombstone, its cursors moved so the next
            // incremental export lists it as removed.
            try db.execute(
                sql: """
                    UPDATE record SET deletedAt = ?, deletedBy = ?, deleteReason = ?, body = '', givenNameKey = '', familyNameKey = '',
                        dateOfBirth = NULL, externalId = NULL, patientId = NULL, caseWork = NULL, updatedAt = ?,
                        changeSeq = (SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record),
                        teamSeq = (SELECT COALESCE(MAX(teamSeq), 0) + 1 FROM record WHERE teamId = ?)
                    WHERE id = ?
                    """,
                arguments: [Self.timestamp(time), user, reason, Self.timestamp(time), teamId, key])
            try db.execute(sql: "DELETE FROM recordRevision WHERE recordRow = ? AND recordId = ?", arguments: [recordRow, key])
            // The thread's comments are free text that may name the patient: they go with the record.
            try db.execute(sql: "DELETE FROM reviewEntry WHERE recordId = ?", arguments: [key])
            // Its open referrals close, and both sides are told: nothing is left to do.
            try Self.closeReferrals(db, recordId: id, by: user, at: time)
            let tombstone = Tombstone(
                recordId: id, teamId: teamId, questionnaireId: row["questionnaireId"], revision: row["revision"],
                deletedAt: Self.date(Self.timestamp(time)),
                deletedBy: user, reason: reason)
            _ = try Self.appendAudit([AuditEntry.recordDelete(tombstone)], db)
            return .deleted(tombstone)
        }
    }

    /// What ``RecordRules`` decides on: the record's team, revision and tombstone.
    private static func standing(_ row: Row) -> RecordStanding {
        RecordStanding(
            teamId: row["teamId"], revision: row["revision"], tombstone: tombstone(row),
            review: ReviewState(rawValue: row["reviewState"]) ?? .received,
            locked: row["reviewLocked"], reviewedBy: row["reviewedBy"])
    }

    public func tombstone(id: UUID) async throws -> Tombstone? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM record WHERE id = ? AND deletedAt IS NOT NULL", arguments: [Self.key(id)]).flatMap(
                Self.tombstone)
        }
    }

    public func purgeTombstones(deletedBefore cutoff: Date, by user: String, at time: Date) async throws -> TombstonePurge {
        try await database.write { db in
            // Change cursors are counted from the newest row: the tombstone holding a team's
            // newest change (or the deployment's) stays until a newer change passes it.
            let old = "deletedAt IS NOT NULL AND deletedAt < ?"
            let held = """
                (changeSeq = (SELECT MAX(changeSeq) FROM record)
                 OR teamSeq = (SELECT MAX(t.teamSeq) FROM record t WHERE t.teamId = record.teamId)
                 OR EXISTS (SELECT 1 FROM referral f WHERE f.recordId = record.id))
                """
            let cutoff = Self.timestamp(cutoff)
            let kept = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM record WHERE \(old) AND \(held)", arguments: [cutoff]) ?? 0
            // A change feed reader that stopped before a purged deletion must start again.
            try db.execute(
                sql: """
                    INSERT INTO changeHorizon (teamId, teamSeq)
                    SELECT teamId, MAX(teamSeq) FROM record WHERE \(old) AND NOT \(held) GROUP BY teamId
                    ON CONFLICT (teamId) DO UPDATE SET teamSeq = MAX(teamSeq, excluded.teamSeq)
                    """,
                arguments: [cutoff])
            try db.execute(sql: "DELETE FROM record WHERE \(old) AND NOT \(held)", arguments: [cutoff])
            let purge = TombstonePurge(purged: db.changesCount, kept: kept)
            _ = try Self.appendAudit([AuditEntry.tombstonePurge(purge, deletedBefore: Self.date(cutoff), by: user, at: time)], db)
            return purge
        }
    }

    public func changes(teamId: Int64, after: Int64, limit: Int) async throws -> ChangePage {
        try await database.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM record WHERE teamId = ? AND teamSeq > ? ORDER BY teamSeq LIMIT ?",
                arguments: [teamId, after, limit])
            let changes = try rows.compactMap { row -> RecordChange? in
                let cursor: Int64 = row["teamSeq"]
                if let exitOf = row["exitOf"] as String? {
                    guard let id = UUID(uuidString: exitOf) else { return nil }
                    return RecordChange(id: id, cursor: cursor, kind: .transferred(toTeamId: row["exitTo"] ?? 0))
                }
                if let tombstone = Self.tombstone(row) {
                    return RecordChange(id: tombstone.recordId, cursor: cursor, kind: .deleted(tombstone))
                }
                let record = try PatientResponse(jsonData: Data((row["body"] as String).utf8))
                return RecordChange(
                    id: record.id, cursor: cursor,
                    kind: .saved(
                        StoredRecord(
                            record: record, revision: row["revision"], teamId: row["teamId"], receivedBy: row["receivedBy"],
                            collector: row["collector"],
                            receivedAt: Self.date(row["receivedAt"]), updatedAt: Self.date(row["updatedAt"]))))
            }
            let horizon = try Int64.fetchOne(db, sql: "SELECT teamSeq FROM changeHorizon WHERE teamId = ?", arguments: [teamId]) ?? 0
            return ChangePage(changes: changes, horizon: horizon)
        }
    }

    /// The tombstone a deleted record's row holds; nil for a live record.
    static func tombstone(_ row: Row) -> Tombstone? {
        guard let deletedAt = row["deletedAt"] as Double?, let id = UUID(uuidString: row["id"]) else { return nil }
        return Tombstone(
            recordId: id, teamId: row["teamId"], questionnaireId: row["questionnaireId"], revision: row["revision"],
            deletedAt: date(deletedAt),
            deletedBy: row["deletedBy"] ?? "", reason: row["deleteReason"] ?? "")
    }

    static func key(_ id: UUID) -> String { id.uuidString.lowercased() }
}
