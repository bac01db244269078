import Foundation

/// The append-only, hash-chained audit trail. The database itself refuses to change or delete
/// an event (triggers on SQLite and PostgreSQL); appends are numbered and chained in one order
/// even when several servers write at once.
public protocol AuditStore: Sendable {
    /// Chains `entries` after the newest event and stores them, all or none; returns them as stored.
    func appendAudit(_ entries: [AuditEntry]) async throws -> [AuditEvent]
    /// Events matching `query`, oldest first, up to its limit.
    func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent]
    /// The newest event.
    func auditHead() async throws -> AuditEvent?
    /// The event numbered `seq`.
    func auditEvent(seq: Int64) async throws -> AuditEvent?
}
