import Foundation
import IntakeCore

/// A questionnaire version as the server lists it, with its state.
public struct RemoteQuestionnaire: Sendable, Equatable, Decodable {
    public var id: String
    public var version: String
    public var title: String
    public var questionCount: Int
    public var publishedAt: String
    /// `draft`, `published`, `closed` or `retired`.
    public var state: String
    public var stateChangedAt: String?
    public var stateChangedBy: String?

    enum CodingKeys: String, CodingKey { case id, version, title, questionCount, publishedAt, state, stateChangedAt, stateChangedBy }

    /// A server from before versions had a state lists only published ones: `state` defaults so.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        version = try c.decode(String.self, forKey: .version)
        title = try c.decode(String.self, forKey: .title)
        questionCount = try c.decode(Int.self, forKey: .questionCount)
        publishedAt = try c.decode(String.self, forKey: .publishedAt)
        state = try c.decodeIfPresent(String.self, forKey: .state) ?? "published"
        stateChangedAt = try c.decodeIfPresent(String.self, forKey: .stateChangedAt)
        stateChangedBy = try c.decodeIfPresent(String.self, forKey: .stateChangedBy)
    }
}

/// Questionnaire versions on the server: listed, published from a folder (or stored as a draft),
/// and moved through their states.
extension IntakeClient {
    /// The versions you may see (drafts only for coordinators and admins), newest first.
    public func questionnaireVersions() async throws(ClientError) -> [RemoteQuestionnaire] {
        struct List: Decodable { var questionnaires: [RemoteQuestionnaire] }
        return try await questionnaireCall("GET", "/v1/questionnaires", body: nil, as: List.self).questionnaires
    }

    /// Sends a questionnaire's files; `draft` stores it to try before publishing. Returns the
    /// version and whether the server had it already.
    public func publishQuestionnaire(directory: URL, draft: Bool) async throws(ClientError) -> (RemoteQuestionnaire, existed: Bool) {
        let files: QuestionnaireFiles
        let questionnaire: Questionnaire
        do {
            files = try QuestionnaireFiles(directory: directory)
            questionnaire = try QuestionnaireLoader.load(files)
        } catch {
            throw ClientError.unexpected("the questionnaire at \(directory.path) does not load: \(error)")
        }
        let (texts, lists) = files.texts(usedBy: questionnaire)
        struct Body: Encodable {
            var files: [String: String]
            var lists: [String: String]
            var draft: Bool
        }
        let (status, data) = try await send(
            "POST", "/v1/questionnaires", body: try? JSONEncoder().encode(Body(files: texts, lists: lists, draft: draft)))
        guard status == 200 || status == 201 else { throw ClientError.from(status: status, data: data) }
        guard let version = try? JSONDecoder().decode(RemoteQuestionnaire.self, from: data) else {
            throw ClientError.unexpected("the server's answer about the questionnaire could not be read")
        }
        return (version, status == 200)
    }

    /// Publishes a draft, closes, reopens or retires a version (`published`, `closed`, `retired`).
    public func setQuestionnaireState(id: String, version: String, to state: String) async throws(ClientError) -> RemoteQuestionnaire {
        try await questionnaireCall(
            "PUT", "/v1/questionnaires/\(Self.segment(id))/versions/\(Self.segment(version))/state",
            body: try? JSONEncoder().encode(["state": state]), as: RemoteQuestionnaire.self)
    }

    private func questionnaireCall<T: Decodable>(_ method: String, _ path: String, body: Data?, as type: T.Type) async throws(ClientError)
        -> T
    {
        let (status, data) = try await send(method, path, body: body)
        guard status == 200 else { throw ClientError.from(status: status, data: data) }
        guard let value = try? JSONDecoder().decode(T.self, from: data) else {
            throw ClientError.unexpected("the server's answer about questionnaires could not be read")
        }
        return value
    }
}

/// What the server made of a test record of a draft version.
public enum TrialResult: Sendable, Equatable {
    /// Kept apart; `replaced` when a test record of that id was there already.
    case kept(replaced: Bool, warnings: [String])
    /// Refused, with the server's reason and the validation issues.
    case invalid(message: String, issues: [String])
}

/// A test record as the server lists it.
public struct RemoteTestRecord: Sendable, Decodable, Equatable {
    public var id: String
    public var collector: String
    public var submittedBy: String
    public var receivedAt: String
    public var answerCount: Int
}

/// Trying draft versions with test records.
extension IntakeClient {
    public func tryRecord(_ record: PatientResponse) async throws(ClientError) -> TrialResult {
        struct Answer: Decodable {
            struct Issue: Decodable { var message: String; var questionId: String? }
            var outcome: String
            var warnings: [Issue]
        }
        let reference = record.questionnaire
        let (status, data) = try await send(
            "POST", "/v1/questionnaires/\(Self.segment(reference.id))/versions/\(Self.segment(reference.version))/test-records",
            body: record.jsonData())
        switch status {
        case 200, 201:
            guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
                throw ClientError.unexpected("the server's answer to a test record could not be read")
            }
            return .kept(
                replaced: answer.outcome == "test_replaced",
                warnings: answer.warnings.map { ($0.questionId.map { "\($0): " } ?? "") + $0.message })
        case 422: return .invalid(message: ClientError.message(in: data), issues: ClientError.issues(in: data))
        default: throw ClientError.from(status: status, data: data)
        }
    }

    public func testRecords(_ reference: QuestionnaireReference) async throws(ClientError) -> [RemoteTestRecord] {
        struct Answer: Decodable { var records: [RemoteTestRecord] }
        return try await call(
            "GET", "/v1/questionnaires/\(Self.segment(reference.id))/versions/\(Self.segment(reference.version))/test-records",
            expecting: 200,
            as: Answer.self
        ).records
    }

    public func deleteTestRecords(_ reference: QuestionnaireReference) async throws(ClientError) -> Int {
        struct Answer: Decodable { var deleted: Int }
        return try await call(
            "POST", "/v1/questionnaires/\(Self.segment(reference.id))/versions/\(Self.segment(reference.version))/test-records/discard",
            expecting: 200,
            as: Answer.self
        ).deleted
    }
}
