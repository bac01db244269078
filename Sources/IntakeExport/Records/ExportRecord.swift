import Foundation
import IntakeCore

/// A record on its way into an export: de-identified unless identifiers were asked for, with its
/// pseudonymous patient key and the server's revision.
public struct ExportRecord: Sendable {
    /// The record; its patient part holds only sex unless the export includes identifiers.
    public var record: PatientResponse
    public var patientKey: String?
    /// Whole years at the record's start, capped at 90 (meaning 90 or older).
    public var ageYears: Int?
    /// The server's revision, when the record came from a server.
    public var revision: Int?
    /// Whether its dates were moved already (see ``ExportOptions/shiftDates``).
    public var datesShifted: Bool
    /// The registry's consent and data groups of the record's patient, when it points to one.
    public var registry: RegistryFacts?
    /// Its review state on the server (`received`, `has_issues`, `edited`, `approved`, `rejected`),
    /// when it came from one.
    public var reviewState: String?

    public init(
        record: PatientResponse, patientKey: String?, ageYears: Int?, revision: Int?, datesShifted: Bool = false,
        registry: RegistryFacts? = nil,
        reviewState: String? = nil
    ) {
        self.reviewState = reviewState
        self.record = record
        self.patientKey = patientKey
        self.ageYears = ageYears
        self.revision = revision
        self.datesShifted = datesShifted
        self.registry = registry
    }

    /// Prepares a full record: keys the patient, works out the age, drops identifiers unless
    /// `includeIdentifiers`, and moves its dates when `shiftDates` (which needs the keyer).
    ///
    /// A record that points to a registry patient is keyed by that patient's id, so a spelling
    /// corrected in the registry keeps the key; the id itself is an identifier and is dropped
    /// with the names.
    public init(
        _ record: PatientResponse, revision: Int? = nil, keyer: PatientKeyer?, includeIdentifiers: Bool, shiftDates: Bool = false,
        registry: RegistryFacts? = nil, reviewState: String? = nil
    ) {
        self.reviewState = reviewState
        if let patientId = record.patientId {
            self.patientKey = keyer?.key(patientId: patientId)
        } else {
            self.patientKey = keyer?.key(for: record.patient)
        }
        self.ageYears = record.patient.dateOfBirth.map { Self.age(born: $0, at: record.createdAt) }
        self.revision = revision
        self.record = record
        self.datesShifted = false
        self.registry = registry
        if !includeIdentifiers {
            self.record.patient = PatientIdentification(sex: record.patient.sex)
            self.record.patientId = nil
            // The case's properties as the visit saw them may name or reach the patient: a
            // de-identified export keeps which case the record was for, not what the case said.
            self.record.caseLink?.properties = [:]
        }
        if shiftDates, let keyer { shift(by: keyer.dateShift(patientKey: patientKey, recordId: record.id)) }
    }

    /// Moves every date and time of the record `days` days back.
    mutating func shift(by days: Int) {
        let seconds = TimeInterval(days * 86_400)
        record.createdAt -= seconds
        record.updatedAt -= seconds
        record.patient.dateOfBirth = record.patient.dateOfBirth?.adding(days: -days)
        registry?.consentedAt? -= seconds
        for (position, answer) in record.allAnswers { record[position] = Self.shifted(answer, by: days) }
        if var link = record.caseLink {
            link.properties = link.properties.mapValues { Self.shifted($0, by: days) }
            record.caseLink = link
        }
        datesShifted = true
    }

    static func shifted(_ answer: Answer, by days: Int) -> Answer {
        switch answer {
        case .date(let date): .date(date.adding(days: -days))
        case .dictionary(let fields): .dictionary(fields.mapValues { shifted($0, by: days) })
        case .instances(let list): .instances(list.map { $0.mapValues { shifted($0, by: days) } })
        default: answer
        }
    }

    static func age(born: LocalDate, at time: Date) -> Int {
        let today = CivilDays.date(fromDays: Int64((time.timeIntervalSince1970 / 86_400).rounded(.down)))
        var years = today.year - born.year
        if (today.month, today.day) < (born.month, born.day) { years -= 1 }
        return min(max(years, 0), 90)
    }
}
