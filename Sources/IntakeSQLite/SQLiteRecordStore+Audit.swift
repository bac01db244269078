import Foundation
import GRDB
import IntakeCore
import IntakeService

extension SQLiteRecordStore {
    public func appendAudit(_ entries: [AuditEntry]) async throws -> [AuditEvent] {
        guard !entries.isEmpty else { return [] }
        return try await database.write { db in try Self.appendAudit(entries, db) }
    }

    /// Appends inside a write transaction already open (one writer at a time: the newest event
    /// read here is still the newest when these follow it), so an action and its audit events
    /// are stored together or not at all.
    static func appendAudit(_ entries: [AuditEntry], _ db: Database) throws -> [AuditEvent] {
        guard !entries.isEmpty else { return [] }
        let head = try Row.fetchOne(db.cachedStatement(sql: "SELECT seq, hash FROM auditEvent ORDER BY seq DESC LIMIT 1"))
            .map { (seq: $0["seq"] as Int64, hash: $0["hash"] as String) }
        let events = AuditChain.chain(entries, after: head)
        let insert = try db.cachedStatement(
            sql: "INSERT INTO auditEvent (seq, at, actor, action, subject, details, previousHash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for event in events {
            try insert.execute(arguments: [
                event.seq, event.at, event.actor, event.action, event.subject, AuditEvent.detailsText(event.details), event.previousHash,
                event.hash,
            ])
        }
        return events
    }

    public func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        try await database.read { db in
            var sql = "SELECT * FROM auditEvent WHERE seq > ?"
            var arguments: StatementArguments = [query.after]
            if let actor = query.actor {
                sql += " AND actor = ?"
                arguments += [actor]
            }
            if let action = query.action {
                sql += " AND (action = ? OR substr(action, 1, ?) = ?)"
                arguments += [action, action.utf8.count + 1, action + "."]
            }
            if let subject = query.subject {
                sql += " AND subject = ?"
                arguments += [subject]
            }
            if let from = query.from {
                sql += " AND at >= ?"
                arguments += [Timestamp.string(from: from)]
            }
            if let to = query.to {
                sql += " AND at < ?"
                arguments += [Timestamp.string(from: to)]
            }
            if let before = query.before {
                sql += " AND seq < ?"
                arguments += [before]
            }
            sql += query.newestFirst ? " ORDER BY seq DESC LIMIT ?" : " ORDER BY seq LIMIT ?"
            arguments += [query.limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.auditEvent)
        }
    }

    public func auditHead() async throws -> AuditEvent? {
        try await database.read { db in try Row.fetchOne(db, sql: "SELECT * FROM auditEvent ORDER BY seq DESC LIMIT 1").map(Self.auditEvent)
        }
    }

    public func auditEvent(seq: Int64) async throws -> AuditEvent? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM auditEvent WHERE seq = ?", arguments: [seq]).map(Self.auditEvent)
        }
    }

    static func auditEvent(_ row: Row) -> AuditEvent {
        AuditEvent(
            seq: row["seq"], at: row["at"], actor: row["actor"], action: row["action"], subject: row["subject"],
            details: AuditEvent.details(fromText: row["details"]), previousHash: row["previousHash"], hash: row["hash"])
    }
}
