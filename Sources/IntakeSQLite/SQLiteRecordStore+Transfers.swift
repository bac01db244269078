import Foundation
import GRDB
import IntakeService

extension SQLiteRecordStore {
    public func transfer(_ request: TransferRequest) async throws -> TransferOutcome {
        try await database.write { db in
            let from = request.fromTeamId, to = request.toTeamId
            var ids: [String] = []
            switch request.subject {
            case .patient(let patient):
                guard try Int64.fetchOne(db, sql: "SELECT teamId FROM patient WHERE id = ?", arguments: [Self.key(patient)]) == from else {
                    return .notFound(patient)
                }
                ids = try String.fetchAll(
                    db, sql: "SELECT id FROM record WHERE patientId = ? AND teamId = ? AND deletedAt IS NULL ORDER BY changeSeq",
                    arguments: [Self.key(patient), from])
                try db.execute(
                    sql: "UPDATE patient SET teamId = ?, updatedAt = ? WHERE id = ?",
                    arguments: [to, Self.timestamp(request.at), Self.key(patient)])
            case .records(let records):
                for record in records {
                    guard
                        let row = try Row.fetchOne(
                            db, sql: "SELECT teamId, patientId FROM record WHERE id = ? AND deletedAt IS NULL",
                            arguments: [Self.key(record)]),
                        (row["teamId"] as Int64) == from
                    else { return .notFound(record) }
                    if let patient = (row["patientId"] as String?).flatMap(UUID.init(uuidString:)) {
                        return .hasPatient(record: record, patient: patient)
                    }
                    ids.append(Self.key(record))
                }
            }
            let at = Self.timestamp(request.at)
            for id in ids {
                // The old team's exit entry: its next cursor, so its feed and exports learn the record left.
                let next = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record") ?? 1
                let exit = "exit:\(id):\(next)"
                try db.execute(
                    sql: """
                        INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, status, revision, createdAt, updatedAt,
                            receivedAt, givenNameKey, familyNameKey, body, changeSeq, teamSeq, firstChangeSeq, firstTeamSeq,
                            deletedAt, deletedBy, deleteReason, exitOf, exitTo, followsCase)
                        SELECT ?, questionnaireId, questionnaireVersion, teamId, '', status, revision, createdAt, ?, receivedAt, '', '', '',
                            ?, (SELECT COALESCE(MAX(t.teamSeq), 0) + 1 FROM record t WHERE t.teamId = ?),
                            firstChangeSeq, firstTeamSeq, ?, ?, 'transferred', id, ?, followsCase
                        FROM record WHERE id = ?
                        """,
                    arguments: [exit, at, next, from, at, request.by, to, id])
                // Nothing to find by name: inserted deleted, it gets no lookup entry (record_lookup_insert).
                // The record itself: a change of the new team, which never held it before.
                try db.execute(
                    sql: """
                        UPDATE record SET teamId = ?, updatedAt = ?,
                            changeSeq = (SELECT COALESCE(MAX(changeSeq), 0) + 1 FROM record),
                            teamSeq = (SELECT COALESCE(MAX(t.teamSeq), 0) + 1 FROM record t WHERE t.teamId = ?),
                            firstTeamSeq = (SELECT COALESCE(MAX(t.teamSeq), 0) + 1 FROM record t WHERE t.teamId = ?)
                        WHERE id = ?
                        """,
                    arguments: [to, at, to, to, id])
            }
            let moved = ids.compactMap(UUID.init(uuidString:))
            try Self.notifyTransfer(db, moved, request)
            _ = try Self.appendAudit(moved.map { AuditEntry.recordTransfer($0, request) }, db)
            return .transferred(moved)
        }
    }

    /// The coordinators of both teams hear of it: how many records, from where to where, by whom.
    private static func notifyTransfer(_ db: Database, _ moved: [UUID], _ request: TransferRequest) throws {
        let names = try Dictionary(
            uniqueKeysWithValues: Row.fetchAll(
                db, sql: "SELECT id, name FROM team WHERE id IN (?, ?)", arguments: [request.fromTeamId, request.toTeamId]
            )
            .map { ($0["id"] as Int64, $0["name"] as String) })
        let subject = request.notificationSubject(moved: moved.count, names: names)
        let event = NotificationEvent.transfer(UUID())
        for username in try String.fetchAll(
            db, sql: "SELECT username FROM user WHERE role = 'coordinator' AND teamId IN (?, ?)",
            arguments: [request.fromTeamId, request.toTeamId])
        {
            try notify(db, username: username, type: NotificationType.recordsTransferred, eventKey: event, subject: subject, at: request.at)
        }
    }
}
