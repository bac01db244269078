import Foundation

/// Puts actions on the audit trail and reads and verifies it.
///
/// Record creates and edits are appended by the store in the transaction that saves them; every
/// other action comes here once it has succeeded (and failed sign-ins once counted). Appends from
/// requests that arrive together share one transaction; each caller's answer waits until its
/// events are stored.
public final class AuditLog: Sendable {
    let store: any AuditStore
    let clock: @Sendable () -> Date
    private let group: GroupCommit<[AuditEntry], [AuditEvent]>

    public init(store: any AuditStore, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.clock = clock
        group = GroupCommit { jobs in
            let stored = try await store.appendAudit(jobs.flatMap { $0 })
            var start = 0
            return jobs.map { job in
                defer { start += job.count }
                return .success(Array(stored[start..<start + job.count]))
            }
        }
    }

    /// Appends one event, now.
    @discardableResult
    public func record(_ action: AuditAction, by actor: String, subject: String = "", details: [String: String] = [:]) async throws
        -> AuditEvent?
    {
        try await group.submit([AuditEntry(at: clock(), actor: actor, action: action, subject: subject, details: details)]).first
    }

    public func events(_ query: AuditQuery) async throws -> [AuditEvent] {
        try await store.auditEvents(query)
    }

    public func head() async throws -> AuditEvent? {
        try await store.auditHead()
    }

    /// Checks the whole trail, a thousand events at a time, and, when given, that a head kept
    /// elsewhere (`seq` and `hash`) is still in it.
    public func verify(expectedHead: (seq: Int64, hash: String)? = nil) async throws -> AuditReport {
        var verifier = AuditVerifier()
        var after: Int64 = 0
        while verifier.problem == nil {
            let page = try await store.auditEvents(AuditQuery(after: after, limit: 1_000))
            guard let last = page.last else { break }
            verifier.check(page)
            after = last.seq
        }
        var problem = verifier.problem
        if problem == nil, let expectedHead {
            let kept = try await store.auditEvent(seq: expectedHead.seq)
            if kept?.hash != expectedHead.hash {
                problem = AuditProblem(
                    seq: expectedHead.seq, kind: .headMissing,
                    message: kept == nil
                        ? "event \(expectedHead.seq), the head kept elsewhere, is no longer in the trail: events were deleted from its end"
                        : "event \(expectedHead.seq) is not the one whose hash was kept: the trail was rewritten")
            }
        }
        return AuditReport(checked: verifier.checked, head: verifier.head, problem: problem)
    }
}

/// What verifying the audit trail found.
public struct AuditReport: Sendable, Hashable {
    /// Events checked and found sound, from the first.
    public var checked: Int
    /// The last sound event.
    public var head: AuditEvent?
    /// The first problem, if any.
    public var problem: AuditProblem?

    public var isSound: Bool { problem == nil }
}
