import Foundation
import IntakeCore
import IntakeService
import PostgresNIO

extension PostgresRecordStore {
    public func ingest(_ items: [IngestItem], owner: RecordOwner, at time: Date) async throws -> [IngestOutcome] {
        try await ingestGroup.submit(IngestJob(items: items, owner: owner, time: time))
    }

    package func holdGroupCommits(at hold: CommitHold?) { commitHold.current = hold }

    /// Ingest takes no lock another server's ingest waits for (PostgresChangeCursors.swift).
    package var writersTakeTurns: Bool { false }

    public func observeIngest(_ metrics: GroupCommitMetrics) {
        ingestGroup.observe(metrics) { $0.items.count }
        fallbacks.report(to: metrics)
    }

    /// One transaction for every request's records that arrived while the last commit ran.
    ///
    /// The group's records go in together, in four round trips whatever their number (`BEGIN`,
    /// `COMMIT` and the statements of ``commitTogether(_:_:)``; its insert, and the look it takes
    /// only for ids the database held, prepared once per connection: ``GroupStatement``). Should one of them fail, the group is taken again in a new
    /// transaction a request at a time, a savepoint each, so a request that fails takes nothing
    /// else with it.
    ///
    /// The connection the group failed on is closed (the pool opens another): postgres-nio answers
    /// a prepared statement whose preparation failed on a connection (a lock that timed out, a
    /// table away for a migration) with that same failure for as long as the connection lives,
    /// which would keep every later group on it on the slow path.
    static func commit(_ jobs: [IngestJob], client: PostgresClient, fallbacks: FallbackCount, chainer: AuditChainer, hold: CommitHold?)
        async throws
        -> [Result<[IngestOutcome], any Error>]
    {
        // The group's audit events are linked onto the chain after its commit (AuditChainer).
        defer { chainer.poke() }
        do {
            return try await client.withConnection { connection in
                do {
                    try await connection.query("BEGIN", logger: logger)
                    let outcomes = try await commitTogether(jobs, connection)
                    await hold?.reachAndWait()
                    try await connection.query("COMMIT", logger: logger)
                    return outcomes.map { .success($0) }
                } catch {
                    // Closing it also ends the transaction: PostgreSQL rolls back what a lost
                    // connection began.
                    try? await connection.close()
                    throw error
                }
            }
        } catch {
            fallbacks.increment()
            return try await transaction(client) { connection in
                let results = try await commitEach(jobs, connection)
                // Every record created is audited, its event pending in the same transaction.
                try await insertPending(AuditEntry.recordsCreated(jobs, results, items: \.items, owner: \.owner, at: \.time), connection)
                return results
            }
        }
    }

    /// A request at a time, a savepoint each, the cursors it takes marked (PostgresChangeCursors.swift)
    /// in its savepoint: a team that is not there fails its own request only.
    private static func commitEach(_ jobs: [IngestJob], _ connection: PostgresConnection) async throws -> [Result<
        [IngestOutcome], any Error
    >] {
        var results: [Result<[IngestOutcome], any Error>] = []
        for job in jobs {
            try await connection.query("SAVEPOINT job", logger: logger)
            do {
                try await markChanges(teams: [job.owner.teamId], connection)
                var outcomes: [IngestOutcome] = []
                for item in job.items { outcomes.append(try await ingest(item, owner: job.owner, at: job.time, connection)) }
                try await connection.query("RELEASE SAVEPOINT job", logger: logger)
                results.append(.success(outcomes))
            } catch {
                try await connection.query("ROLLBACK TO SAVEPOINT job", logger: logger)
                results.append(.failure(error))
            }
        }
        return results
    }

    /// One record of a group, with the request it came in.
    private struct GroupEntry {
        var job: Int
        var item: IngestItem
        var owner: RecordOwner
        var time: Date
    }

    /// How long a group commit waits for a lock another transaction holds (see ``commitTogether(_:_:)``).
    static let groupLockTimeout: Duration = .seconds(1)

    /// The group's records in two statements however many there are (and `BEGIN`, `COMMIT`): the
    /// marks of the cursors it will take (no lock another writer waits for:
    /// PostgresChangeCursors.swift); one statement that inserts the records and their first
    /// revisions, their cursors from sequences, and an audit event for each record created,
    /// pending until the chainer links it after the commit. The insert also notifies the alerts
    /// of the records it created. Ids it did not store (a record sent again, or one another
    /// server stored meanwhile) are looked at afterwards and answered by ``RecordRules`` from
    /// what the database holds.
    ///
    /// Ids the database holds are found by the group's first statement (with its marks, by that
    /// statement's snapshot), so the insert leaves them out without meeting them: its `ON
    /// CONFLICT` waits for a transaction that is changing a record it meets (an edit, a
    /// transfer, a questionnaire's collector-only switch, which changes all its records in one
    /// transaction), and the server's ingest would wait with it. It meets only an id another
    /// server inserts meanwhile; should that server's transaction stay open, the group waits no
    /// longer than ``groupLockTimeout`` and is then taken again a request at a time. (The look
    /// was first put in the prepared insert itself, `WHERE NOT EXISTS`: its plan, made once
    /// while the table was small, scanned the whole table for it.)
    private static func commitTogether(_ jobs: [IngestJob], _ connection: PostgresConnection) async throws -> [[IngestOutcome]] {
        var entries: [GroupEntry] = []
        for (index, job) in jobs.enumerated() {
            for var item in job.items {
                item.deviceId = item.deviceId ?? job.owner.deviceId
                entries.append(GroupEntry(job: index, item: item, owner: job.owner, time: job.time))
            }
        }
        var outcomes = [IngestOutcome?](repeating: nil, count: entries.count)
        // Only a later send of an id within the group is decided before the insert (by the first).
        var inserting = decide(entries, standings: [:], into: &outcomes)
        if !inserting.isEmpty {
            // The notification sequence too when a record raises an alert: the insert notifies.
            let alerting = inserting.contains { !entries[$0].item.alerts.isEmpty }
            let heldBefore = try await markForGroup(
                changeSequences(teams: inserting.map { entries[$0].owner.teamId }) + (alerting ? [notificationSequence] : []),
                lockTimeout: groupLockTimeout, probing: inserting.map { key(entries[$0].item.record.id) }, connection)
            let fresh = inserting.filter { !heldBefore.contains(key(entries[$0].item.record.id)) }
            let stored = fresh.isEmpty ? [] : try await insert(fresh.map { entries[$0] }, connection)
            let created = fresh.filter { stored.contains(key(entries[$0].item.record.id)) }
            for index in created { outcomes[index] = .created(revision: 1) }
            // Ids the database held (sent again, or stored by another server meanwhile): their
            // records, and the group's later sends of them, are answered from what it holds.
            let held = Set(inserting.map { key(entries[$0].item.record.id) }).subtracting(stored)
            if !held.isEmpty {
                let again = entries.indices.filter { held.contains(key(entries[$0].item.record.id)) }
                for index in again { outcomes[index] = nil }
                let standings = try await look(entries, at: again, connection)
                inserting = decide(entries, standings: standings, into: &outcomes)
                guard inserting.isEmpty else { throw PostgresGroupError.lostRace }
            }
        }
        var byJob = [[IngestOutcome]](repeating: [], count: jobs.count)
        for (entry, outcome) in zip(entries, outcomes) { byJob[entry.job].append(outcome!) }
        // Every record created is audited: the insert wrote its event, pending, in the same statement.
        return byJob
    }

    /// What the database holds of the records at `indices`: each one's standing, and whether a
    /// revision of it had the entry's content.
    private static func look(_ entries: [GroupEntry], at indices: [Int], _ connection: PostgresConnection) async throws
        -> [Int: (RecordStanding, seen: Bool)]
    {
        let look = GroupStatement.Look(
            ids: indices.map { key(entries[$0].item.record.id) }, hashes: indices.map { entries[$0].item.contentHash }, positions: indices)
        // Read to the end before the connection is asked anything else (a tombstone).
        var rows: [GroupStatement.Look.Row] = []
        for try await row in try await connection.execute(look, logger: logger) { rows.append(row) }
        var standings: [Int: (RecordStanding, seen: Bool)] = [:]
        for (index, revision, teamId, deleted, seen) in rows {
            let tombstone = deleted ? try await tombstone(id: entries[index].item.record.id, connection) : nil
            standings[index] = (RecordStanding(teamId: teamId, revision: revision, tombstone: tombstone), seen)
        }
        return standings
    }

    /// Answers each undecided entry the database holds (``RecordRules``), and each later entry of
    /// an id the group itself stores; the rest are to be inserted, their indices returned.
    private static func decide(
        _ entries: [GroupEntry], standings: [Int: (RecordStanding, seen: Bool)], into outcomes: inout [IngestOutcome?]
    ) -> [Int] {
        var inserting: [Int] = []
        var firstOfId: [UUID: Int] = [:]
        for index in entries.indices where outcomes[index] == nil {
            let entry = entries[index]
            if let held = standings[index] {
                outcomes[index] = RecordRules.resent(held.0, teamId: entry.owner.teamId) { held.seen }
            } else if let first = firstOfId[entry.item.record.id] {
                let standing = RecordStanding(teamId: entries[first].owner.teamId, revision: 1, tombstone: nil)
                outcomes[index] = RecordRules.resent(standing, teamId: entry.owner.teamId) {
                    entries[first].item.contentHash == entry.item.contentHash
                }
            } else {
                firstOfId[entry.item.record.id] = index
                inserting.append(index)
            }
        }
        return inserting
    }

    /// Inserts new records and their first revisions in one statement, with their audit events
    /// and the notifications of their alerts; the ids it stored (an id the database held is left
    /// out, and so are its alerts). Cursors come from the deployment's sequence and
    /// each team's (and the notifications' ids from theirs), marked before
    /// (``markForGroup(_:lockTimeout:probing:_:)``).
    private static func insert(_ entries: [GroupEntry], _ connection: PostgresConnection) async throws -> Set<String> {
        var insert = GroupStatement.Insert()
        for entry in entries {
            let record = entry.item.record
            insert.ids.append(key(record.id))
            insert.questionnaireIds.append(record.questionnaire.id)
            insert.versions.append(record.questionnaire.version)
            insert.teamIds.append(entry.owner.teamId)
            insert.receivedBy.append(entry.owner.username)
            insert.collectors.append(record.collector)
            insert.statuses.append(record.status.rawValue)
            insert.createdAt.append(timestamp(record.createdAt))
            insert.receivedAt.append(timestamp(entry.time))
            insert.givenKeys.append(entry.item.givenNameKey)
            insert.familyKeys.append(entry.item.familyNameKey)
            insert.births.append(record.patient.dateOfBirth?.description ?? "")
            insert.hasBirth.append(record.patient.dateOfBirth != nil)
            insert.externalIds.append(record.patient.externalId ?? "")
            insert.hasExternalId.append(record.patient.externalId != nil)
            insert.bodies.append(String(decoding: entry.item.body, as: UTF8.self))
            insert.patients.append(record.patientId.map(key) ?? "")
            insert.hasPatient.append(record.patientId != nil)
            insert.contentHashes.append(entry.item.contentHash)
            insert.devices.append(entry.item.deviceId ?? "")
            insert.hasDevice.append(entry.item.deviceId != nil)
            insert.caseWorks.append(entry.item.caseWork ?? "")
            insert.hasCaseWork.append(entry.item.caseWork != nil)
            insert.followsCases.append(entry.item.followsCase ?? "")
            insert.hasFollowsCase.append(entry.item.followsCase != nil)
            insert.auditDetails.append(
                AuditEvent.detailsText(AuditEntry.recordCreated(entry.item, owner: entry.owner, at: entry.time).details))
            for alert in entry.item.alerts {
                insert.alertRecordIds.append(key(record.id))
                insert.alertKeys.append(RecordAlert.eventKey(record: record, alert: alert))
                insert.alertSubjects.append(
                    NotificationSubject.encode(RecordAlert.subject(record: record, alert: alert, teamId: entry.owner.teamId)))
            }
        }
        var stored: Set<String> = []
        for try await id in try await connection.execute(insert, logger: logger) { stored.insert(id) }
        return stored
    }

    /// One record of a request taken apart from its group: looked at, then inserted unless another
    /// server stored the id meanwhile (then it is answered as sent again, as the group does).
    private static func ingest(_ item: IngestItem, owner: RecordOwner, at time: Date, _ connection: PostgresConnection) async throws
        -> IngestOutcome
    {
        var item = item
        item.deviceId = item.deviceId ?? owner.deviceId
        let id = key(item.record.id)
        let r = item.record
        let body = String(decoding: item.body, as: UTF8.self)
        for _ in 0..<2 {
            let rows = try await connection.query(
                """
                SELECT revision, teamId, EXISTS (SELECT 1 FROM recordRevision WHERE recordId = \(id) AND contentHash = \(item.contentHash)),
                    deletedAt IS NOT NULL
                FROM record WHERE id = \(id)
                """, logger: logger
            ).collect()
            if let row = rows.first {
                let (current, teamId, seen, deleted) = try row.decode((Int, Int64, Bool, Bool).self)
                let existing = RecordStanding(
                    teamId: teamId, revision: current, tombstone: deleted ? try await tombstone(id: item.record.id, connection) : nil)
                return RecordRules.resent(existing, teamId: owner.teamId) { seen }
            }
            let inserted = try await connection.query(
                """
                INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, collector, status, revision,
                                    createdAt, updatedAt, receivedAt, givenNameKey, familyNameKey, dateOfBirth, externalId, body, patientId,
                                    caseWork, followsCase, changeSeq, teamSeq, firstChangeSeq, firstTeamSeq)
                SELECT \(id), \(r.questionnaire.id), \(r.questionnaire.version), \(owner.teamId), \(owner.username), \(r.collector),
                    \(r.status.rawValue), 1, \(timestamp(r.createdAt)), \(timestamp(time)), \(timestamp(time)), \(item.givenNameKey),
                    \(item.familyNameKey), \(r.patient.dateOfBirth?.description), \(r.patient.externalId), \(body), \(r.patientId.map(key)),
                    \(item.caseWork), \(item.followsCase), s.change, s.team, s.change, s.team
                FROM (SELECT nextval('record_change') AS change, nextval(\(teamSequence(owner.teamId))::regclass) AS team) AS s
                ON CONFLICT (id) DO NOTHING
                RETURNING 1
                """, logger: logger
            ).collect()
            guard !inserted.isEmpty else { continue }
            try await insertRevision(item, revision: 1, savedBy: owner.username, at: time, connection)
            try await notifyAlerts([(item, owner.teamId, time)], connection)
            return .created(revision: 1)
        }
        throw PostgresGroupError.lostRace
    }

    /// The team's coordinators hear of each alert the records raise, in the records' transaction,
    /// when the records are stored apart (a group's insert notifies its own): one statement for all of them (a statement an alert was a round trip each, most of a
    /// group's time when most records raise one), the notifications made in the records' order,
    /// then the alerts', then the coordinators'.
    static func notifyAlerts(_ records: [(item: IngestItem, teamId: Int64, at: Date)], _ connection: PostgresConnection) async throws {
        var keys: [String] = [], subjects: [String] = [], times: [Double] = [], teams: [Int64] = []
        for (item, teamId, time) in records {
            for alert in item.alerts {
                keys.append(RecordAlert.eventKey(record: item.record, alert: alert))
                subjects.append(NotificationSubject.encode(RecordAlert.subject(record: item.record, alert: alert, teamId: teamId)))
                times.append(timestamp(time))
                teams.append(teamId)
            }
        }
        guard !keys.isEmpty else { return }
        // Their ids are a cursor webhooks follow (PostgresChangeCursors.swift).
        try await mark([notificationSequence], connection)
        try await connection.query(
            """
            INSERT INTO notification (userId, type, eventKey, subject, createdAt)
            SELECT a.id, \(NotificationType.recordAlert), q.eventKey, q.subject, q.at
            FROM unnest(\(keys)::text[], \(subjects)::text[], \(times)::float8[], \(teams)::bigint[])
                WITH ORDINALITY AS q(eventKey, subject, at, teamId, n)
            JOIN account a ON a.role = 'coordinator' AND a.teamId = q.teamId
            ORDER BY q.n, a.id
            ON CONFLICT (userId, eventKey) DO NOTHING
            """, logger: logger)
    }

    /// The record's new current revision. Its body is the record's (stored once, there): the
    /// revision's is NULL until an edit gives it its own as it replaces the record's.
    private static func insertRevision(
        _ item: IngestItem, revision: Int, savedBy: String, at time: Date, _ connection: PostgresConnection
    ) async throws {
        try await connection.query(
            """
            INSERT INTO recordRevision (recordId, revision, contentHash, body, savedBy, savedAt, deviceId)
            VALUES (\(key(item.record.id)), \(revision), \(item.contentHash), NULL, \(savedBy), \(timestamp(time)), \(item.deviceId))
            """, logger: logger)
    }

    public func record(id: UUID) async throws -> StoredRecord? {
        let rows = try await client.query(
            "SELECT body, revision, teamId, receivedBy, collector, receivedAt, updatedAt FROM record WHERE id = \(Self.key(id)) AND deletedAt IS NULL",
            logger: Self.logger
        ).collect()
        guard let row = rows.first else { return nil }
        let (body, revision, teamId, receivedBy, collector, receivedAt, updatedAt) = try row.decode(
            (String, Int, Int64, String, String, Double, Double).self)
        return StoredRecord(
            record: try RecordCodec.decode(Array(body.utf8)), revision: revision, teamId: teamId, receivedBy: receivedBy,
            collector: collector,
            receivedAt: Self.date(receivedAt), updatedAt: Self.date(updatedAt))
    }

    public func revisions(of id: UUID) async throws -> [RecordRevision] {
        let rows = try await client.query(
            """
            SELECT v.revision, COALESCE(v.body, r.body), v.savedBy, v.savedAt, v.deviceId
            FROM recordRevision v JOIN record r ON r.id = v.recordId
            WHERE v.recordId = \(Self.key(id)) ORDER BY v.revision
            """,
            logger: Self.logger)
        var revisions: [RecordRevision] = []
        for try await (revision, body, savedBy, savedAt, deviceId) in rows.decode((Int, String, String, Double, String?).self) {
            revisions.append(
                RecordRevision(
                    revision: revision, record: try RecordCodec.decode(Array(body.utf8)), savedBy: savedBy, savedAt: Self.date(savedAt),
                    deviceId: deviceId))
        }
        return revisions
    }

    public func records(idPrefix prefix: String, teamId: Int64, limit: Int) async throws -> [RecordIdMatch] {
        try await client.query(
            """
            SELECT id, questionnaireId, collector FROM record
            WHERE teamId = \(teamId) AND deletedAt IS NULL AND id LIKE \(prefix + "%") ORDER BY id LIMIT \(limit)
            """, logger: Self.logger
        ).collect().compactMap { row in
            let (id, questionnaireId, collector) = try row.decode((String, String, String).self)
            return UUID(uuidString: id).map { RecordIdMatch(id: $0, questionnaireId: questionnaireId, collector: collector) }
        }
    }

    public func update(_ item: IngestItem, baseRevision: Int, teamId: Int64, savedBy: String, at time: Date) async throws
        -> UpdateOutcome
    {
        try await transaction { connection in
            // Edits take turns (another edit of the record waits here, then finds its revision).
            try await Self.lock(Self.changeLock, connection)
            try await Self.markChanges(teams: [teamId], connection)
            let id = Self.key(item.record.id)
            let rows = try await connection.query(
                "SELECT revision, teamId, deletedAt IS NOT NULL, reviewState, reviewLocked, reviewedBy FROM record WHERE id = \(id)",
                logger: Self.logger
            ).collect()
            var standing: RecordStanding?
            if let row = rows.first {
                let (current, owner, deleted, review, locked, reviewedBy) = try row.decode((Int, Int64, Bool, String, Bool, String?).self)
                standing = RecordStanding(
                    teamId: owner, revision: current, tombstone: deleted ? try await Self.tombstone(id: item.record.id, connection) : nil,
                    review: ReviewState(rawValue: review) ?? .received, locked: locked, reviewedBy: reviewedBy)
            }
            let revision: Int
            switch RecordRules.edit(standing, teamId: teamId, baseRevision: baseRevision) {
            case .refuse(let outcome): return outcome
            case .save(let next): revision = next
            }
            let r = item.record
            let body = String(decoding: item.body, as: UTF8.self)
            // The revision that was current keeps the body this edit replaces.
            try await connection.query(
                "UPDATE recordRevision v SET body = r.body FROM record r WHERE r.id = \(id) AND v.recordId = r.id AND v.body IS NULL",
                logger: Self.logger)
            try await connection.query(
                """
                UPDATE record SET questionnaireId = \(r.questionnaire.id), questionnaireVersion = \(r.questionnaire.version),
                    status = \(r.status.rawValue), revision = \(revision), updatedAt = \(Self.timestamp(time)),
                    givenNameKey = \(item.givenNameKey), familyNameKey = \(item.familyNameKey),
                    dateOfBirth = \(r.patient.dateOfBirth?.description), externalId = \(r.patient.externalId), body = \(body),
                    patientId = \(r.patientId.map(Self.key)), caseWork = \(item.caseWork), followsCase = \(item.followsCase),
                    changeSeq = nextval('record_change'),
                    teamSeq = nextval(\(Self.teamSequence(teamId))::regclass)
                WHERE id = \(id)
                """, logger: Self.logger)
            try await Self.insertRevision(item, revision: revision, savedBy: savedBy, at: time, connection)
            // Before the edit's audit event: its notifications take the team lock, which comes before the audit lock.
            if let standing { try await Self.reviewEdited(standing, id: id, by: savedBy, at: time, connection) }
            _ = try await Self.appendAudit([AuditEntry.recordUpdate(item, revision: revision, by: savedBy, at: time)], connection)
            try await Self.notifyAlerts([(item, teamId, time)], connection)
            return .updated(revision: revision)
        }
    }

    public func deleteRecord(id: UUID, teamId: Int64, reason: String, by user: String, at time: Date) async throws -> DeleteOutcome {
        try await transaction { connection in
            // The change lock: cursors are given out in commit order, and two deletions of one
            // record take turns, so one deletes and the other finds the tombstone. Then the team
            // lock, for its referrals (a referral made or answered meanwhile waits), as a transfer
            // takes them.
            try await Self.lock(Self.changeLock, then: Self.teamLock, connection)
            try await Self.markChanges(teams: [teamId], connection)
            let key = Self.key(id)
            let rows = try await connection.query(
                "SELECT teamId, questionnaireId, revision, deletedAt IS NOT NULL FROM record WHERE id = \(key)", logger: Self.logger
            ).collect()
            guard let row = rows.first else { return .notFound }
            let (owner, questionnaireId, revision, deleted) = try row.decode((Int64, String, Int, Bool).self)
            let standing = RecordStanding(
                teamId: owner, revision: revision, tombstone: deleted ? try await Self.tombstone(id: id, connection) : nil)
            if case .refuse(let outcome) = RecordRules.delete(standing, teamId: teamId) { return outcome }
            let at = Self.timestamp(time)
            try await connection.query(
                """
                UPDATE record SET deletedAt = \(at), deletedBy = \(user), deleteReason = \(reason), body = '', givenNameKey = '',
                    familyNameKey = '', dateOfBirth = NULL, externalId = NULL, patientId = NULL, caseWork = NULL, updatedAt = \(at),
                    changeSeq = nextval('record_change'), teamSeq = nextval(\(Self.teamSequence(teamId))::regclass)
                WHERE id = \(key)
                """, logger: Self.logger)
            try await connection.query("DELETE FROM recordRevision WHERE recordId = \(key)", logger: Self.logger)
            // The thread's comments are free text that may name the patient: they go with the record.
            try await connection.query("DELETE FROM reviewEntry WHERE recordId = \(key)", logger: Self.logger)
            // Its open referrals close, and both sides are told: nothing is left to do.
            try await Self.closeReferrals(connection, recordId: id, by: user, at: time)
            let tombstone = Tombstone(
                recordId: id, teamId: teamId, questionnaireId: questionnaireId, revision: revision, deletedAt: Self.date(at),
                deletedBy: user,
                reason: reason)
            _ = try await Self.appendAudit([AuditEntry.recordDelete(tombstone)], connection)
            return .deleted(tombstone)
        }
    }

    public func tombstone(id: UUID) async throws -> Tombstone? {
        try await transaction { connection in try await Self.tombstone(id: id, connection) }
    }

    static func tombstone(id: UUID, _ connection: PostgresConnection) async throws -> Tombstone? {
        let rows = try await connection.query(
            """
            SELECT teamId, questionnaireId, revision, deletedAt, deletedBy, deleteReason FROM record
            WHERE id = \(key(id)) AND deletedAt IS NOT NULL
            """, logger: logger
        ).collect()
        guard let row = rows.first else { return nil }
        let (teamId, questionnaireId, revision, deletedAt, deletedBy, reason) = try row.decode(
            (Int64, String, Int, Double, String?, String?).self)
        return Tombstone(
            recordId: id, teamId: teamId, questionnaireId: questionnaireId, revision: revision, deletedAt: date(deletedAt),
            deletedBy: deletedBy ?? "", reason: reason ?? "")
    }

    public func purgeTombstones(deletedBefore cutoff: Date, by user: String, at time: Date) async throws -> TombstonePurge {
        try await transaction { connection in
            // Purges take turns with the other writers of the change lock; records arriving
            // meanwhile (ingest takes no lock) are why what is purged and the horizon it moves are
            // one statement, on one snapshot.
            try await Self.lock(Self.changeLock, connection)
            let before = Self.timestamp(cutoff)
            // A team's newest row stays (its cursor shows in exports), as does a tombstone a
            // referral still points to.
            let held = """
                (r.teamSeq = (SELECT MAX(t.teamSeq) FROM record t WHERE t.teamId = r.teamId)
                 OR r.changeSeq = (SELECT MAX(a.changeSeq) FROM record a)
                 OR EXISTS (SELECT 1 FROM referral f WHERE f.recordId = r.id))
                """
            var binds = PostgresBindings()
            binds.append(before)
            // A change feed reader that stopped before a purged deletion must start again.
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        WITH gone AS (
                            DELETE FROM record r WHERE r.deletedAt IS NOT NULL AND r.deletedAt < $1 AND NOT \(held)
                            RETURNING r.teamId, r.teamSeq
                        ), horizon AS (
                            INSERT INTO changeHorizon (teamId, teamSeq)
                            SELECT teamId, MAX(teamSeq) FROM gone GROUP BY teamId
                            ON CONFLICT (teamId) DO UPDATE SET teamSeq = GREATEST(changeHorizon.teamSeq, EXCLUDED.teamSeq)
                        )
                        SELECT (SELECT COUNT(*) FROM gone),
                            (SELECT COUNT(*) FROM record r WHERE r.deletedAt IS NOT NULL AND r.deletedAt < $1 AND \(held))
                        """,
                    binds: binds),
                logger: Self.logger
            ).collect()
            let (purged, kept) = try rows.first?.decode((Int, Int).self) ?? (0, 0)
            let purge = TombstonePurge(purged: purged, kept: kept)
            _ = try await Self.appendAudit([AuditEntry.tombstonePurge(purge, deletedBefore: cutoff, by: user, at: time)], connection)
            return purge
        }
    }

    public func changes(teamId: Int64, after: Int64, limit: Int) async throws -> ChangePage {
        try await client.withConnection { connection in
            // Up to the cursor every change below which has committed, read before the snapshot
            // (PostgresChangeCursors.swift): a change still open is never passed over.
            let upTo = try await Self.changeHorizon(teamId: teamId, connection)
            return try await Self.changes(teamId: teamId, after: after, upTo: upTo, limit: limit, connection)
        }
    }

    private static func changes(teamId: Int64, after: Int64, upTo: Int64, limit: Int, _ connection: PostgresConnection) async throws
        -> ChangePage
    {
        // One snapshot for the page and the horizon.
        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: Self.logger)
        do {
            let rows = try await connection.query(
                """
                SELECT COALESCE(exitOf, id), teamSeq, body, revision, receivedBy, collector, receivedAt, updatedAt, questionnaireId, deletedAt, deletedBy,
                    deleteReason, exitTo
                FROM record WHERE teamId = \(teamId) AND teamSeq > \(after) AND teamSeq <= \(upTo) ORDER BY teamSeq LIMIT \(limit)
                """, logger: Self.logger
            ).collect()
            var changes: [RecordChange] = []
            for row in rows {
                let (
                    key, cursor, body, revision, receivedBy, collector, receivedAt, updatedAt, questionnaireId, deletedAt, deletedBy,
                    reason, exitTo
                ) = try row.decode(
                    (String, Int64, String, Int, String, String, Double, Double, String, Double?, String?, String?, Int64?).self)
                guard let id = UUID(uuidString: key) else { continue }
                if let exitTo {
                    changes.append(RecordChange(id: id, cursor: cursor, kind: .transferred(toTeamId: exitTo)))
                } else if let deletedAt {
                    let tombstone = Tombstone(
                        recordId: id, teamId: teamId, questionnaireId: questionnaireId, revision: revision, deletedAt: Self.date(deletedAt),
                        deletedBy: deletedBy ?? "", reason: reason ?? "")
                    changes.append(RecordChange(id: id, cursor: cursor, kind: .deleted(tombstone)))
                } else {
                    let stored = StoredRecord(
                        record: try RecordCodec.decode(Array(body.utf8)), revision: revision, teamId: teamId, receivedBy: receivedBy,
                        collector: collector, receivedAt: Self.date(receivedAt), updatedAt: Self.date(updatedAt))
                    changes.append(RecordChange(id: id, cursor: cursor, kind: .saved(stored)))
                }
            }
            let horizon =
                try await connection.query("SELECT teamSeq FROM changeHorizon WHERE teamId = \(teamId)", logger: Self.logger)
                .collect().first?.decode(Int64.self) ?? 0
            try await connection.query("COMMIT", logger: Self.logger)
            return ChangePage(changes: changes, horizon: horizon)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: Self.logger)
            throw error
        }
    }
}

/// A record the group's insert left out as another server's, which the look after did not find:
/// the group is taken again a request at a time.
private struct PostgresGroupError: Error {
    static let lostRace = PostgresGroupError()
}
