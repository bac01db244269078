import Foundation
import IntakeClient

/// What `intake patient` prints. Names are shown to the team's own field workers and
/// coordinators, who asked for them, and never written to a log.
public enum PatientText {
    public static func list(_ patients: [RemotePatient]) -> [String] {
        guard !patients.isEmpty else { return ["No patient matches."] }
        return [TextTable.row("ID", "FAMILY NAME", "GIVEN NAME", "BORN", "EXTERNAL ID", "SHARING", widths: [9, 20, 16, 11, 14])]
            + patients.map { patient in
                TextTable.row(
                    String(patient.id.prefix(8)), patient.familyName, patient.givenName, patient.dateOfBirth ?? "",
                    patient.externalId ?? "",
                    patient.sharingScope + (patient.archived ? " (archived)" : ""), widths: [9, 20, 16, 11, 14])
            }
    }

    public static func show(_ patient: RemotePatient) -> [String] {
        [
            "Patient \(patient.id) (revision \(patient.revision)\(patient.archived ? ", archived" : ""))",
            "Name: \(patient.givenName) \(patient.familyName)",
            "Born: \(patient.dateOfBirth ?? "unknown")   Sex: \(patient.sex ?? "unknown")   External id: \(patient.externalId ?? "none")",
            "Sharing: \(patient.sharingScope)",
            "Data groups: \((patient.dataGroups ?? []).isEmpty ? "none" : (patient.dataGroups ?? []).joined(separator: ", "))",
        ]
    }

    public static func consent(scope: String, history: [RemoteConsent]) -> [String] {
        ["Current sharing scope: \(scope)\(history.isEmpty ? " (no consent recorded)" : "")"]
            + history.map {
                "  \(String($0.recordedAt.prefix(16)).replacingOccurrences(of: "T", with: " "))  \($0.scope) (\($0.method)), recorded by \($0.recordedBy)"
            }
    }
}
