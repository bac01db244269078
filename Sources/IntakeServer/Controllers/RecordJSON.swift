import Foundation
import IntakeCore

/// A validation issue in API responses: where, never the answer.
struct IssueJSON: Encodable {
    var kind: String
    var severity: String
    var section: Int?
    var index: Int?
    var questionId: String?
    var questionText: String?
    var field: String?
    var message: String

    init(_ issue: ValidationIssue) {
        kind = issue.kind.rawValue
        severity = issue.severity.rawValue
        section = issue.position?.section
        index = issue.position?.index
        questionId = issue.questionId
        questionText = issue.questionText
        field = issue.field
        message = issue.message
    }

    /// `{"issues": [...]}` for an error's details.
    static func details(_ issues: [ValidationIssue]) -> JSONValue {
        let encoded = (try? JSONCoding.encoder.encode(issues.map(IssueJSON.init))).flatMap { try? JSONDecoder().decode(JSONValue.self, from: $0) }
        return .object(["issues": encoded ?? .array([])])
    }
}

/// A stored record with its server-side facts.
struct StoredRecordJSON: Encodable {
    var record: PatientResponse
    var revision: Int
    var receivedBy: String
    var receivedAt: Date
    var updatedAt: Date
}

/// The answer to `POST /v1/records` and to each item of a batch.
struct IngestResultJSON: Encodable {
    var index: Int?
    var id: String?
    var outcome: String
    var revision: Int?
    var currentRevision: Int?
    var code: String?
    var message: String?
    var issues: [IssueJSON]?
    var warnings: [IssueJSON]?
}
