import Foundation

/// A record's review as the server gives it.
public struct RemoteReview: Sendable, Decodable, Equatable {
    public var recordId: String
    public var questionnaireId: String
    public var questionnaireVersion: String
    public var collector: String
    public var state: String
    public var locked: Bool
    public var reviewedAt: String?
    public var reviewedBy: String?
    public var updatedAt: String
    public var entries: [Entry]?

    public struct Entry: Sendable, Decodable, Equatable {
        public var id: Int64
        public var author: String
        public var state: String?
        public var locked: Bool?
        public var text: String
        public var at: String
    }
}

/// Records' review: state, lock, thread, lists.
extension IntakeClient {
    public func review(of record: String) async throws(ClientError) -> RemoteReview {
        try await call("GET", "/v1/records/\(Self.segment(record))/review", expecting: 200, as: RemoteReview.self)
    }

    /// has_issues, approved or rejected; `lock` an approved record against edits.
    public func setReview(of record: String, state: String, lock: Bool, comment: String?) async throws(ClientError) -> RemoteReview {
        struct Body: Encodable {
            var state: String
            var lock: Bool
            var comment: String?
        }
        return try await call(
            "POST", "/v1/records/\(Self.segment(record))/review", body: Body(state: state, lock: lock, comment: comment), expecting: 200,
            as: RemoteReview.self)
    }

    public func reopenReview(of record: String, comment: String?) async throws(ClientError) -> RemoteReview {
        struct Body: Encodable { var comment: String? }
        return try await call(
            "POST", "/v1/records/\(Self.segment(record))/review/reopen", body: Body(comment: comment), expecting: 200, as: RemoteReview.self
        )
    }

    public func commentReview(of record: String, text: String) async throws(ClientError) -> RemoteReview.Entry {
        try await call(
            "POST", "/v1/records/\(Self.segment(record))/review/comments", body: ["text": text], expecting: 201, as: RemoteReview.Entry.self
        )
    }

    /// Records by review state (states comma-separated; all when nil), the most recently changed first.
    public func reviews(states: String?, questionnaire: String?, collector: String?, limit: Int?) async throws(ClientError)
        -> [RemoteReview]
    {
        struct Answer: Decodable { var reviews: [RemoteReview] }
        let parts = [
            states.map { "state=\(Self.segment($0))" }, questionnaire.map { "questionnaire=\(Self.segment($0))" },
            collector.map { "collector=\(Self.segment($0))" }, limit.map { "limit=\($0)" },
        ]
        let query = parts.compactMap { $0 }.joined(separator: "&")
        return try await call("GET", "/v1/reviews" + (query.isEmpty ? "" : "?" + query), expecting: 200, as: Answer.self).reviews
    }
}
