import Foundation
import IntakeService
import PostgresNIO

/// Registrations take the team lock (``PostgresRecordStore/teamLock``), as every change that
/// stores notifications does: a new webhook's cursor is then the newest committed notification,
/// and the count per owner cannot be passed by two registrations at once. Claims lock the rows
/// they take and skip those another server holds.
extension PostgresRecordStore {
    public func createWebhook(_ webhook: NewWebhook) async throws -> WebhookOutcome {
        try await transaction { connection in
            try await Self.lock(Self.teamLock, connection)
            let count =
                try await connection.query(
                    "SELECT COUNT(*) FROM webhook WHERE ownerId IS NOT DISTINCT FROM \(webhook.ownerId)", logger: Self.logger
                ).collect().first?.decode(Int.self) ?? 0
            guard count < Webhook.maxPerOwner else { return .tooMany }
            let at = Self.timestamp(webhook.createdAt)
            // It starts below any notification still being written (PostgresChangeCursors.swift).
            let horizon = try await Self.horizon(of: Self.notificationSequence, alwaysThere: true, connection)
            try await connection.query(
                """
                INSERT INTO webhook (id, ownerId, createdBy, url, types, secret, createdAt, deliveredThrough, nextAttemptAt)
                VALUES (\(Self.key(webhook.id)), \(webhook.ownerId), \(webhook.createdBy), \(webhook.url),
                        \(webhook.types.joined(separator: ",")), \(webhook.secret), \(at),
                        LEAST((SELECT COALESCE(MAX(id), 0) FROM notification), \(horizon)), \(at))
                """, logger: Self.logger)
            return .created(try await Self.webhooks(connection, where: "w.id = $1", [Self.key(webhook.id)])[0])
        }
    }

    public func webhook(id: UUID) async throws -> Webhook? {
        try await client.withConnection { connection in
            try await Self.webhooks(connection, where: "w.id = $1", [Self.key(id)]).first
        }
    }

    public func webhooks(of username: String?) async throws -> [Webhook] {
        try await client.withConnection { connection in
            guard let username else { return try await Self.webhooks(connection, where: "TRUE", []) }
            return try await Self.webhooks(connection, where: "a.username = $1 OR w.createdBy = $1", [username])
        }
    }

    public func deleteWebhook(id: UUID) async throws -> Bool {
        try await !client.query("DELETE FROM webhook WHERE id = \(Self.key(id)) RETURNING id", logger: Self.logger).collect().isEmpty
    }

    public func resumeWebhook(id: UUID, at time: Date) async throws -> Webhook? {
        try await client.withConnection { connection in
            try await connection.query(
                "UPDATE webhook SET suspended = FALSE, failures = 0, nextAttemptAt = \(Self.timestamp(time)) WHERE id = \(Self.key(id))",
                logger: Self.logger)
            return try await Self.webhooks(connection, where: "w.id = $1", [Self.key(id)]).first
        }
    }

    public func claimDueWebhooks(at time: Date, leaseUntil: Date, limit: Int) async throws -> [Webhook] {
        let now = Self.timestamp(time)
        let ids = try await client.query(
            """
            UPDATE webhook SET leaseUntil = \(Self.timestamp(leaseUntil))
            WHERE id IN (
                SELECT w.id FROM webhook w
                WHERE NOT w.suspended AND w.nextAttemptAt <= \(now) AND (w.leaseUntil IS NULL OR w.leaseUntil <= \(now))
                AND EXISTS (SELECT 1 FROM notification n WHERE n.id > w.deliveredThrough AND (w.ownerId IS NULL OR n.userId = w.ownerId))
                ORDER BY w.nextAttemptAt, w.id LIMIT \(limit)
                FOR UPDATE SKIP LOCKED)
            RETURNING id
            """, logger: Self.logger
        ).collect().map { try $0.decode(String.self) }
        guard !ids.isEmpty else { return [] }
        return try await client.withConnection { connection in
            try await Self.webhooks(connection, where: "w.id = ANY($1)", [ids])
        }
    }

    public func webhookBacklog() async throws -> WebhookBacklog {
        let rows = try await client.query(
            """
            SELECT COUNT(*),
                COALESCE(SUM((SELECT COUNT(*) FROM notification n
                              WHERE n.id > w.deliveredThrough AND (w.ownerId IS NULL OR n.userId = w.ownerId))), 0)::bigint
            FROM webhook w
            """, logger: Self.logger
        ).collect()
        let (webhooks, events) = try rows.first?.decode((Int, Int).self) ?? (0, 0)
        return WebhookBacklog(webhooks: webhooks, events: events)
    }

    public func pendingWebhookEvents(_ webhook: Webhook, limit: Int) async throws -> [WebhookEvent] {
        let rows: [PostgresRow] = try await client.withConnection { connection in
            // Deliveries follow ids as a cursor: none is passed that is still being written
            // (PostgresChangeCursors.swift).
            let horizon = try await Self.horizon(of: Self.notificationSequence, alwaysThere: true, connection)
            if let owner = webhook.ownerId {
                return try await connection.query(
                    """
                    SELECT n.id, n.userId, n.type, n.createdAt, n.readAt, n.subject, a.username
                    FROM notification n JOIN account a ON a.id = n.userId
                    WHERE n.id > \(webhook.deliveredThrough) AND n.id <= \(horizon) AND n.userId = \(owner) ORDER BY n.id LIMIT \(limit)
                    """, logger: Self.logger
                ).collect()
            }
            return try await connection.query(
                """
                SELECT n.id, n.userId, n.type, n.createdAt, n.readAt, n.subject, a.username
                FROM notification n JOIN account a ON a.id = n.userId
                WHERE n.id > \(webhook.deliveredThrough) AND n.id <= \(horizon) ORDER BY n.id LIMIT \(limit)
                """, logger: Self.logger
            ).collect()
        }
        return try rows.map { row in
            let (id, userId, type, createdAt, readAt, subject, username) = try row.decode(
                (Int64, Int64, String, Double, Double?, String, String).self)
            return WebhookEvent(
                notification: UserNotification(
                    id: id, userId: userId, type: type, createdAt: Self.date(createdAt), readAt: readAt.map(Self.date),
                    subject: NotificationSubject.decode(subject)),
                recipient: username)
        }
    }

    public func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws {
        let next = Self.timestamp(attempt.error == nil ? attempt.at : attempt.nextAttemptAt)
        let failed = attempt.error != nil
        try await client.query(
            """
            UPDATE webhook SET deliveredThrough = GREATEST(deliveredThrough, \(attempt.through)), delivered = delivered + \(attempt.delivered),
                failures = CASE WHEN \(failed) THEN failures + 1 ELSE 0 END, lastError = \(attempt.error),
                lastAttemptAt = \(Self.timestamp(attempt.at)), nextAttemptAt = \(next), suspended = \(failed && attempt.suspend), leaseUntil = NULL
            WHERE id = \(Self.key(attempt.id))
            """, logger: Self.logger)
    }

    private static func webhooks(_ connection: PostgresConnection, where condition: String, _ values: [any PostgresEncodable & Sendable])
        async throws -> [Webhook]
    {
        var binds = PostgresBindings()
        for value in values { try binds.append(value) }
        let sql = """
            SELECT w.id, w.ownerId, a.username, w.createdBy, w.url, w.types, w.secret, w.createdAt, w.deliveredThrough, w.delivered,
                   w.failures, w.lastError, w.lastAttemptAt, w.nextAttemptAt, w.suspended
            FROM webhook w LEFT JOIN account a ON a.id = w.ownerId WHERE \(condition) ORDER BY w.createdAt, w.id
            """
        return try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).collect().map { row in
            let (
                id, ownerId, owner, createdBy, url, types, secret, createdAt, deliveredThrough, delivered, failures, lastError,
                lastAttemptAt,
                nextAttemptAt, suspended
            ) =
                try row.decode(
                    (String, Int64?, String?, String, String, String, String, Double, Int64, Int64, Int32, String?, Double?, Double, Bool)
                        .self)
            return Webhook(
                id: UUID(uuidString: id) ?? UUID(), ownerId: ownerId, owner: owner, createdBy: createdBy, url: url,
                types: types.isEmpty ? [] : types.split(separator: ",").map(String.init), secret: secret, createdAt: date(createdAt),
                deliveredThrough: deliveredThrough, delivered: Int(delivered), failures: Int(failures), lastError: lastError,
                lastAttemptAt: lastAttemptAt.map(date), nextAttemptAt: date(nextAttemptAt), suspended: suspended)
        }
    }
}
