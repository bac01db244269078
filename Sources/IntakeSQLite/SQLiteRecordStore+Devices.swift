import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    public func createEnrolment(_ enrolment: NewEnrolment) async throws -> Enrolment {
        try await database.write { db in
            guard try Int.fetchOne(db, sql: "SELECT 1 FROM enrolment WHERE id = ?", arguments: [enrolment.id]) == nil else {
                throw RecordStoreError.alreadyExists("enrolment \(enrolment.id)")
            }
            try db.execute(
                sql: """
                    INSERT INTO enrolment (id, teamId, username, secretHash, createdBy, createdAt, expiresAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    enrolment.id, enrolment.teamId, enrolment.username, enrolment.secretHash, enrolment.createdBy,
                    Self.timestamp(enrolment.createdAt), Self.timestamp(enrolment.expiresAt),
                ])
            _ = try Self.appendAudit(
                [
                    AuditEntry(
                        at: enrolment.createdAt, actor: enrolment.createdBy, action: .enrolmentCreate, subject: enrolment.id,
                        details: [
                            "team": "\(enrolment.teamId)", "for": enrolment.username,
                            "expiresAt": Timestamp.string(from: enrolment.expiresAt),
                        ])
                ], db)
            return try Self.enrolment(db, id: enrolment.id)!
        }
    }

    public func enrolments(teamId: Int64) async throws -> [Enrolment] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM enrolment WHERE teamId = ? ORDER BY createdAt DESC, id", arguments: [teamId]).map(
                Self.enrolment)
        }
    }

    public func redeemEnrolment(id: String, device: NewDevice, at time: Date, lockAfter: Int, matches: @escaping @Sendable (String) -> Bool)
        async throws -> EnrolmentOutcome
    {
        try await database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM enrolment WHERE id = ?", arguments: [id]) else { return .notFound }
            let current = try Self.enrolment(row)
            switch EnrolmentRules.redeem(current, secretMatches: matches(row["secretHash"]), lockAfter: lockAfter, at: time) {
            case .refuse(let outcome): return outcome
            case .wrongSecret(let failures, let locked, let outcome):
                try db.execute(
                    sql: "UPDATE enrolment SET failedAttempts = ?, state = ? WHERE id = ?",
                    arguments: [failures, locked ? "locked" : "open", id])
                return outcome
            case .enrol: break
            }
            try db.execute(
                sql: "UPDATE enrolment SET state = 'used', usedAt = ?, deviceId = ? WHERE id = ?",
                arguments: [Self.timestamp(time), device.deviceId, id])
            // The same machine enrolled again: its earlier token stops.
            try db.execute(
                sql: "UPDATE device SET revokedAt = ?, revokedBy = ? WHERE deviceId = ? AND revokedAt IS NULL",
                arguments: [Self.timestamp(time), "enrolled again", device.deviceId])
            try db.execute(
                sql: """
                    INSERT INTO device (deviceId, name, teamId, username, enrolment, tokenHash, enrolledAt, lastSeenAt, intakeVersion)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    device.deviceId, device.name, current.teamId, current.username, id, device.tokenHash, Self.timestamp(time),
                    Self.timestamp(time),
                    device.intakeVersion,
                ])
            let enrolled = try Self.device(
                try Row.fetchOne(db, sql: "SELECT * FROM device WHERE id = ?", arguments: [db.lastInsertedRowID])!)
            _ = try Self.appendAudit(
                [
                    AuditEntry(
                        at: time, actor: current.username, action: .deviceEnrol, subject: "\(enrolled.id)",
                        details: ["team": "\(current.teamId)", "enrolment": id, "deviceId": device.deviceId])
                ], db)
            return .enrolled(enrolled)
        }
    }

    public func devices(teamId: Int64?) async throws -> [Device] {
        try await database.read { db in
            if let teamId {
                return try Row.fetchAll(
                    db, sql: "SELECT * FROM device WHERE teamId = ? ORDER BY enrolledAt DESC, id DESC", arguments: [teamId]
                ).map(
                    Self.device)
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM device ORDER BY enrolledAt DESC, id DESC").map(Self.device)
        }
    }

    public func device(tokenHash: String) async throws -> (device: Device, user: User)? {
        try await database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM device WHERE tokenHash = ?", arguments: [tokenHash]) else {
                return nil
            }
            let device = try Self.device(row)
            guard let user = try Row.fetchOne(db, sql: Self.userSelect + " WHERE u.username = ?", arguments: [device.username]) else {
                return nil
            }
            return (device, try Self.credentials(user).user)
        }
    }

    public func revokeDevice(id: Int64, teamId: Int64?, by user: String, at time: Date) async throws -> Device? {
        try await database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM device WHERE id = ?", arguments: [id]) else { return nil }
            let current = try Self.device(row)
            if let teamId, current.teamId != teamId { return nil }
            guard current.revokedAt == nil else { return current }
            try db.execute(sql: "UPDATE device SET revokedAt = ?, revokedBy = ? WHERE id = ?", arguments: [Self.timestamp(time), user, id])
            _ = try Self.appendAudit(
                [
                    AuditEntry(
                        at: time, actor: user, action: .deviceRevoke, subject: "\(id)",
                        details: ["team": "\(current.teamId)", "deviceId": current.deviceId])
                ],
                db)
            return try Self.device(try Row.fetchOne(db, sql: "SELECT * FROM device WHERE id = ?", arguments: [id])!)
        }
    }

    public func noteDevice(id: Int64, _ report: DeviceReport) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE device SET lastSeenAt = MAX(COALESCE(lastSeenAt, 0), ?),
                        lastUploadAt = COALESCE(?, lastUploadAt), queueSize = COALESCE(?, queueSize), intakeVersion = COALESCE(?, intakeVersion)
                    WHERE id = ?
                    """,
                arguments: [Self.timestamp(report.seenAt), report.uploadAt.map(Self.timestamp), report.queueSize, report.intakeVersion, id])
        }
    }

    static func enrolment(_ db: Database, id: String) throws -> Enrolment? {
        try Row.fetchOne(db, sql: "SELECT * FROM enrolment WHERE id = ?", arguments: [id]).map(enrolment)
    }

    static func enrolment(_ row: Row) throws -> Enrolment {
        Enrolment(
            id: row["id"], teamId: row["teamId"], username: row["username"], createdBy: row["createdBy"], createdAt: date(row["createdAt"]),
            expiresAt: date(row["expiresAt"]), state: EnrolmentState(rawValue: row["state"]) ?? .locked,
            failedAttempts: row["failedAttempts"],
            usedAt: (row["usedAt"] as Double?).map(date), deviceId: row["deviceId"])
    }

    static func device(_ row: Row) throws -> Device {
        Device(
            id: row["id"], deviceId: row["deviceId"], name: row["name"], teamId: row["teamId"], username: row["username"],
            enrolment: row["enrolment"], enrolledAt: date(row["enrolledAt"]), revokedAt: (row["revokedAt"] as Double?).map(date),
            revokedBy: row["revokedBy"], lastSeenAt: (row["lastSeenAt"] as Double?).map(date),
            lastUploadAt: (row["lastUploadAt"] as Double?).map(date), queueSize: row["queueSize"], intakeVersion: row["intakeVersion"])
    }
}
