import Foundation
import IntakeClient
import IntakeStore

/// Sends the answers given offline, oldest first. One the server takes leaves the queue; one it
/// refuses for good (the referral moved on meanwhile, or is not the user's) leaves it too, with
/// the server's reason reported; when the server cannot be reached, or the sign-in has expired,
/// the rest wait for the next flush.
public struct ActionFlush: Sendable {
    public let store: LocalStore
    public let client: IntakeClient

    public init(store: LocalStore, client: IntakeClient) {
        self.store = store
        self.client = client
    }

    public struct Outcome: Sendable {
        public var action: QueuedAction
        /// What the server said: the referral's new state, or why it refused.
        public var result: String
        public var applied: Bool
    }

    public struct Summary: Sendable {
        public var outcomes: [Outcome] = []
        public var remaining = 0
        public var stoppedBecause: String?
    }

    public func run() async throws -> Summary {
        var summary = Summary()
        let pending = try store.pendingActions()
        for (index, entry) in pending.enumerated() {
            let answer: Result<RemoteReferral, ClientError>
            do throws(ClientError) {
                answer = .success(try await client.referral(entry.action.target, entry.action.verb))
            } catch {
                answer = .failure(error)
            }
            switch answer {
            case .success(let referral):
                try store.removeAction(entry.id)
                summary.outcomes.append(Outcome(action: entry.action, result: referral.state, applied: true))
            case .failure(let error) where error.isTransient || Self.signInExpired(error):
                try store.actionAttemptFailed(entry.id, reason: error.description)
                summary.stoppedBecause = error.description
                summary.remaining = pending.count - index
                return summary
            case .failure(let error):
                try store.removeAction(entry.id)
                summary.outcomes.append(Outcome(action: entry.action, result: error.description, applied: false))
            }
        }
        return summary
    }

    private static func signInExpired(_ error: ClientError) -> Bool {
        if case .notAllowed(401, _) = error { return true }
        return false
    }

    /// What `intake flush` says about them.
    public static func lines(_ summary: Summary) -> [String] {
        var lines: [String] = []
        for outcome in summary.outcomes {
            let referral = "referral \(outcome.action.target.prefix(8))"
            lines.append(
                outcome.applied
                    ? "Sent your answer '\(outcome.action.verb)' to \(referral): it is \(outcome.result)."
                    : "Your answer '\(outcome.action.verb)' to \(referral) was not applied: \(outcome.result).")
        }
        if let reason = summary.stoppedBecause {
            lines.append("\(summary.remaining) answer(s) still queued (\(reason)); run 'intake flush' again later.")
        }
        return lines
    }
}
