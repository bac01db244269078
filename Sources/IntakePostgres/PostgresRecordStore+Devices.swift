import Foundation
import IntakeCore
import IntakeService
import PostgresNIO

/// Enrolment codes and the machines enrolled with them, as the SQLite store keeps them. Using a
/// code locks its row (`FOR UPDATE`), so of two machines using one code at once one is enrolled
/// and the other finds it used.
extension PostgresRecordStore {
    public func createEnrolment(_ enrolment: NewEnrolment) async throws -> Enrolment {
        try await transaction { connection in
            guard
                let row = try await connection.query(
                    """
                    INSERT INTO enrolment (id, teamId, username, secretHash, createdBy, createdAt, expiresAt)
                    VALUES (\(enrolment.id), \(enrolment.teamId), \(enrolment.username), \(enrolment.secretHash), \(enrolment.createdBy),
                            \(Self.timestamp(enrolment.createdAt)), \(Self.timestamp(enrolment.expiresAt)))
                    ON CONFLICT (id) DO NOTHING RETURNING \(unescaped: Self.enrolmentColumns)
                    """, logger: Self.logger
                ).collect().first
            else { throw RecordStoreError.alreadyExists("enrolment \(enrolment.id)") }
            _ = try await Self.appendAudit(
                [
                    AuditEntry(
                        at: enrolment.createdAt, actor: enrolment.createdBy, action: .enrolmentCreate, subject: enrolment.id,
                        details: [
                            "team": "\(enrolment.teamId)", "for": enrolment.username,
                            "expiresAt": Timestamp.string(from: enrolment.expiresAt),
                        ])
                ], connection)
            return try Self.enrolment(row).enrolment
        }
    }

    public func enrolments(teamId: Int64) async throws -> [Enrolment] {
        try await client.query(
            """
            SELECT \(unescaped: Self.enrolmentColumns) FROM enrolment WHERE teamId = \(teamId) ORDER BY createdAt DESC, id COLLATE "C"
            """, logger: Self.logger
        ).collect().map { try Self.enrolment($0).enrolment }
    }

    public func redeemEnrolment(id: String, device: NewDevice, at time: Date, lockAfter: Int, matches: @escaping @Sendable (String) -> Bool)
        async throws -> EnrolmentOutcome
    {
        try await transaction { connection in
            // The code's row stays locked to the end: a second machine using it waits, then finds it used.
            guard
                let row = try await connection.query(
                    "SELECT \(unescaped: Self.enrolmentColumns) FROM enrolment WHERE id = \(id) FOR UPDATE", logger: Self.logger
                ).collect().first
            else { return .notFound }
            let (current, hash) = try Self.enrolment(row)
            switch EnrolmentRules.redeem(current, secretMatches: matches(hash), lockAfter: lockAfter, at: time) {
            case .refuse(let outcome): return outcome
            case .wrongSecret(let failures, let locked, let outcome):
                try await connection.query(
                    "UPDATE enrolment SET failedAttempts = \(failures), state = \(locked ? "locked" : "open") WHERE id = \(id)",
                    logger: Self.logger)
                return outcome
            case .enrol: break
            }
            // One machine enrolled with two codes at once: one after the other, so the later revokes the earlier.
            try await Self.lock("intake-device:" + device.deviceId, connection)
            let at = Self.timestamp(time)
            try await connection.query(
                "UPDATE enrolment SET state = 'used', usedAt = \(at), deviceId = \(device.deviceId) WHERE id = \(id)", logger: Self.logger)
            // The same machine enrolled again: its earlier token stops.
            try await connection.query(
                "UPDATE device SET revokedAt = \(at), revokedBy = 'enrolled again' WHERE deviceId = \(device.deviceId) AND revokedAt IS NULL",
                logger: Self.logger)
            let inserted = try await connection.query(
                """
                INSERT INTO device (deviceId, name, teamId, username, enrolment, tokenHash, enrolledAt, lastSeenAt, intakeVersion)
                VALUES (\(device.deviceId), \(device.name), \(current.teamId), \(current.username), \(id), \(device.tokenHash), \(at), \(at),
                        \(device.intakeVersion))
                RETURNING \(unescaped: Self.deviceColumns)
                """, logger: Self.logger
            ).collect()
            guard let insertedRow = inserted.first else { throw RecordStoreError.notFound("device \(device.deviceId)") }
            let enrolled = try Self.device(insertedRow)
            _ = try await Self.appendAudit(
                [
                    AuditEntry(
                        at: time, actor: current.username, action: .deviceEnrol, subject: "\(enrolled.id)",
                        details: ["team": "\(current.teamId)", "enrolment": id, "deviceId": device.deviceId])
                ], connection)
            return .enrolled(enrolled)
        }
    }

    public func devices(teamId: Int64?) async throws -> [Device] {
        if let teamId {
            return try await client.query(
                "SELECT \(unescaped: Self.deviceColumns) FROM device WHERE teamId = \(teamId) ORDER BY enrolledAt DESC, id DESC",
                logger: Self.logger
            ).collect().map(Self.device)
        }
        return try await client.query(
            "SELECT \(unescaped: Self.deviceColumns) FROM device ORDER BY enrolledAt DESC, id DESC", logger: Self.logger
        ).collect().map(Self.device)
    }

    public func device(tokenHash: String) async throws -> (device: Device, user: User)? {
        guard
            let row = try await client.query(
                "SELECT \(unescaped: Self.deviceColumns) FROM device WHERE tokenHash = \(tokenHash)", logger: Self.logger
            ).collect().first
        else { return nil }
        let device = try Self.device(row)
        // The account as it is now, read as every other account is (its team's name too).
        guard let account = try await credentials(username: device.username) else { return nil }
        return (device, account.user)
    }

    public func revokeDevice(id: Int64, teamId: Int64?, by user: String, at time: Date) async throws -> Device? {
        try await transaction { connection in
            guard
                let row = try await connection.query(
                    "SELECT \(unescaped: Self.deviceColumns) FROM device WHERE id = \(id) FOR UPDATE", logger: Self.logger
                ).collect().first
            else { return nil }
            let current = try Self.device(row)
            if let teamId, current.teamId != teamId { return nil }
            guard current.revokedAt == nil else { return current }
            let updated = try await connection.query(
                """
                UPDATE device SET revokedAt = \(Self.timestamp(time)), revokedBy = \(user) WHERE id = \(id)
                RETURNING \(unescaped: Self.deviceColumns)
                """, logger: Self.logger
            ).collect()
            _ = try await Self.appendAudit(
                [
                    AuditEntry(
                        at: time, actor: user, action: .deviceRevoke, subject: "\(id)",
                        details: ["team": "\(current.teamId)", "deviceId": current.deviceId])
                ],
                connection)
            return try updated.first.map(Self.device)
        }
    }

    public func noteDevice(id: Int64, _ report: DeviceReport) async throws {
        try await client.query(
            """
            UPDATE device SET lastSeenAt = GREATEST(COALESCE(lastSeenAt, 0), \(Self.timestamp(report.seenAt))),
                lastUploadAt = COALESCE(\(report.uploadAt.map(Self.timestamp)), lastUploadAt), queueSize = COALESCE(\(report.queueSize), queueSize),
                intakeVersion = COALESCE(\(report.intakeVersion), intakeVersion)
            WHERE id = \(id)
            """, logger: Self.logger)
    }

    /// An enrolment's columns, its secret's hash last (for ``enrolment(_:)``).
    private static let enrolmentColumns =
        "id, teamId, username, createdBy, createdAt, expiresAt, state, failedAttempts, usedAt, deviceId, secretHash"

    private static func enrolment(_ row: PostgresRow) throws -> (enrolment: Enrolment, hash: String) {
        let (id, teamId, username, createdBy, createdAt, expiresAt, state, failures, usedAt, deviceId, hash) = try row.decode(
            (String, Int64, String, String, Double, Double, String, Int, Double?, String?, String).self)
        return (
            Enrolment(
                id: id, teamId: teamId, username: username, createdBy: createdBy, createdAt: date(createdAt), expiresAt: date(expiresAt),
                state: EnrolmentState(rawValue: state) ?? .locked, failedAttempts: failures, usedAt: usedAt.map(date), deviceId: deviceId),
            hash
        )
    }

    /// A device's columns, as ``device(_:)`` reads them.
    private static let deviceColumns = """
        id, deviceId, name, teamId, username, enrolment, enrolledAt, revokedAt, revokedBy, lastSeenAt, lastUploadAt, queueSize, intakeVersion
        """

    private static func device(_ row: PostgresRow) throws -> Device {
        let (
            id, deviceId, name, teamId, username, enrolment, enrolledAt, revokedAt, revokedBy, lastSeenAt, lastUploadAt, queueSize, version
        ) =
            try row.decode((Int64, String, String, Int64, String, String, Double, Double?, String?, Double?, Double?, Int?, String?).self)
        return Device(
            id: id, deviceId: deviceId, name: name, teamId: teamId, username: username, enrolment: enrolment, enrolledAt: date(enrolledAt),
            revokedAt: revokedAt.map(date), revokedBy: revokedBy, lastSeenAt: lastSeenAt.map(date), lastUploadAt: lastUploadAt.map(date),
            queueSize: queueSize, intakeVersion: version)
    }
}
