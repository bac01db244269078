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
        // Each patient's revision after the registry work this flush sent for them.
        var revisions: [String: Int] = [:]
        for (index, entry) in pending.enumerated() {
            let answer: Result<String, ClientError>
            do throws(ClientError) {
                switch entry.action.kind {
                case .referralAnswer: answer = .success(try await client.referral(entry.action.target, entry.action.verb).state)
                case .patientRegistration: answer = .success(try await register(entry))
                case .patientUpdate, .patientConsent, .patientReport:
                    let sent = try await RegistryWork.send(entry.action, with: client, known: revisions[entry.action.target])
                    if let revision = sent.revision { revisions[entry.action.target] = revision }
                    answer = .success(sent.result)
                }
            } catch {
                answer = .failure(error)
            }
            switch answer {
            case .success(Self.keptBack):
                // Refused for a reason a person must settle (an external id another patient has):
                // kept, sealed, with the reason, never dropped.
                summary.outcomes.append(
                    Outcome(
                        action: entry.action,
                        result: try store.pendingActions(includingSetAside: true).first { $0.id == entry.id }?.reason ?? "", applied: false)
                )
            case .success(let state):
                try store.removeAction(entry.id)
                summary.outcomes.append(Outcome(action: entry.action, result: state, applied: true))
            case .failure(let error) where error.isTransient || Self.signInExpired(error):
                try store.actionAttemptFailed(entry.id, reason: error.description)
                summary.stoppedBecause = error.description
                summary.remaining = pending.count - index
                return summary
            case .failure(let error) where entry.action.kind.isRegistryWork:
                // Registry work refused for good (a group no longer defined, a value refused, a
                // patient changed on the server since): kept aside with the reason, never
                // dropped; a person settles it.
                let reason =
                    entry.action.kind == .patientRegistration
                    ? "patient \(entry.action.target.prefix(8)) not registered: \(error.description)"
                    : "\(RegistryWork.line(entry.action, result: error.description, applied: false)); it stays here (intake queue list) until you discard it"
                try store.setActionAside(entry.id, reason: reason)
                summary.outcomes.append(Outcome(action: entry.action, result: reason, applied: false))
            case .failure(let error):
                try store.removeAction(entry.id)
                summary.outcomes.append(Outcome(action: entry.action, result: error.description, applied: false))
            }
        }
        return summary
    }

    static let keptBack = "kept back"

    /// Registers a patient registered offline: `created` or `existing` (sent before); refused,
    /// it stays queued with the reason (``keptBack``).
    private func register(_ entry: PendingAction) async throws(ClientError) -> String {
        guard let patient = try? JSONDecoder().decode(NewRemotePatient.self, from: Data(entry.action.verb.utf8)) else {
            throw ClientError.unexpected("a queued registration is damaged and cannot be sent")
        }
        let result = try await client.registerPatients([patient])[0]
        switch result.outcome {
        case "created", "existing": return "registered"
        default:
            let reason =
                result.outcome == "external_id_taken"
                ? "patient \(patient.id.prefix(8)) not registered: patient \(result.existingPatientId?.prefix(8) ?? "?") has its external id; it stays queued here (intake queue list); discard it or register the patient again with another external id"
                : "patient \(patient.id.prefix(8)) not registered: \(result.outcome)"
            try? store.setActionAside(entry.id, reason: reason)
            return Self.keptBack
        }
    }

    /// The token no longer works (expired, or this machine's enrolment revoked): nothing is
    /// sent, and everything waits for a sign-in.
    private static func signInExpired(_ error: ClientError) -> Bool {
        if case .notAllowed(401, _) = error { return true }
        if case .signInRefused = error { return true }
        return false
    }

    /// What `intake flush` says about them.
    public static func lines(_ summary: Summary) -> [String] {
        var lines: [String] = []
        for outcome in summary.outcomes {
            if outcome.action.kind == .patientRegistration {
                lines.append(
                    outcome.applied ? "Registered patient \(outcome.action.target.prefix(8)), registered offline." : outcome.result)
                continue
            }
            if outcome.action.kind.isRegistryWork {
                lines.append(outcome.applied ? RegistryWork.line(outcome.action, result: outcome.result, applied: true) : outcome.result)
                continue
            }
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
