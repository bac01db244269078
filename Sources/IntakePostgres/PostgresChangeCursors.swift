import Foundation
import IntakeService
import PostgresNIO

/// Change cursors without a lock held to commit.
///
/// A record's cursors come from sequences: the deployment's (`record_change`) and its team's
/// (`team_change_<id>`, made by a trigger as the team is). Sequences hand values out in the order
/// writers ask, not the order they commit, so a reader must not pass a value a writer still holds
/// open: it would never see that change. Each writer therefore marks, before it takes a value,
/// a value no lower than any it can take (the sequence's last value plus one; 1 for one that has
/// handed nothing out since it was set, which is never higher) — a shared transaction-scoped advisory lock whose key holds the
/// sequence (23 bits of its oid) and that value (40 bits), which
/// PostgreSQL releases at commit or rollback — and a reader's horizon is the sequence's last
/// value, lowered below the lowest mark still held:
///
/// 1. the reader reads the sequence's last value L;
/// 2. then the marks held (`pg_locks`): H = min(L, lowest mark − 1);
/// 3. then, in a later statement (a later snapshot), the changes up to H.
///
/// A change at cursor c ≤ H was handed out before step 1, so its writer marked before then. If
/// that writer had not committed by step 3's snapshot, its mark was held at step 2 and bounds H
/// below c; so it had, and the change is seen. Writers never wait for each other here (shared
/// locks); a reader sees the changes of a writer still open only once it ends, and no other
/// writer's after it: readers are bounded by the oldest writer in flight. A mark whose 23 bits
/// of oid are another sequence's too only lowers a horizon for a while.
///
/// Limits: a sequence's values fit the mark up to 2⁴⁰ (about 10¹² changes a team).
extension PostgresRecordStore {
    static let deploymentSequence = "record_change"

    /// The sequence of a team's change cursors (the name is built from a number: safe in SQL text).
    static func teamSequence(_ teamId: Int64) -> String { "team_change_\(teamId)" }

    /// Sets each team's sequence after the highest cursor its records hold: after the migration
    /// made them, and after a copy of a deployment wrote the records with their cursors.
    package static let teamSequencesCatchUp = """
        DO $$
        DECLARE
            t record;
        BEGIN
            FOR t IN SELECT id FROM team LOOP
                -- Called, so its last value reads back (pg_sequence_last_value); a team without
                -- records keeps a fresh sequence.
                PERFORM setval(('team_change_' || t.id)::regclass, m, true)
                FROM (SELECT MAX(teamSeq) AS m FROM record WHERE teamId = t.id) AS highest WHERE m > 0;
            END LOOP;
        END $$
        """

    /// Marks, before this transaction takes cursors from them, the deployment's sequence and the
    /// teams' (see the type's comment). Held to the transaction's end.
    static func markChanges(teams: some Sequence<Int64>, _ connection: PostgresConnection) async throws {
        try await mark(changeSequences(teams: teams), connection)
    }

    /// The sequences a transaction that writes records of `teams` draws its cursors from, in the
    /// order they are marked.
    static func changeSequences(teams: some Sequence<Int64>) -> [String] {
        [deploymentSequence] + Set(teams).sorted().map(teamSequence)
    }

    /// The notifications' ids are a cursor too (webhook deliveries and notification streams
    /// follow them): a writer marks their sequence before it inserts one.
    static let notificationSequence = "notification_id_seq"

    /// Marks `sequences` (a name that is no sequence is skipped: nothing can be taken from it).
    static func mark(_ sequences: [String], _ connection: PostgresConnection) async throws {
        try await connection.query(
            "SELECT \(unescaped: markOfEach) FROM (SELECT to_regclass(name) AS s FROM unnest(\(sequences)::text[]) AS name) AS q",
            logger: logger)
    }

    /// A group commit's first statement: marks `sequences` (as ``mark(_:_:)``), sets the
    /// transaction's lock timeout, and reads which of `ids` the database holds (by this
    /// statement's snapshot: it waits for no transaction changing one of them), all in one round
    /// trip. Unprepared, so its look is planned for the ids it is given.
    static func markForGroup(_ sequences: [String], lockTimeout: Duration, probing ids: [String], _ connection: PostgresConnection)
        async throws -> Set<String>
    {
        // At least 1 ms: 0 would turn the timeout off.
        let milliseconds = max(1, lockTimeout.components.seconds * 1000 + lockTimeout.components.attoseconds / 1_000_000_000_000_000)
        let rows = try await connection.query(
            """
            SELECT ARRAY(SELECT id FROM record WHERE id = ANY(\(ids)::text[])), set_config('lock_timeout', \(String(milliseconds) + "ms"), true),
                \(unescaped: markOfEach)
            FROM (SELECT to_regclass(name) AS s FROM unnest(\(sequences)::text[]) AS name) AS q
            """, logger: logger
        ).collect()
        return Set(try rows.first.map { try $0.makeRandomAccess()[0].decode([String].self) } ?? [])
    }

    /// The mark of each sequence `q.s` (see the type's comment), over a relation `q(s regclass)`.
    private static let markOfEach = """
        pg_advisory_xact_lock_shared(((q.s::oid::bigint & 8388607) << 40)
            | LEAST(COALESCE(pg_sequence_last_value(q.s) + 1, 1), 1099511627775))
        """

    /// The highest cursor of the sequence (a team's, or the deployment's when `teamId` is nil)
    /// below which every change that will ever commit has: read it before the snapshot that reads
    /// the changes (steps 1 and 2 of the type's comment, in one statement and in that order: the
    /// sequence is read as the CTE is scanned, the marks by the subquery of its row).
    static func changeHorizon(teamId: Int64?, _ connection: PostgresConnection) async throws -> Int64 {
        try await horizon(of: teamId.map(teamSequence) ?? deploymentSequence, alwaysThere: teamId == nil, connection)
    }

    /// ``changeHorizon(teamId:_:)`` of any marked sequence. One `alwaysThere` is read directly
    /// (a copy may have set it to hand out its value next); another is read through
    /// `pg_sequence_last_value` (a team's: it has handed out its last value, or nothing, NULL: 0),
    /// and a name that is no sequence has no changes.
    static func horizon(of sequence: String, alwaysThere: Bool, _ connection: PostgresConnection) async throws -> Int64 {
        let last =
            alwaysThere
            ? "SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS v, '\(sequence)'::regclass AS s FROM \(sequence)"
            : "SELECT COALESCE(pg_sequence_last_value(to_regclass('\(sequence)')), 0) AS v, to_regclass('\(sequence)') AS s"
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    WITH l AS (\(last))
                    SELECT LEAST(l.v, (
                        SELECT MIN(((k.classid::bigint << 32) | k.objid::bigint) & 1099511627775) - 1 FROM pg_locks k
                        WHERE k.locktype = 'advisory' AND k.objsubid = 1 AND l.v IS NOT NULL
                            AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                            AND (k.classid::bigint >> 8) = (l.s::oid::bigint & 8388607)))
                    FROM l
                    """),
            logger: logger
        ).collect()
        return try rows.first?.decode(Int64?.self) ?? 0
    }
}

/// The audit trail's events for records created reach it after their commit: ingest writes them
/// to `auditPending` in its own transaction (no lock), and one chainer at a time (the audit lock)
/// numbers and links what is pending onto the chain's head and removes it, in one transaction.
/// Each store runs a pass after its group commits (in the background, passes coalescing) and
/// before any read of the trail, so a reader sees every event committed before it asked; events
/// whose writer died between its commit and the pass are linked by the next one, whoever runs it.
extension PostgresRecordStore {
    static func insertPending(_ entries: [AuditEntry], _ connection: PostgresConnection) async throws {
        guard !entries.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO auditPending (at, actor, action, subject, details)
            SELECT * FROM unnest(\(entries.map { timestamp($0.at) })::float8[], \(entries.map(\.actor))::text[],
                \(entries.map(\.action))::text[], \(entries.map(\.subject))::text[],
                \(entries.map { AuditEvent.detailsText($0.details) })::text[])
            """, logger: logger)
    }

    /// Links what is pending onto the audit chain (see above): `BEGIN`, the audit lock, one read
    /// of what is pending and of the chain's head, one statement that appends the events and
    /// removes them from pending, `COMMIT`. Nothing to do costs one read (`known` skips it when
    /// the caller just wrote some).
    static func chainPending(_ client: PostgresClient, known: Bool = false) async throws {
        if !known {
            let waiting = try await client.query("SELECT EXISTS (SELECT 1 FROM auditPending)", logger: logger).collect()
            guard try waiting.first?.decode(Bool.self) == true else { return }
        }
        try await transaction(client) { connection in
            try await lock(auditLock, connection)
            _ = try await chainLocked(appending: [], connection)
        }
    }

    /// Under the audit lock: links what is pending onto the chain's head, then `entries`, in one
    /// read and one statement; the events made of `entries`.
    static func chainLocked(appending entries: [AuditEntry], _ connection: PostgresConnection) async throws -> [AuditEvent] {
        var pending: [(id: Int64, entry: AuditEntry)] = []
        var head: (seq: Int64, hash: String)?
        // The head (its row has no id) and what is pending, in any order: sorted below.
        let rows = try await connection.query(
            """
            SELECT NULL::bigint, 0::float8, '', '', '', '', seq, hash FROM (SELECT seq, hash FROM auditEvent ORDER BY seq DESC LIMIT 1) AS h
            UNION ALL
            SELECT id, at, actor, action, subject, details, NULL::bigint, NULL::text FROM auditPending
            """, logger: logger)
        for try await (id, at, actor, action, subject, details, seq, hash) in rows.decode(
            (Int64?, Double, String, String, String, String, Int64?, String?).self)
        {
            guard let id else {
                if let seq, let hash { head = (seq, hash) }
                continue
            }
            var entry = AuditEntry(at: date(at), actor: actor, action: .recordCreate, subject: subject)
            entry.action = action
            entry.details = AuditEvent.details(fromText: details)
            pending.append((id, entry))
        }
        guard !pending.isEmpty || !entries.isEmpty else { return [] }
        // Pending events in the order they were written, then the new ones.
        pending.sort { $0.id < $1.id }
        let events = AuditChain.chain(pending.map(\.entry) + entries, after: head)
        try await insertAudit(events, removingPending: pending.map(\.id), connection)
        return Array(events.suffix(entries.count))
    }
}

/// Runs the audit chainer's passes for one store in the background: a pass asked for while one
/// runs is one more pass after it, however many asked.
final class AuditChainer: Sendable {
    private let wake: AsyncStream<Void>.Continuation
    private let running: Task<Void, Never>

    init(client: PostgresClient) {
        let (stream, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wake = wake
        running = Task {
            for await _ in stream {
                // A moment for the groups committing meanwhile, so one pass links theirs too:
                // each pass takes the chain's lock, which another server's chainer waits for.
                // 25 ms rather than 5: two servers on one database took single POSTs about a
                // fifth faster (docs/performance.md); whoever reads the trail links it first.
                try? await Task.sleep(for: .milliseconds(25))
                // A pass that fails (the database away) leaves the events pending for the next.
                try? await PostgresRecordStore.chainPending(client, known: true)
            }
        }
    }

    func poke() { wake.yield() }

    deinit {
        wake.finish()
        running.cancel()
    }
}
