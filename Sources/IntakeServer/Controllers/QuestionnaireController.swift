import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// `GET /v1/questionnaires`, `GET /v1/questionnaires/{id}/versions/{version}`, `POST /v1/questionnaires`,
/// `PUT /v1/questionnaires/{id}/versions/{version}/state`.
struct QuestionnaireController {
    let services: IntakeServices

    struct Summary: Encodable {
        var id: String
        var version: String
        var title: String
        var questionCount: Int
        var publishedAt: Date
        var state: QuestionnaireState
        var stateChangedAt: Date?
        var stateChangedBy: String?

        init(_ q: PublishedQuestionnaire) {
            id = q.id
            version = q.version
            title = q.title
            questionCount = q.questionCount
            publishedAt = q.publishedAt
            state = q.status.state
            stateChangedAt = q.status.changedAt
            stateChangedBy = q.status.changedBy
        }
    }

    struct Detail: Encodable {
        var id: String
        var version: String
        var title: String
        var questionCount: Int
        var publishedAt: Date
        var state: QuestionnaireState
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
        /// The repeat the question is asked in (its index), if any.
        var group: Int?

        init(_ question: Question) {
            section = question.position.section
            index = question.position.index
            id = question.id
            text = question.text.base
            type = question.type.keyword
            required = question.isRequired
            group = question.group?.index
        }
    }

    struct Publish: RequestBody {
        var files: [String: String]
        var lists: [String: String]?
        /// Stored as a draft, to try before publishing it.
        var draft: Bool?
        static let fields: Set<String> = ["files", "lists", "draft"]
    }

    struct StateBody: RequestBody {
        var state: QuestionnaireState
        static let fields: Set<String> = ["state"]
    }

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/questionnaires") { _, context in
            let user = try context.signedIn()
            return try JSONCoding.response(["questionnaires": try await services.questionnaires.visible(to: user).map(Summary.init)])
        }
        routes.on(.get, "/v1/questionnaires/{id}/versions/{version}") { _, context in
            let user = try context.signedIn()
            let id = try context.parameters.require("id"), version = try context.parameters.require("version")
            guard let q = try await services.questionnaires.published(id: id, version: version),
                q.status.state != .draft || RecordAccessPolicy.seesDraftQuestionnaires(user),
                let parsed = try await services.questionnaires.questionnaire(QuestionnaireReference(id: id, version: version))
            else {
                throw APIError.notFound("questionnaire \(id) version \(version)")
            }
            return try JSONCoding.response(
                Detail(
                    id: q.id, version: q.version, title: q.title, questionCount: q.questionCount, publishedAt: q.publishedAt,
                    state: q.status.state, files: q.files, lists: q.lists, questions: parsed.allQuestions.map(QuestionJSON.init)))
        }
        routes.on(.post, "/v1/questionnaires") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(
                Publish.self,
                from: try await JSONCoding.body(
                    of: request, limit: services.configuration.maxBodyBytes, timeout: services.configuration.bodyTimeout))
            let (published, isNew) = try await services.questionnaires.publish(
                files: body.files, lists: body.lists ?? [:], draft: body.draft ?? false, by: user.username)
            return try JSONCoding.response(Summary(published), status: isNew ? .created : .ok)
        }
        routes.on(.put, "/v1/questionnaires/{id}/versions/{version}/state") { request, context in
            let user = try context.signedIn()
            let id = try context.parameters.require("id"), version = try context.parameters.require("version")
            let body = try JSONCoding.decode(
                StateBody.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout))
            let (questionnaire, _) = try await services.questionnaires.change(id: id, version: version, to: body.state, by: user.username)
            return try JSONCoding.response(Summary(questionnaire))
        }
        routes.on(.post, "/v1/questionnaires/{id}/versions/{version}/test-records") { request, context in
            let (user, team) = try context.member()
            let reference = QuestionnaireReference(
                id: try context.parameters.require("id"), version: try context.parameters.require("version"))
            let record = try JSONCoding.record(
                from: try await JSONCoding.body(
                    of: request, limit: services.configuration.maxBodyBytes, timeout: services.configuration.bodyTimeout))
            guard record.questionnaire == reference else {
                throw APIError(
                    .unprocessableContent, code: "questionnaire_mismatch",
                    message: "the record answers \(record.questionnaire), not \(reference) named in the path")
            }
            switch try await services.records.tryRecord(record, teamId: team, by: user.username) {
            case .invalid(let code, let message, let issues):
                throw APIError(.unprocessableContent, code: code, message: message, details: IssueJSON.details(issues))
            case .kept(let isNew, let warnings):
                return try JSONCoding.response(
                    TestRecordResult(
                        id: record.id.uuidString.lowercased(), outcome: isNew ? "test" : "test_replaced",
                        warnings: IssueJSON.listed(warnings)),
                    status: isNew ? .created : .ok)
            }
        }
        routes.on(.get, "/v1/questionnaires/{id}/versions/{version}/test-records") { _, context in
            let (_, team) = try context.member()
            let reference = QuestionnaireReference(
                id: try context.parameters.require("id"), version: try context.parameters.require("version"))
            let records = try await services.records.testRecords(of: reference, teamId: team)
            return try JSONCoding.response(["records": records.map(TestRecordJSON.init)])
        }
        routes.on(.post, "/v1/questionnaires/{id}/versions/{version}/test-records/discard") { _, context in
            let (_, team) = try context.member()
            let reference = QuestionnaireReference(
                id: try context.parameters.require("id"), version: try context.parameters.require("version"))
            return try JSONCoding.response(["deleted": try await services.records.discardTestRecords(of: reference, teamId: team)])
        }
        routes.on(.get, "/v1/questionnaires/{id}/access") { _, context in
            _ = try context.signedIn()
            let id = try await publishedId(context)
            return try JSONCoding.response(Access(questionnaireId: id, collectorOnly: try await services.access.isCollectorOnly(id)))
        }
        routes.on(.put, "/v1/questionnaires/{id}/access") { request, context in
            let user = try context.signedIn()
            let id = try await publishedId(context)
            let body = try JSONCoding.decode(
                AccessBody.self, from: try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout)
            )
            let changed = try await services.records.setCollectorOnly(questionnaireId: id, body.collectorOnly, by: user.username)
            return try JSONCoding.response(Access(questionnaireId: id, collectorOnly: body.collectorOnly, changed: changed))
        }
    }

    /// The `{id}` of a questionnaire that has at least one published version; 404 otherwise.
    private func publishedId(_ context: IntakeRequestContext) async throws -> String {
        let id = try context.parameters.require("id")
        guard try await services.questionnaires.visible(to: try context.signedIn()).contains(where: { $0.id == id }) else {
            throw APIError.notFound("questionnaire \(id.prefix(100))")
        }
        return id
    }

    struct AccessBody: RequestBody {
        var collectorOnly: Bool
        static let fields: Set<String> = ["collectorOnly"]
    }

    /// Who of a team sees a questionnaire's records: `collectorOnly`, the field workers who
    /// collected them (and the coordinators, and grants and referrals); otherwise the whole team.
    struct Access: Encodable {
        var questionnaireId: String
        var collectorOnly: Bool
        var changed: Bool?
    }
}

struct TestRecordResult: Encodable {
    var id: String
    /// `test` (kept apart), or `test_replaced` (a test record of that id was replaced).
    var outcome: String
    var warnings: [IssueJSON]
}

struct TestRecordJSON: Encodable {
    var id: String
    var collector: String
    var submittedBy: String
    var receivedAt: Date
    var answerCount: Int

    init(_ record: TestRecord) {
        id = record.id.uuidString.lowercased()
        collector = record.collector
        submittedBy = record.submittedBy
        receivedAt = record.receivedAt
        answerCount = record.answerCount
    }
}
