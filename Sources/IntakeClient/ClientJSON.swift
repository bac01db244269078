import Foundation
import IntakeCore

struct SessionJSON: Decodable { var token: String }

struct ResultJSON: Decodable {
    var outcome: String
    var revision: Int?
    var currentRevision: Int?
    var message: String?
    var issues: [IssueJSON]?

    var result: SendResult {
        switch outcome {
        case "created": .created
        case "duplicate": .duplicate
        case "conflict": .conflict(message: message ?? "a record with this id exists with other content")
        default: .invalid(message: message ?? "the server refused the record", issues: (issues ?? []).map(\.description))
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

struct IssueJSON: Decodable, CustomStringConvertible {
    var section: Int?
    var index: Int?
    var questionId: String?
    var questionText: String?
    var field: String?
    var message: String

    var description: String {
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
        var issues: [IssueJSON]?
    }

    var error: Body
}
