import Foundation
import Hummingbird
import IntakeCore

/// `GET /v1/questionnaires`, `GET /v1/questionnaires/{id}/versions/{version}`, `POST /v1/questionnaires`.
struct QuestionnaireController {
    let services: IntakeServices

    struct Summary: Encodable {
        var id: String
        var version: String
        var title: String
        var questionCount: Int
        var publishedAt: Date

        init(_ q: PublishedQuestionnaire) {
            id = q.id
            version = q.version
            title = q.title
            questionCount = q.questionCount
            publishedAt = q.publishedAt
        }
    }

    struct Detail: Encodable {
        var id: String
        var version: String
        var title: String
        var questionCount: Int
        var publishedAt: Date
        var files: [String: String]
        var lists: [String: String]
        var questions: [QuestionJSON]
    }

    /// A parsed question, so clients need not parse the text files to know what an index means.
    struct QuestionJSON: Encodable {
        var section: Int
        var index: Int
        var id: String?
        var text: String
        var type: String
        var required: Bool

        init(_ question: Question) {
            section = question.position.section
            index = question.position.index
            id = question.id
            text = question.text.base
            type = question.type.keyword
            required = question.isRequired
        }
    }

    struct Publish: RequestBody {
        var files: [String: String]
        var lists: [String: String]?
        static let fields: Set<String> = ["files", "lists"]
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/questionnaires") { _, context in
            _ = try context.require(Set(Role.allCases))
            return try JSONCoding.response(["questionnaires": try await services.store.questionnaires().map(Summary.init)])
        }
        routes.on(.get, "/v1/questionnaires/{id}/versions/{version}") { _, context in
            _ = try context.require(Set(Role.allCases))
            let id = try context.parameters.require("id"), version = try context.parameters.require("version")
            guard let q = try await services.store.questionnaire(id: id, version: version),
                let parsed = try await services.questionnaires.questionnaire(QuestionnaireReference(id: id, version: version))
            else {
                throw APIError.notFound("questionnaire \(id) version \(version)")
            }
            return try JSONCoding.response(
                Detail(
                    id: q.id, version: q.version, title: q.title, questionCount: q.questionCount, publishedAt: q.publishedAt,
                    files: q.files, lists: q.lists, questions: parsed.allQuestions.map(QuestionJSON.init)))
        }
        routes.on(.post, "/v1/questionnaires") { request, context in
            _ = try context.require([.admin, .coordinator])
            let body = try JSONCoding.decode(
                Publish.self, from: try await JSONCoding.body(of: request, limit: services.configuration.maxBodyBytes, timeout: services.configuration.bodyTimeout))
            let (published, isNew) = try await services.questionnaires.publish(files: body.files, lists: body.lists ?? [:])
            return try JSONCoding.response(Summary(published), status: isNew ? .created : .ok)
        }
    }
}
