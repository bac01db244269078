import Foundation
import IntakeCore

/// A questionnaire's alert raised by a stored record: who hears of it and what they are told.
public enum RecordAlert {
    /// The keys of the questions whose alert a record raises, for a record cleaned of hidden
    /// answers (as the validator leaves it). Only complete records raise alerts: a draft may
    /// still change.
    ///
    /// An alert is named by its number among the questionnaire's alerts (`"1"`), not by its
    /// question: a notification naming `self_harm` beside a record id would say what the patient
    /// answered to whoever reads it, a webhook receiver included.
    public static func raised(byCleaned record: PatientResponse, questionnaire: Questionnaire, today: LocalDate) -> [String] {
        guard record.status == .complete else { return [] }
        return questionnaire.raisedAlertNumbers(by: record, today: today, hidden: []).map(String.init)
    }

    /// One notification per record, version and alert, however often the record is sent or edited
    /// (the version too: alert 1 of one version need not be alert 1 of another).
    public static func eventKey(record: PatientResponse, alert: String) -> String {
        "alert:\(record.id.uuidString.lowercased()):\(record.questionnaire.version):\(alert)"
    }

    /// Ids only: the record, its questionnaire version and the alert's number. The message is the
    /// questionnaire's, read from it by whoever shows the notification; no answer is sent.
    public static func subject(record: PatientResponse, alert: String, teamId: Int64) -> [String: String] {
        [
            "recordId": record.id.uuidString.lowercased(), "questionnaireId": record.questionnaire.id,
            "questionnaireVersion": record.questionnaire.version, "alert": alert, "teamId": String(teamId),
        ]
    }
}
