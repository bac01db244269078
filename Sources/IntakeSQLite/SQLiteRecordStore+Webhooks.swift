import Foundation
import GRDB
import IntakeService

extension SQLiteRecordStore {
    public func createWebhook(_ webhook: NewWebhook) async throws -> WebhookOutcome {
        try await database.write { db in
            let count =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM webhook WHERE ownerId IS ?", arguments: [webhook.ownerId]) ?? 0
            guard count < Webhook.maxPerOwner else { return .tooMany }
            let newest = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM notification") ?? 0
            try db.execute(
                sql: """
                    INSERT INTO webhook (id, ownerId, createdBy, url, types, secret, createdAt, deliveredThrough, nextAttemptAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    Self.key(webhook.id), webhook.ownerId, webhook.createdBy, webhook.url, webhook.types.joined(separator: ","),
                    webhook.secret,
                    Self.timestamp(webhook.createdAt), newest, Self.timestamp(webhook.createdAt),
                ])
            return .created(try Self.webhook(db, id: webhook.id)!)
        }
    }

    public func webhook(id: UUID) async throws -> Webhook? {
        try await database.read { db in try Self.webhook(db, id: id) }
    }

    public func webhooks(of username: String?) async throws -> [Webhook] {
        try await database.read { db in
            guard let username else {
                return try Row.fetchAll(db, sql: Self.webhookSelect + " ORDER BY w.createdAt, w.id").map(Self.webhook)
            }
            return try Row.fetchAll(
                db, sql: Self.webhookSelect + " WHERE u.username = ? OR w.createdBy = ? ORDER BY w.createdAt, w.id",
                arguments: [username, username]
            ).map(Self.webhook)
        }
    }

    public func deleteWebhook(id: UUID) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM webhook WHERE id = ?", arguments: [Self.key(id)])
            return db.changesCount > 0
        }
    }

    public func resumeWebhook(id: UUID, at time: Date) async throws -> Webhook? {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE webhook SET suspended = 0, failures = 0, nextAttemptAt = ? WHERE id = ?",
                arguments: [Self.timestamp(time), Self.key(id)])
            return try Self.webhook(db, id: id)
        }
    }

    public func claimDueWebhooks(at time: Date, leaseUntil: Date, limit: Int) async throws -> [Webhook] {
        try await database.write { db in
            let now = Self.timestamp(time)
            let due = try Row.fetchAll(
                db,
                sql: Self.webhookSelect + """
                     WHERE w.suspended = 0 AND w.nextAttemptAt <= ? AND (w.leaseUntil IS NULL OR w.leaseUntil <= ?)
                    AND EXISTS (SELECT 1 FROM notification n WHERE n.id > w.deliveredThrough AND (w.ownerId IS NULL OR n.userId = w.ownerId))
                    ORDER BY w.nextAttemptAt, w.id LIMIT ?
                    """,
                arguments: [now, now, limit]
            ).map(Self.webhook)
            for webhook in due {
                try db.execute(
                    sql: "UPDATE webhook SET leaseUntil = ? WHERE id = ?", arguments: [Self.timestamp(leaseUntil), Self.key(webhook.id)])
            }
            return due
        }
    }

    public func webhookBacklog() async throws -> WebhookBacklog {
        try await database.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*),
                        COALESCE(SUM((SELECT COUNT(*) FROM notification n
                                      WHERE n.id > w.deliveredThrough AND (w.ownerId IS NULL OR n.userId = w.ownerId))), 0)
                    FROM webhook w
                    """)
            return WebhookBacklog(webhooks: row?[0] ?? 0, events: row?[1] ?? 0)
        }
    }

    public func pendingWebhookEvents(_ webhook: Webhook, limit: Int) async throws -> [WebhookEvent] {
        try await database.read { db in
            var sql = """
                SELECT n.id, n.userId, n.type, n.createdAt, n.readAt, n.subject, u.username
                FROM notification n JOIN user u ON u.id = n.userId WHERE n.id > ?
                """
            var arguments: StatementArguments = [webhook.deliveredThrough]
            if let owner = webhook.ownerId {
                sql += " AND n.userId = ?"
                arguments += [owner]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY n.id LIMIT ?", arguments: arguments + [limit]).map { row in
                WebhookEvent(
                    notification: UserNotification(
                        id: row["id"], userId: row["userId"], type: row["type"], createdAt: Self.date(row["createdAt"]),
                        readAt: (row["readAt"] as Double?).map(Self.date), subject: NotificationSubject.decode(row["subject"])),
                    recipient: row["username"])
            }
        }
    }

    public func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE webhook SET deliveredThrough = MAX(deliveredThrough, ?), delivered = delivered + ?,
                        failures = CASE WHEN ? IS NULL THEN 0 ELSE failures + 1 END, lastError = ?, lastAttemptAt = ?,
                        nextAttemptAt = ?, suspended = ?, leaseUntil = NULL
                    WHERE id = ?
                    """,
                arguments: [
                    attempt.through, attempt.delivered, attempt.error, attempt.error, Self.timestamp(attempt.at),
                    Self.timestamp(attempt.error == nil ? attempt.at : attempt.nextAttemptAt), attempt.error != nil && attempt.suspend,
                    Self.key(attempt.id),
                ])
        }
    }

    static let webhookSelect = "SELECT w.*, u.username AS owner FROM webhook w LEFT JOIN user u ON u.id = w.ownerId"

    static func webhook(_ db: Database, id: UUID) throws -> Webhook? {
        try Row.fetchOne(db, sql: webhookSelect + " WHERE w.id = ?", arguments: [key(id)]).map(webhook)
    }

    static func webhook(_ row: Row) -> Webhook {
        let types: String = row["types"]
        return Webhook(
            id: UUID(uuidString: row["id"])!, ownerId: row["ownerId"], owner: row["owner"], createdBy: row["createdBy"], url: row["url"],
            types: types.isEmpty ? [] : types.split(separator: ",").map(String.init), secret: row["secret"],
            createdAt: date(row["createdAt"]), deliveredThrough: row["deliveredThrough"], delivered: row["delivered"],
            failures: row["failures"], lastError: row["lastError"], lastAttemptAt: (row["lastAttemptAt"] as Double?).map(date),
            nextAttemptAt: date(row["nextAttemptAt"]), suspended: row["suspended"])
    }
}
