import Foundation
import IntakeCore
import IntakeService

/// A validation issue in API responses: where, never the answer.
struct IssueJSON: Encodable {
    var kind: String
    var severity: String
    var section: Int?
    var index: Int?
    var questionId: String?
    var questionText: String?
    var field: String?
    /// For a question asked in a repeat: the instance, from 1, outermost first.
    var instance: [Int]?
    var message: String

    init(_ issue: ValidationIssue) {
        kind = issue.kind.rawValue
        severity = issue.severity.rawValue
        section = issue.position?.section
        index = issue.position?.index
        questionId = issue.questionId
        questionText = issue.questionText
        field = issue.field
        instance = issue.instance
        message = issue.message
    }

    /// The most issues an answer lists; the rest are counted (`issueCount`), so a record with a
    /// hundred thousand problems gets a short answer, not megabytes.
    static let maxListed = 100

    /// `{"issues": [...], "issueCount": n}` for an error's details: the first ``maxListed``.
    static func details(_ issues: [ValidationIssue]) -> JSONValue {
        let encoded = (try? JSONCoding.encoder.encode(listed(issues))).flatMap {
            try? JSONDecoder().decode(JSONValue.self, from: $0)
        }
        return .object(["issues": encoded ?? .array([]), "issueCount": .integer(issues.count)])
    }

    /// The first ``maxListed`` issues.
    static func listed(_ issues: [ValidationIssue]) -> [IssueJSON] {
        issues.prefix(maxListed).map(IssueJSON.init)
    }
}

/// A stored record with its server-side facts, the record in its canonical form: the one shape
/// of a stored record in JSON, for `GET /v1/records/{id}` and each record of the change feed.
enum StoredRecordJSON {
    static func write(_ stored: StoredRecord, into writer: inout JSONWriter) {
        writer.beginObject()
        writeMembers(stored, into: &writer)
        writer.endObject()
    }

    /// The members of a stored record, keys in order; `type`, when given, in its place among
    /// them (the change feed's entries name theirs).
    static func writeMembers(_ stored: StoredRecord, type: String? = nil, into writer: inout JSONWriter) {
        writer.key("receivedAt")
        writer.string(Timestamp.string(from: stored.receivedAt))
        writer.key("receivedBy")
        writer.string(stored.receivedBy)
        writer.key("record")
        RecordCodec.write(stored.record, into: &writer)
        writer.key("revision")
        writer.integer(stored.revision)
        if let type {
            writer.key("type")
            writer.string(type)
        }
        writer.key("updatedAt")
        writer.string(Timestamp.string(from: stored.updatedAt))
    }

    static func write(_ revision: RecordRevision, into writer: inout JSONWriter) {
        writer.beginObject()
        if let device = revision.deviceId {
            writer.key("deviceId")
            writer.string(device)
        }
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
struct IngestResultJSON {
    var index: Int?
    var id: String?
    var outcome: String
    var revision: Int?
    var currentRevision: Int?
    var code: String?
    var message: String?
    var issues: [IssueJSON]?
    /// How many issues there were, when more than ``IssueJSON/maxListed`` (only those are listed).
    var issueCount: Int?
    var warnings: [IssueJSON]?
}

extension IssueJSON {
    /// Keys in order, absent values left out: as `JSONCoding.encoder` would write it.
    func write(into writer: inout JSONWriter) {
        writer.beginObject()
        if let field { writer.key("field"); writer.string(field) }
        if let index { writer.key("index"); writer.integer(index) }
        if let instance {
            writer.key("instance")
            writer.beginArray()
            for number in instance { writer.integer(number) }
            writer.endArray()
        }
        writer.key("kind"); writer.string(kind)
        writer.key("message"); writer.string(message)
        if let questionId { writer.key("questionId"); writer.string(questionId) }
        if let questionText { writer.key("questionText"); writer.string(questionText) }
        if let section { writer.key("section"); writer.integer(section) }
        writer.key("severity"); writer.string(severity)
        writer.endObject()
    }
}

extension IngestResultJSON {
    /// Keys in order, absent values left out: every record of a batch gets one, so it is
    /// written directly rather than through `JSONEncoder`.
    func write(into writer: inout JSONWriter) {
        writer.beginObject()
        if let code { writer.key("code"); writer.string(code) }
        if let currentRevision { writer.key("currentRevision"); writer.integer(currentRevision) }
        if let id { writer.key("id"); writer.string(id) }
        if let index { writer.key("index"); writer.integer(index) }
        if let issueCount { writer.key("issueCount"); writer.integer(issueCount) }
        if let issues { writer.key("issues"); Self.write(issues, into: &writer) }
        if let message { writer.key("message"); writer.string(message) }
        writer.key("outcome"); writer.string(outcome)
        if let revision { writer.key("revision"); writer.integer(revision) }
        if let warnings { writer.key("warnings"); Self.write(warnings, into: &writer) }
        writer.endObject()
    }

    private static func write(_ issues: [IssueJSON], into writer: inout JSONWriter) {
        writer.beginArray()
        for issue in issues { issue.write(into: &writer) }
        writer.endArray()
    }

    var json: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        write(into: &writer)
        return writer.bytes
    }
}
