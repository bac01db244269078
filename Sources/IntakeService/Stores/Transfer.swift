import Foundation

/// Records moving to another team: some records, or all of a patient's with the patient.
public struct TransferRequest: Sendable {
    public enum Subject: Sendable, Equatable {
        /// Records that point to no registry patient.
        case records([UUID])
        /// A registry patient and every record of theirs.
        case patient(UUID)
    }

    public var subject: Subject
    public var fromTeamId: Int64
    public var toTeamId: Int64
    public var by: String
    public var at: Date

    public init(subject: Subject, fromTeamId: Int64, toTeamId: Int64, by: String, at: Date) {
        self.subject = subject
        self.fromTeamId = fromTeamId
        self.toTeamId = toTeamId
        self.by = by
        self.at = at
    }
}

public enum TransferOutcome: Sendable, Equatable {
    /// The records that moved (a patient may have none).
    case transferred([UUID])
    /// A record or the patient is not a live one of the team.
    case notFound(UUID)
    /// The record points to a registry patient: transfer the patient, with all their records.
    case hasPatient(record: UUID, patient: UUID)
}

extension TransferRequest {
    /// A transfer notification's subject: counts, names and the patient's id, never patient data.
    package func notificationSubject(moved: Int, names: [Int64: String]) -> [String: String] {
        var subject = ["records": String(moved), "fromTeam": names[fromTeamId] ?? "", "toTeam": names[toTeamId] ?? "", "by": by]
        if case .patient(let patient) = self.subject { subject["patient"] = patient.uuidString.lowercased() }
        return subject
    }
}

extension AuditEntry {
    public static func recordTransfer(_ record: UUID, _ request: TransferRequest) -> AuditEntry {
        AuditEntry(
            at: request.at, actor: request.by, action: .recordTransfer, subject: record.uuidString.lowercased(),
            details: ["fromTeam": String(request.fromTeamId), "toTeam": String(request.toTeamId)])
    }
}
