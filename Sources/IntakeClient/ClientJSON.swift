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

struct StoredJSON: Decodable {
    var record: PatientResponse
    var revision: Int
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
        if let section, let index { place = "question \(section).\(index)" + (questionId.map { " (\($0))" } ?? "") }
        else if let field { place = "patient \(field)" }
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
