import Foundation
import IntakeCore

/// A questionnaire version as published: its source files, from which `IntakeCore` parses it.
public struct PublishedQuestionnaire: Sendable, Hashable, Codable {
    public var id: String
    public var version: String
    public var title: String
    public var questionCount: Int
    /// Section, translation and manifest files by name.
    public var files: [String: String]
    /// The shared choice-list files it uses, by name.
    public var lists: [String: String]
    public var publishedAt: Date
    /// Draft, published, closed or retired (``QuestionnaireLifecycle``), since when and by whom.
    public var status: QuestionnaireStatus

    public init(
        id: String, version: String, title: String, questionCount: Int, files: [String: String], lists: [String: String],
        publishedAt: Date, status: QuestionnaireStatus = QuestionnaireStatus(state: .published)
    ) {
        self.id = id
        self.version = version
        self.title = title
        self.questionCount = questionCount
        self.files = files
        self.lists = lists
        self.publishedAt = publishedAt
        self.status = status
    }
}

/// A record sent to try a draft questionnaire version: checked like any record, kept apart.
public struct TestRecord: Sendable, Hashable {
    public var id: UUID
    public var questionnaireId: String
    public var version: String
    public var teamId: Int64
    public var collector: String
    public var submittedBy: String
    public var receivedAt: Date
    public var answerCount: Int
    /// The record's canonical JSON (``RecordCodec``); empty in lists.
    public var payload: [UInt8]

    public init(
        id: UUID, questionnaireId: String, version: String, teamId: Int64, collector: String, submittedBy: String, receivedAt: Date,
        answerCount: Int, payload: [UInt8]
    ) {
        self.id = id
        self.questionnaireId = questionnaireId
        self.version = version
        self.teamId = teamId
        self.collector = collector
        self.submittedBy = submittedBy
        self.receivedAt = receivedAt
        self.answerCount = answerCount
        self.payload = payload
    }
}
