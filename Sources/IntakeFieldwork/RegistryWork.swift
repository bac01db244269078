import Foundation
import IntakeClient
import IntakeStore

/// Work on the team's patient registry done while the server cannot be reached: a change of a
/// patient's identification or groups, a consent, a dated report. Each is kept sealed on this
/// machine as a ``QueuedAction`` (as registrations are) and sent by `intake flush`, in the order
/// it was done, after the registration of a patient registered offline.
public enum RegistryWork {
    /// A change of identification or data groups. `baseRevision` is the revision this machine's
    /// copy of the registry holds (a change made on the server since is then refused as stale,
    /// never overwritten); nil for a patient registered offline, whose revision is read when it
    /// is sent.
    public struct Update: Codable, Sendable, Equatable {
        public var baseRevision: Int?
        public var changes: [String: String?]
        public var addGroups: [String]
        public var removeGroups: [String]
        public var groups: [String]?

        public init(baseRevision: Int?, changes: [String: String?], addGroups: [String], removeGroups: [String], groups: [String]?) {
            self.baseRevision = baseRevision
            self.changes = changes
            self.addGroups = addGroups
            self.removeGroups = removeGroups
            self.groups = groups
        }
    }

    public struct Consent: Codable, Sendable, Equatable {
        public var scope: String
        public var method: String

        public init(scope: String, method: String) {
            self.scope = scope
            self.method = method
        }
    }

    public struct Report: Codable, Sendable, Equatable {
        public var series: String
        public var date: String
        /// The values as the JSON object's text.
        public var values: String

        public init(series: String, date: String, values: String) {
            self.series = series
            self.date = date
            self.values = values
        }
    }

    /// Keeps `work` about `patient` (a whole id) for the next flush.
    public static func queue(_ kind: QueuedAction.Kind, patient: String, _ work: some Encodable, in store: LocalStore) throws {
        let verb = String(decoding: try JSONEncoder().encode(work), as: UTF8.self)
        _ = try store.enqueueAction(QueuedAction(kind: kind, target: patient, verb: verb))
    }

    /// What became of one piece of kept work: a few words, and the patient's revision after it.
    struct Sent {
        var result: String
        var revision: Int?
    }

    /// Sends one piece of kept work. `known` is the patient's revision after the work of this
    /// flush sent before it, if any: two changes to one patient made offline follow each other
    /// (the second is based on what the first made, not on the copy's revision both read).
    static func send(_ action: QueuedAction, with client: IntakeClient, known: Int?) async throws(ClientError) -> Sent {
        func decode<T: Decodable>(_ type: T.Type) throws(ClientError) -> T {
            guard let work = try? JSONDecoder().decode(type, from: Data(action.verb.utf8)) else {
                throw ClientError.unexpected("a queued change to patient \(action.target.prefix(8)) is damaged and cannot be sent")
            }
            return work
        }
        switch action.kind {
        case .patientUpdate:
            let update = try decode(Update.self)
            let revision: Int
            if let base = known ?? update.baseRevision {
                revision = base
            } else {
                revision = try await client.patient(action.target).revision
            }
            let patient = try await client.updatePatient(
                action.target, baseRevision: revision, changes: update.changes, addGroups: update.addGroups,
                removeGroups: update.removeGroups,
                groups: update.groups)
            return Sent(result: "revision \(patient.revision)", revision: patient.revision)
        case .patientConsent:
            let consent = try decode(Consent.self)
            let patient = try await client.recordConsent(action.target, scope: consent.scope, method: consent.method)
            return Sent(result: "sharing \(patient.sharingScope)", revision: patient.revision)
        case .patientReport:
            let report = try decode(Report.self)
            let stored = try await client.putReport(
                patient: action.target, series: report.series, date: report.date, values: Data(report.values.utf8))
            return Sent(result: "\(stored.series) \(stored.date), version \(stored.version)", revision: known)
        case .referralAnswer, .patientRegistration:
            throw ClientError.unexpected("not registry work")
        }
    }

    /// What flush says of one piece of work sent (`applied`) or refused with `result`.
    static func line(_ action: QueuedAction, result: String, applied: Bool) -> String {
        let patient = "patient \(action.target.prefix(8))"
        let what =
            switch action.kind {
            case .patientUpdate: "the change to \(patient), made offline"
            case .patientConsent: "the consent of \(patient), recorded offline"
            case .patientReport: "the report for \(patient), made offline"
            default: patient
            }
        return applied ? "Sent \(what): \(result)." : "Not sent: \(what): \(result)"
    }
}
