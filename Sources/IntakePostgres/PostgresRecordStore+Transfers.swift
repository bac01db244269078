import Foundation
import IntakeService
import PostgresNIO

extension PostgresRecordStore {
    public func transfer(_ request: TransferRequest) async throws -> TransferOutcome {
        try await transaction { connection in
            // Cursors in commit order (the change lock), notifications in id order (the team lock);
            // every path that takes both (a deletion too) takes them in this order.
            try await Self.lock(Self.changeLock, connection)
            try await Self.lock(Self.teamLock, connection)
            let from = request.fromTeamId, to = request.toTeamId
            try await Self.markChanges(teams: [from, to], connection)
            var ids: [String] = []
            switch request.subject {
            case .patient(let patient):
                let owner = try await connection.query(
                    "SELECT teamId FROM patient WHERE id = \(Self.key(patient)) FOR UPDATE", logger: Self.logger
                )
                .collect().first?.decode(Int64.self)
                guard owner == from else { return .notFound(patient) }
                let rows = try await connection.query(
                    "SELECT id FROM record WHERE patientId = \(Self.key(patient)) AND teamId = \(from) AND deletedAt IS NULL ORDER BY changeSeq",
                    logger: Self.logger
                ).collect()
                ids = try rows.map { try $0.decode(String.self) }
                try await connection.query(
                    "UPDATE patient SET teamId = \(to), updatedAt = \(Self.timestamp(request.at)) WHERE id = \(Self.key(patient))",
                    logger: Self.logger)
            case .records(let records):
                for record in records {
                    let rows = try await connection.query(
                        "SELECT teamId, patientId FROM record WHERE id = \(Self.key(record)) AND deletedAt IS NULL", logger: Self.logger
                    ).collect()
                    guard let row = rows.first, try row.decode((Int64, String?).self).0 == from else { return .notFound(record) }
                    if let patient = try row.decode((Int64, String?).self).1.flatMap(UUID.init(uuidString:)) {
                        return .hasPatient(record: record, patient: patient)
                    }
                    ids.append(Self.key(record))
                }
            }
            let at = Self.timestamp(request.at)
            for id in ids {
                // The old team's exit entry at its next cursor: its feed and exports learn the record left.
                try await connection.query(
                    """
                    INSERT INTO record (id, questionnaireId, questionnaireVersion, teamId, receivedBy, status, revision, createdAt, updatedAt,
                        receivedAt, givenNameKey, familyNameKey, body, changeSeq, teamSeq, firstChangeSeq, firstTeamSeq,
                        deletedAt, deletedBy, deleteReason, exitOf, exitTo, followsCase)
                    SELECT 'exit:' || id || ':' || currval('record_change'), questionnaireId, questionnaireVersion, teamId, '', status, revision,
                        createdAt, \(at), receivedAt, '', '', '', currval('record_change'), nextval(\(Self.teamSequence(from))::regclass),
                        firstChangeSeq, firstTeamSeq, \(at), \(request.by), 'transferred', id, \(to), followsCase
                    FROM (SELECT *, nextval('record_change') FROM record WHERE id = \(id)) AS moving
                    """, logger: Self.logger)
                // The record itself: a change of the new team, which never held it before.
                try await connection.query(
                    """
                    UPDATE record SET teamId = \(to), updatedAt = \(at), changeSeq = nextval('record_change'), teamSeq = s.team,
                        firstTeamSeq = s.team
                    FROM (SELECT nextval(\(Self.teamSequence(to))::regclass) AS team) AS s
                    WHERE id = \(id)
                    """, logger: Self.logger)
            }
            let moved = ids.compactMap(UUID.init(uuidString:))
            var names: [Int64: String] = [:]
            for try await (id, name) in try await connection.query(
                "SELECT id, name FROM team WHERE id IN (\(from), \(to))", logger: Self.logger
            )
            .decode((Int64, String).self) {
                names[id] = name
            }
            let subject = request.notificationSubject(moved: moved.count, names: names)
            let event = NotificationEvent.transfer(UUID())
            let coordinators = try await connection.query(
                "SELECT username FROM account WHERE role = 'coordinator' AND teamId IN (\(from), \(to))", logger: Self.logger
            ).collect()
            for row in coordinators {
                try await Self.notify(
                    connection, username: try row.decode(String.self), type: NotificationType.recordsTransferred, eventKey: event,
                    subject: subject,
                    at: request.at)
            }
            _ = try await Self.appendAudit(moved.map { AuditEntry.recordTransfer($0, request) }, connection)
            return .transferred(moved)
        }
    }
}
