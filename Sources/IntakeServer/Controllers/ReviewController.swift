import Foundation
import Hummingbird
import IntakeCore
import IntakeService

/// Records' review: `GET`/`POST /v1/records/{id}/review` (its state and thread; a reviewer's
/// decision), `POST /v1/records/{id}/review/reopen`, `POST /v1/records/{id}/review/comments`,
/// and `GET /v1/reviews?state=&questionnaire=&collector=&limit=`.
struct ReviewController {
    let services: IntakeServices

    struct DecisionBody: RequestBody {
        var state: ReviewState
        var lock: Bool?
        var comment: String?
        static let fields: Set<String> = ["state", "lock", "comment"]
    }

    struct ReopenBody: RequestBody {
        var comment: String?
        static let fields: Set<String> = ["comment"]
    }

    struct CommentBody: RequestBody {
        var text: String
        static let fields: Set<String> = ["text"]
    }

    static let maxListLimit = 500

    func register(_ routes: RouteRegistrar) {
        routes.on(.get, "/v1/records/{id}/review") { _, context in
            let user = try context.signedIn()
            let (review, entries) = try await services.reviews.review(try context.pathID(of: "a record"), by: user)
            return try JSONCoding.response(ReviewJSON(review, entries: entries))
        }
        routes.on(.post, "/v1/records/{id}/review") { request, context in
            let user = try context.signedIn()
            let id = try context.pathID(of: "a record")
            let body = try JSONCoding.decode(DecisionBody.self, from: try await small(request))
            let (review, entries) = try await services.reviews.decide(
                id, state: body.state, lock: body.lock ?? false, comment: body.comment, by: user)
            return try JSONCoding.response(ReviewJSON(review, entries: entries))
        }
        routes.on(.post, "/v1/records/{id}/review/reopen") { request, context in
            let user = try context.signedIn()
            let id = try context.pathID(of: "a record")
            let body = try JSONCoding.decode(ReopenBody.self, from: try await small(request, empty: "{}"))
            let (review, entries) = try await services.reviews.reopen(id, comment: body.comment, by: user)
            return try JSONCoding.response(ReviewJSON(review, entries: entries))
        }
        routes.on(.post, "/v1/records/{id}/review/comments") { request, context in
            let user = try context.signedIn()
            let body = try JSONCoding.decode(CommentBody.self, from: try await small(request))
            let (_, entry) = try await services.reviews.comment(try context.pathID(of: "a record"), text: body.text, by: user)
            return try JSONCoding.response(ReviewEntryJSON(entry), status: .created)
        }
        let accepted = ["state", "questionnaire", "version", "collector", "from", "to", "limit", "offset"]
        routes.on(.get, "/v1/reviews", query: accepted) { request, context in
            let user = try context.signedIn()
            let parameters = try QueryParameters.read(request, accepted: accepted)
            // Names and versions are 1 to 200 characters; the states, a list of them, are read below.
            for name in accepted {
                guard let value = parameters[name] else { continue }
                guard !value.isEmpty, name == "state" || value.unicodeScalars.count <= 200 else {
                    throw APIError.badRequest("\(name) is 1 to 200 characters; give a value or leave it out")
                }
            }
            var states: [ReviewState] = []
            for text in (parameters["state"] ?? "").split(separator: ",", omittingEmptySubsequences: false) where parameters["state"] != nil
            {
                guard let state = ReviewState(rawValue: String(text)) else {
                    throw APIError.badRequest(
                        "state is one or more of \(ReviewState.allCases.map(\.rawValue).joined(separator: ", ")), separated by commas")
                }
                states.append(state)
            }
            var limit = 100
            if let text = parameters["limit"] {
                guard let parsed = Int(text), (1...Self.maxListLimit).contains(parsed) else {
                    throw APIError.badRequest("limit is a number from 1 to \(Self.maxListLimit)")
                }
                limit = parsed
            }
            func day(_ name: String) throws -> Date? {
                guard let text = parameters[name] else { return nil }
                guard let date = LocalDate(iso: text) else { throw APIError.badRequest("\(name) is a day such as 2026-11-26 (UTC)") }
                return date.startInUTC
            }
            var offset = 0
            if let text = parameters["offset"] {
                guard text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let parsed = Int(text), parsed <= 10_000_000 else {
                    throw APIError.badRequest("offset is a number from 0 to 10000000: how many of the list come before the page")
                }
                offset = parsed
            }
            // `to` is the last day listed: records changed before the day after it.
            let (reviews, total) = try await services.reviews.page(
                by: user, states: states, questionnaireId: parameters["questionnaire"], collector: parameters["collector"],
                version: parameters["version"], changedFrom: try day("from"), changedBefore: try day("to")?.addingTimeInterval(86_400),
                limit: limit,
                offset: offset)
            return try JSONCoding.response(
                ReviewPageJSON(reviews: reviews.map { ReviewJSON($0, entries: nil) }, total: total ?? 0, offset: offset))
        }
    }

    /// A small JSON body; `empty` stands for a body not sent at all.
    private func small(_ request: Request, empty: String? = nil) async throws -> Data {
        let data = try await JSONCoding.body(of: request, limit: 64 * 1024, timeout: services.configuration.bodyTimeout)
        if data.isEmpty, let empty { return Data(empty.utf8) }
        return data
    }
}

/// A page of `GET /v1/reviews`: the reviews, how many the whole list holds, where the page starts.
struct ReviewPageJSON: Encodable {
    var reviews: [ReviewJSON]
    var total: Int
    var offset: Int
}

struct ReviewJSON: Encodable {
    var recordId: String
    var questionnaireId: String
    var questionnaireVersion: String
    var collector: String
    var state: String
    var locked: Bool
    var reviewedAt: Date?
    var reviewedBy: String?
    var updatedAt: Date
    var entries: [ReviewEntryJSON]?

    init(_ review: RecordReview, entries: [ReviewEntry]?) {
        recordId = review.recordId.uuidString.lowercased()
        questionnaireId = review.questionnaireId
        questionnaireVersion = review.questionnaireVersion
        collector = review.collector
        state = review.state.rawValue
        locked = review.locked
        reviewedAt = review.reviewedAt
        reviewedBy = review.reviewedBy
        updatedAt = review.updatedAt
        self.entries = entries?.map(ReviewEntryJSON.init)
    }
}

struct ReviewEntryJSON: Encodable {
    var id: Int64
    var author: String
    var state: String?
    var locked: Bool?
    var text: String
    var at: Date

    init(_ entry: ReviewEntry) {
        id = entry.id
        author = entry.author
        state = entry.state?.rawValue
        locked = entry.locked
        text = entry.text
        at = entry.at
    }
}
