import Foundation
import IntakeCore

struct SessionJSON: Decodable { var token: String }

struct ResultJSON: Decodable {
    var outcome: String
    var revision: Int?
    var currentRevision: Int?
    var code: String?
    var message: String?
    var issues: [RemoteIssue]?

    var result: SendResult {
        switch outcome {
        case "created": .created
        case "duplicate": .duplicate
        case "conflict": .conflict(message: message ?? "a record with this id exists with other content")
        default: .invalid(message: message ?? "the server refused the record", issues: issues ?? [], code: code ?? "")
        }
    }
}

struct BatchJSON: Decodable { var results: [ResultJSON] }

/// `GET /v1/records/{id}`: the record (through ``RecordCodec``) and its revision.
enum StoredRecordReader {
    static func read(_ data: Data) throws(JSONReadError) -> (record: PatientResponse, revision: Int) {
        try JSONReader.document(data) { reader throws(JSONReadError) in
            var record: PatientResponse?
            var revision: Int?
            try reader.object { key, reader throws(JSONReadError) in
                switch key {
                case "record": record = try RecordCodec.read(&reader)
                case "revision": revision = try reader.integer()
                default: try reader.skipValue()
                }
            }
            guard let record, let revision else { throw reader.error("the answer lacks 'record' or 'revision'", at: 0) }
            return (record, revision)
        }
    }
}

struct LookupJSON: Decodable { var results: [RemoteMatch] }

/// A problem the server found with a record, as its answer lists it: the question or field, and
/// what is wrong (never the answer). `description` is the server's words; `issue` the same problem
/// for the client to say in its person's language.
public struct RemoteIssue: Decodable, Sendable, Equatable, CustomStringConvertible {
    public var kind: String?
    public var section: Int?
    public var index: Int?
    public var questionId: String?
    public var questionText: String?
    public var field: String?
    public var message: String

    public init(
        kind: String? = nil, section: Int? = nil, index: Int? = nil, questionId: String? = nil, questionText: String? = nil,
        field: String? = nil, message: String
    ) {
        self.kind = kind
        self.section = section
        self.index = index
        self.questionId = questionId
        self.questionText = questionText
        self.field = field
        self.message = message
    }

    /// The problem as the validator names it (a kind this client does not know reads as an invalid value).
    public var issue: ValidationIssue {
        ValidationIssue(
            kind: kind.flatMap(ValidationIssue.Kind.init(rawValue:)) ?? .invalidValue,
            position: section.flatMap { section in index.map { QuestionPosition(section: section, index: $0) } }, questionId: questionId,
            questionText: questionText, field: field, message: message)
    }

    public var description: String {
        var place = ""
        if let section, let index {
            place = "question \(section).\(index)" + (questionId.map { " (\($0))" } ?? "")
        } else if let field {
            place = "patient \(field)"
        }
        if let questionText { place += " \"\(questionText)\"" }
        return place.isEmpty ? message : "\(place): \(message)"
    }
}

struct ErrorJSON: Decodable {
    struct Body: Decodable {
        var code: String
        var message: String
        var details: Details?
    }

    struct Details: Decodable {
        var currentRevision: Int?
        var issues: [RemoteIssue]?
    }

    var error: Body
}
