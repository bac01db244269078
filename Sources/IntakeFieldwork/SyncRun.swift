import Foundation
import IntakeClient
import IntakeCore
import IntakeStore

/// `intake sync`: brings the sealed local copy of the team's records up to date from the
/// server's change feed, a page per local transaction, from where the last sync stopped.
public struct SyncRun: Sendable {
    public let store: LocalStore
    public let client: IntakeClient

    public init(store: LocalStore, client: IntakeClient) {
        self.store = store
        self.client = client
    }

    public struct Summary: Sendable, Equatable {
        public var saved = 0
        public var removed = 0
        /// The copy was dropped and built again from the start (the server asked, or the team changed).
        public var rebuilt = false
        public var team = ""
        public var total = 0
        public var cursor: Int64 = 0
    }

    /// Applies every change after the copy's cursor. With `wait`, the first request is held that
    /// many seconds for a change when there is none (for `--watch`).
    /// The server refusing the team's records (403: no team any more, or a role that may not read
    /// them) drops the copy: it holds nothing the user may no longer see.
    public func catchUp(wait: Int? = nil) async throws -> Summary {
        let server = client.baseURL.absoluteString
        let state = try store.syncState()
        var since = state?.server == server ? state?.cursor ?? 0 : 0
        var summary = Summary()
        var wait = wait
        var forceReset = false
        while true {
            let page: RemoteChangePage
            do {
                page = try await client.changes(since: since, limit: 200, wait: wait)
            } catch {
                guard case .forbidden(_, let message) = error else { throw error }
                try store.clearSynced()
                throw FieldworkError(
                    "the server no longer lets you read your team's records (\(message)); the synced copy on this machine was dropped. "
                        + "Ask a coordinator or an admin to add you to a team, then run 'intake sync' again")
            }
            wait = nil
            // A copy of another team started from that team's cursor: start again from 0.
            if let state, state.server == server, state.team != page.team, since != 0, !forceReset {
                since = 0
                forceReset = true
                continue
            }
            let reset = page.reset || forceReset
            forceReset = false
            if reset { summary.rebuilt = true }
            var changes: [SyncedChange] = []
            for change in page.changes {
                switch change {
                case .record(let record, let revision, let cursor, let updatedAt):
                    changes.append(.saved(record, revision: revision, cursor: cursor, updatedAt: updatedAt))
                case .deleted(let id, let cursor):
                    changes.append(.removed(id, cursor: cursor))
                }
            }
            try store.applySynced(changes, cursor: page.cursor, server: server, team: page.team, reset: reset)
            for change in changes {
                if case .saved = change { summary.saved += 1 } else { summary.removed += 1 }
            }
            summary.team = page.team
            summary.cursor = page.cursor
            since = page.cursor
            if !page.more { break }
        }
        summary.total = try store.syncState()?.count ?? 0
        return summary
    }

    /// `--watch`: catches up again and again with long polls until the task is cancelled, saying
    /// what each round changed; a server that went away is said once and tried again, waiting
    /// longer each time (up to a minute).
    public func watch(say: (String) -> Void, warn: (String) -> Void) async throws {
        var failures = 0
        while !Task.isCancelled {
            do {
                let summary = try await catchUp(wait: 10)
                failures = 0
                if summary.saved + summary.removed > 0 || summary.rebuilt { say(Self.describe(summary)) }
            } catch let error as ClientError where error.isTransient {
                failures += 1
                if failures == 1 { warn("The server cannot be reached (\(error)); trying again.") }
                try await Task.sleep(for: .seconds(min(60, 1 << min(failures, 6))))
            }
        }
    }

    /// What one catch-up did, for the person at the terminal.
    public static func describe(_ summary: Summary) -> String {
        let rebuilt = summary.rebuilt ? " (built again from the start)" : ""
        return "Synced team '\(summary.team)': \(summary.saved) record(s) saved, \(summary.removed) removed\(rebuilt); "
            + "this machine holds \(summary.total) record(s) of the team, sealed."
    }
}
