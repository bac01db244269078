import Foundation
import IntakeCore
import IntakeService
import PostgresNIO

/// The statements of a group commit, prepared once per connection (postgres-nio keeps them by
/// name): PostgreSQL parses and plans each of them once instead of for every group, which was
/// about half a millisecond of every group's time under the change lock.
///
/// Should a preparation fail (a lock it waited for timed out, a table away), postgres-nio answers
/// that failure on that connection from then on: the group that met it is taken again a request
/// at a time (which uses none of these), and the connection is closed, so the next group
/// prepares them afresh on another (`PostgresRecordStore.commit`).
///
/// Every value is an array bound as one parameter, so one plan serves a group of any size.
/// Nullable columns travel as a value array and a flag array (an array's NULL elements cannot be
/// bound from Swift optionals).
enum GroupStatement {
    /// What the database holds of the group's ids: the row's position in the group, its
    /// revision and team, whether it is deleted, and whether a revision had the same content.
    struct Look: PostgresPreparedStatement {
        static let name = "intake_group_look_v1"
        static let sql = """
            SELECT q.n, r.revision, r.teamId, r.deletedAt IS NOT NULL,
                EXISTS (SELECT 1 FROM recordRevision v WHERE v.recordId = r.id AND v.contentHash = q.hash)
            FROM unnest($1::text[], $2::text[], $3::bigint[]) AS q(id, hash, n)
            JOIN record r ON r.id = q.id
            """
        typealias Row = (Int, Int, Int64, Bool, Bool)

        var ids: [String]
        var hashes: [String]
        var positions: [Int]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(ids)
            bindings.append(hashes)
            bindings.append(positions)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// Inserts the group's new records and their first revisions (an id the database holds is
    /// left out by `ON CONFLICT`, which waits for a transaction changing that record: the group's
    /// lock timeout bounds that, see `PostgresRecordStore.commitTogether`; a first revision's body is the record's,
    /// stored once), each with its cursors from the deployment's sequence and its team's; the
    /// audit event of each record it created, pending until the chainer links it
    /// (`AuditEntry.recordCreated`'s event: the details come in already written); and the
    /// notifications of the alerts the created records raise. See `PostgresRecordStore.insert`.
    struct Insert: PostgresPreparedStatement {
        static let name = "intake_group_insert_v6"
        static let sql = """
            WITH inserted AS (
                INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, collector, status, revision,
                                    createdAt, updatedAt, receivedAt, givenNameKey, familyNameKey, dateOfBirth, externalId, body, patientId,
                                    caseWork, followsCase, changeSeq, teamSeq, firstChangeSeq, firstTeamSeq)
                SELECT id, questionnaireId, version, teamId, receivedBy, collector, status, 1, createdAt, at, at, givenKey, familyKey,
                    CASE WHEN hasBirth THEN birth END, CASE WHEN hasExternal THEN external END, body, CASE WHEN hasPatient THEN patient END,
                    CASE WHEN hasCaseWork THEN caseWork END, CASE WHEN hasFollowsCase THEN followsCase END, changeSeq, teamSeq, changeSeq,
                    teamSeq
                FROM (
                    SELECT q.*, nextval('record_change') AS changeSeq, nextval(('team_change_' || q.teamId)::regclass) AS teamSeq
                    FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[],
                                $8::float8[], $9::float8[], $10::text[], $11::text[], $12::text[], $13::bool[],
                                $14::text[], $15::bool[], $16::text[], $17::text[], $18::bool[], $26::text[], $27::bool[],
                                $28::text[], $29::bool[])
                        WITH ORDINALITY AS q(id, questionnaireId, version, teamId, receivedBy, collector, status, createdAt, at, givenKey,
                                             familyKey, birth, hasBirth, external, hasExternal, body, patient, hasPatient, caseWork,
                                             hasCaseWork, followsCase, hasFollowsCase, n)
                ) AS s
                -- Rows locked in id order (their cursors were given in the group's order, above):
                -- two servers' groups holding some of the same ids wait for each other, never in
                -- a cycle.
                ORDER BY id
                ON CONFLICT (id) DO NOTHING
                RETURNING id, teamId, receivedBy, receivedAt
            ), revisions AS (
                INSERT INTO recordRevision (recordId, revision, contentHash, body, savedBy, savedAt, deviceId)
                SELECT i.id, 1, q.hash, NULL, i.receivedBy, i.receivedAt, CASE WHEN q.hasDevice THEN q.device END
                FROM inserted i
                JOIN unnest($1::text[], $19::text[], $20::text[], $21::bool[]) AS q(id, hash, device, hasDevice) ON q.id = i.id
                RETURNING recordId
            ), audited AS (
                INSERT INTO auditPending (at, actor, action, subject, details)
                SELECT i.receivedAt, i.receivedBy, '\(AuditAction.recordCreate.rawValue)', i.id, q.details
                FROM inserted i
                JOIN unnest($1::text[], $22::text[]) WITH ORDINALITY AS q(id, details, n) ON q.id = i.id
                ORDER BY q.n
            ), notified AS (
                -- The alerts of the records created (not of one sent again), to the team's
                -- coordinators, in the alerts' order; the notification sequence was marked first.
                INSERT INTO notification (userId, type, eventKey, subject, createdAt)
                SELECT a.id, '\(NotificationType.recordAlert)', q.eventKey, q.subject, i.receivedAt
                FROM unnest($23::text[], $24::text[], $25::text[]) WITH ORDINALITY AS q(id, eventKey, subject, n)
                JOIN inserted i ON i.id = q.id
                JOIN account a ON a.role = 'coordinator' AND a.teamId = i.teamId
                ORDER BY q.n, a.id
                ON CONFLICT (userId, eventKey) DO NOTHING
            )
            SELECT recordId FROM revisions
            """
        typealias Row = String

        var ids: [String] = []
        var questionnaireIds: [String] = []
        var versions: [String] = []
        var teamIds: [Int64] = []
        var receivedBy: [String] = []
        var collectors: [String] = []
        var statuses: [String] = []
        var createdAt: [Double] = []
        var receivedAt: [Double] = []
        var givenKeys: [String] = []
        var familyKeys: [String] = []
        var births: [String] = []
        var hasBirth: [Bool] = []
        var externalIds: [String] = []
        var hasExternalId: [Bool] = []
        var bodies: [String] = []
        var patients: [String] = []
        var hasPatient: [Bool] = []
        var contentHashes: [String] = []
        var devices: [String] = []
        var hasDevice: [Bool] = []
        var auditDetails: [String] = []
        /// One element per alert a record raises: its record's id, its event key and subject.
        var alertRecordIds: [String] = []
        var alertKeys: [String] = []
        var alertSubjects: [String] = []
        /// What each record does to cases (`IngestItem.caseWork`), and whether it does anything.
        var caseWorks: [String] = []
        var hasCaseWork: [Bool] = []
        /// The case each record names (`IngestItem.followsCase`), and whether it names one.
        var followsCases: [String] = []
        var hasFollowsCase: [Bool] = []

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 29)
            bindings.append(ids)
            bindings.append(questionnaireIds)
            bindings.append(versions)
            bindings.append(teamIds)
            bindings.append(receivedBy)
            bindings.append(collectors)
            bindings.append(statuses)
            bindings.append(createdAt)
            bindings.append(receivedAt)
            bindings.append(givenKeys)
            bindings.append(familyKeys)
            bindings.append(births)
            bindings.append(hasBirth)
            bindings.append(externalIds)
            bindings.append(hasExternalId)
            bindings.append(bodies)
            bindings.append(patients)
            bindings.append(hasPatient)
            bindings.append(contentHashes)
            bindings.append(devices)
            bindings.append(hasDevice)
            bindings.append(auditDetails)
            bindings.append(alertRecordIds)
            bindings.append(alertKeys)
            bindings.append(alertSubjects)
            bindings.append(caseWorks)
            bindings.append(hasCaseWork)
            bindings.append(followsCases)
            bindings.append(hasFollowsCase)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
