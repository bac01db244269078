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

/// A stored record with its server-side facts, the record in its canonical form.
enum StoredRecordJSON {
    static func write(_ stored: StoredRecord, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("receivedAt")
        writer.string(Timestamp.string(from: stored.receivedAt))
        writer.key("receivedBy")
        writer.string(stored.receivedBy)
        writer.key("record")
        RecordCodec.write(stored.record, into: &writer)
        writer.key("revision")
        writer.integer(stored.revision)
        writer.key("updatedAt")
        writer.string(Timestamp.string(from: stored.updatedAt))
        writer.endObject()
    }

    static func write(_ revision: RecordRevision, into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("record")
        RecordCodec.write(revision.record, into: &writer)
        writer.key("revision")
        writer.integer(revision.revision)
        writer.key("savedAt")
        writer.string(Timestamp.string(from: revision.savedAt))
        writer.key("savedBy")
        writer.string(revision.savedBy)
        writer.endObject()
    }
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
