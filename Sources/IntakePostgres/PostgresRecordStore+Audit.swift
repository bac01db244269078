import Foundation
import IntakeCore
import IntakeService
import PostgresNIO

/// Appends take the audit lock: events are numbered and chained in one order across servers.
/// Ingest's events come through `auditPending` (PostgresChangeCursors.swift): every read of the
/// trail links what is pending first.
extension PostgresRecordStore {
    static let auditLock = "intake-audit"

    public func appendAudit(_ entries: [AuditEntry]) async throws -> [AuditEvent] {
        guard !entries.isEmpty else { return [] }
        return try await transaction { connection in try await Self.appendAudit(entries, connection) }
    }

    /// Appends inside a transaction already open, under the audit lock (held to its end), so an
    /// action and its audit events are stored together or not at all. Events pending (records
    /// created, committed before this: PostgresChangeCursors.swift) are linked first, so a record's
    /// creation comes before whatever is done to it next.
    static func appendAudit(_ entries: [AuditEntry], _ connection: PostgresConnection) async throws -> [AuditEvent] {
        guard !entries.isEmpty else { return [] }
        try await lock(auditLock, connection)
        return try await chainLocked(appending: entries, connection)
    }

    /// Inserts events chained after the head read under the audit lock: one statement for the
    /// lot, however many records a group commit created (and, for the chainer, the pending rows
    /// they were made from removed in the same statement).
    static func insertAudit(_ events: [AuditEvent], removingPending pending: [Int64] = [], _ connection: PostgresConnection) async throws {
        // Not a prepared statement: postgres-nio remembers a failed preparation for the
        // connection's life, and every audited write of every kind goes through here.
        try await connection.query(
            """
            WITH linked AS (DELETE FROM auditPending WHERE id = ANY(\(pending)::bigint[]))
            INSERT INTO auditEvent (seq, at, actor, action, subject, details, previousHash, hash)
            SELECT * FROM unnest(\(events.map(\.seq))::bigint[], \(events.map(\.at))::text[], \(events.map(\.actor))::text[],
                \(events.map(\.action))::text[], \(events.map(\.subject))::text[], \(events.map { AuditEvent.detailsText($0.details) })::text[],
                \(events.map(\.previousHash))::text[], \(events.map(\.hash))::text[])
            """, logger: logger)
    }

    public func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        try await Self.chainPending(client)
        var binds = PostgresBindings()
        binds.append(query.after)
        var sql = "SELECT seq, at, actor, action, subject, details, previousHash, hash FROM auditEvent WHERE seq > $1"
        if let actor = query.actor {
            binds.append(actor)
            sql += " AND actor = $\(binds.count)"
        }
        if let action = query.action {
            binds.append(action)
            binds.append(action + ".")
            sql += " AND (action = $\(binds.count - 1) OR starts_with(action, $\(binds.count)))"
        }
        if let subject = query.subject {
            binds.append(subject)
            sql += " AND subject = $\(binds.count)"
        }
        if let from = query.from {
            binds.append(Timestamp.string(from: from))
            sql += " AND at >= $\(binds.count)"
        }
        if let to = query.to {
            binds.append(Timestamp.string(from: to))
            sql += " AND at < $\(binds.count)"
        }
        if let before = query.before {
            binds.append(before)
            sql += " AND seq < $\(binds.count)"
        }
        binds.append(query.limit)
        sql += (query.newestFirst ? " ORDER BY seq DESC LIMIT $" : " ORDER BY seq LIMIT $") + "\(binds.count)"
        return try await client.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger).collect().map(Self.auditEvent)
    }

    public func auditHead() async throws -> AuditEvent? {
        try await Self.chainPending(client)
        return try await client.query(
            "SELECT seq, at, actor, action, subject, details, previousHash, hash FROM auditEvent ORDER BY seq DESC LIMIT 1",
            logger: Self.logger
        ).collect().first.map(Self.auditEvent)
    }

    public func auditEvent(seq: Int64) async throws -> AuditEvent? {
        try await Self.chainPending(client)
        return try await client.query(
            "SELECT seq, at, actor, action, subject, details, previousHash, hash FROM auditEvent WHERE seq = \(seq)", logger: Self.logger
        ).collect().first.map(Self.auditEvent)
    }

    static func auditEvent(_ row: PostgresRow) throws -> AuditEvent {
        let (seq, at, actor, action, subject, details, previousHash, hash) = try row.decode(
            (Int64, String, String, String, String, String, String, String).self)
        return AuditEvent(
            seq: seq, at: at, actor: actor, action: action, subject: subject,
            details: AuditEvent.details(fromText: details),
            previousHash: previousHash, hash: hash)
    }
}
