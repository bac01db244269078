import Foundation
import IntakeClient
import IntakeCore

/// Applies a ``ConflictPolicy`` to an edit the server refused as stale: loads the server's
/// record (and, to merge, the revision the edit was based on), decides, and saves; tried again
/// if the record changes once more meanwhile.
public struct ConflictResolver: Sendable {
    public let client: IntakeClient
    public let policy: ConflictPolicy
    /// For ``ConflictPolicy/ask``: a side for each conflict, given the merge (a person at a
    /// terminal). Without it, `ask` sets aside an edit with conflicts, as `merge` does.
    public let choose: (@Sendable (RecordMerge) async throws -> [RecordMerge.Side])?

    public init(client: IntakeClient, policy: ConflictPolicy, choose: (@Sendable (RecordMerge) async throws -> [RecordMerge.Side])? = nil) {
        self.client = client
        self.policy = policy
        self.choose = choose
    }

    public enum Outcome: Sendable, Equatable {
        /// Saved at `revision`; `how` says what was kept, for the person.
        case saved(revision: Int, how: String)
        /// The server's record was kept; the edit is not sent.
        case keptServer(revision: Int)
        /// Both sides changed these fields differently; nothing was sent.
        case unresolved(fields: [String], revision: Int)
        /// The server refused the result (deleted since, or a merge it does not accept).
        case refused(String)
    }

    static let attempts = 3

    public func resolve(_ mine: PatientResponse, baseRevision: Int) async throws -> Outcome {
        try await resolve(mine, baseRevision: baseRevision, asking: choose)
    }

    /// As ``resolve(_:baseRevision:)``, with `asking` settling conflicts for `ask` (a person at
    /// this terminal, in the form).
    public func resolve(_ mine: PatientResponse, baseRevision: Int, asking: ((RecordMerge) async throws -> [RecordMerge.Side])?)
        async throws
        -> Outcome
    {
        for _ in 0..<Self.attempts {
            let theirs: PatientResponse
            let current: Int
            do {
                (theirs, current) = try await client.record(id: mine.id)
            } catch {
                guard case .refused(let status, let message) = error, status == 410 else { throw error }
                return .refused(message)
            }
            let record: PatientResponse
            let how: String
            switch policy {
            case .keepServer:
                return .keptServer(revision: current)
            case .keepMine:
                record = mine
                how = "yours kept over revision \(current) (which stays in the record's history)"
            case .merge, .ask:
                let base = try await client.record(id: mine.id, revision: baseRevision)
                let merge = RecordMerge(base: base, mine: mine, theirs: theirs)
                if merge.conflicts.isEmpty {
                    record = merge.merged
                    how = "merged with revision \(current): \(merge.appliedFromMine.count) change(s) of yours applied, none in conflict"
                } else if policy == .ask, let choose = asking {
                    let sides = try await choose(merge)
                    // Not every conflict settled (input ended): nothing is sent.
                    guard sides.count >= merge.conflicts.count else {
                        return .unresolved(fields: merge.conflicts.map(\.field.description), revision: current)
                    }
                    var index = 0
                    record = merge.resolved { _ in
                        defer { index += 1 }
                        return index < sides.count ? sides[index] : .theirs
                    }
                    let yours = sides.filter { $0 == .mine }.count
                    how =
                        "merged with revision \(current): \(merge.appliedFromMine.count) change(s) of yours applied, \(merge.conflicts.count) conflict(s) settled (\(yours) yours)"
                } else {
                    return .unresolved(fields: merge.conflicts.map(\.field.description), revision: current)
                }
            }
            switch try await client.put(record, baseRevision: current) {
            case .updated(let revision): return .saved(revision: revision, how: how)
            case .stale: continue
            case .conflict(let message), .invalid(let message, _, _): return .refused(message)
            case .created, .duplicate: return .saved(revision: current, how: how)
            }
        }
        throw ClientError.unexpected("the record kept changing on the server while this edit was being saved; try again")
    }

    /// The reason a queued edit is set aside, for `intake queue list`.
    public static func setAsideReason(_ outcome: Outcome) -> String? {
        switch outcome {
        case .saved: nil
        case .keptServer(let revision):
            "not sent: the server's revision \(revision) was kept (--on-conflict keep-server); your edit stays here: 'intake queue retry' with another policy sends it"
        case .unresolved(let fields, let revision):
            "both you and the server (revision \(revision)) changed \(fields.joined(separator: ", ")); run 'intake flush --on-conflict ask' to choose, or keep-mine / keep-server"
        case .refused(let message): "refused: \(message)"
        }
    }
}
