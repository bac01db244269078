import Foundation

/// The rules of changing a patient's identification, decided once for every store (which keeps
/// the one race: an external id two changes claim at once).
public enum PatientRules {
    /// nil when a change made on `baseRevision` may go ahead on `current`; otherwise the outcome.
    public static func change(_ current: Patient?, baseRevision: Int) -> PatientChangeOutcome? {
        guard let current else { return .notFound }
        guard current.revision == baseRevision else { return .stale(current: current.revision) }
        return nil
    }

    /// nil when every group the change adds or removes is one of the `defined` ones.
    public static func groups(_ change: DataGroupChange, defined: [String]) -> PatientChangeOutcome? {
        let unknown = Set(change.add + change.remove).subtracting(defined).sorted()
        return unknown.isEmpty ? nil : .unknownDataGroups(unknown: unknown, defined: defined)
    }
}
