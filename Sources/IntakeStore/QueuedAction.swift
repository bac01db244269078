import Foundation

/// An answer given to the server while it could not be reached, kept sealed like a record until
/// `intake flush` sends it: accepting, declining, completing or withdrawing a referral, or
/// registering a patient.
public struct QueuedAction: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable {
        /// `target` is a referral id; `verb` is accept, decline, complete or withdraw.
        case referralAnswer = "referral_answer"
        /// `target` is the new patient's id; `verb` is the registration as JSON.
        case patientRegistration = "patient_registration"
        /// `target` is a patient's id; `verb` is the change of identification or groups as JSON.
        case patientUpdate = "patient_update"
        /// `target` is a patient's id; `verb` is the consent (scope and method) as JSON.
        case patientConsent = "patient_consent"
        /// `target` is a patient's id; `verb` is the dated report (series, date, values) as JSON.
        case patientReport = "patient_report"

        /// Whether it is work on the registry, which a refusal sets aside for a person (rather
        /// than dropping it, as a referral answer the referral moved past is).
        public var isRegistryWork: Bool { self != .referralAnswer }
    }

    public var kind: Kind
    public var target: String
    public var verb: String

    public init(kind: Kind, target: String, verb: String) {
        self.kind = kind
        self.target = target
        self.verb = verb
    }
}

/// A queued answer with how its sending went.
public struct PendingAction: Sendable, Hashable {
    public var id: UUID
    public var action: QueuedAction
    public var enqueuedAt: Date
    public var attempts: Int
    /// Why the last attempt did not reach the server.
    public var reason: String?
}
