import Foundation
import GRDB
import IntakeCore

/// A questionnaire version pulled from the server and kept on this machine, so that forms are
/// filled on what the server publishes, offline too.
public struct PulledQuestionnaire: Sendable, Equatable {
    public var id: String
    public var version: String
    public var title: String
    /// The server's state for it when last pulled: `published`, `closed` or `retired`.
    public var state: String
    /// Section, translation and manifest files, and the shared lists it uses, by name.
    public var files: [String: String]
    public var lists: [String: String]
    public var publishedAt: String
    public var pulledAt: Date
    /// The server it came from.
    public var server: String

    public init(
        id: String, version: String, title: String, state: String, files: [String: String], lists: [String: String], publishedAt: String,
        pulledAt: Date, server: String
    ) {
        self.id = id
        self.version = version
        self.title = title
        self.state = state
        self.files = files
        self.lists = lists
        self.publishedAt = publishedAt
        self.pulledAt = pulledAt
        self.server = server
    }

    public var reference: QuestionnaireReference { QuestionnaireReference(id: id, version: version) }

    /// The questionnaire parsed from its files, checked to be the version it claims to be (its
    /// version is the hash of its files): a copy altered on the way or on disk is refused.
    public func load() throws(QuestionnaireLoadError) -> Questionnaire {
        let questionnaire = try QuestionnaireLoader.load(QuestionnaireFiles(directory: id, texts: files, lists: lists))
        guard questionnaire.version == version, questionnaire.id == id else {
            throw QuestionnaireLoadError([
                QuestionnaireDiagnostic(
                    path: id,
                    message:
                        "the copy of \(id) version \(version) kept on this machine holds \(questionnaire.id) version \(questionnaire.version)",
                    hint: "pull it again: intake questionnaire pull")
            ])
        }
        return questionnaire
    }
}

extension LocalStore {
    /// Keeps a pulled version (replacing an earlier pull of it).
    public func savePulled(_ q: PulledQuestionnaire) throws(LocalStoreError) {
        try write("keep a pulled questionnaire") { db in
            try db.execute(
                sql: """
                    INSERT INTO pulledQuestionnaire (id, version, title, state, files, lists, publishedAt, pulledAt, server)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id, version) DO UPDATE SET title = excluded.title, state = excluded.state, files = excluded.files,
                        lists = excluded.lists, publishedAt = excluded.publishedAt, pulledAt = excluded.pulledAt, server = excluded.server
                    """,
                arguments: [
                    q.id, q.version, q.title, q.state, try Self.json(q.files), try Self.json(q.lists), q.publishedAt,
                    q.pulledAt.timeIntervalSince1970, q.server,
                ])
        }
    }

    /// Records the server's state of a version already kept (a version retired since it was pulled).
    public func setPulledState(id: String, version: String, state: String) throws(LocalStoreError) {
        try write("update a pulled questionnaire") { db in
            try db.execute(sql: "UPDATE pulledQuestionnaire SET state = ? WHERE id = ? AND version = ?", arguments: [state, id, version])
        }
    }

    /// Every version kept, newest published first.
    public func pulledQuestionnaires() throws(LocalStoreError) -> [PulledQuestionnaire] {
        try read("read the pulled questionnaires") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM pulledQuestionnaire ORDER BY publishedAt DESC, id, version").map(Self.pulled)
        }
    }

    /// The newest version of `id` to fill new records on: the newest pulled one the server
    /// publishes; nil when none was pulled.
    public func currentPulled(id: String) throws(LocalStoreError) -> PulledQuestionnaire? {
        try pulledQuestionnaires().first { $0.id == id && $0.state == "published" }
    }

    public func pulled(_ reference: QuestionnaireReference) throws(LocalStoreError) -> PulledQuestionnaire? {
        try read("read a pulled questionnaire") { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM pulledQuestionnaire WHERE id = ? AND version = ?", arguments: [reference.id, reference.version]
            )
            .map(Self.pulled)
        }
    }

    private static func pulled(_ row: Row) throws -> PulledQuestionnaire {
        PulledQuestionnaire(
            id: row["id"], version: row["version"], title: row["title"], state: row["state"],
            files: try JSONDecoder().decode([String: String].self, from: Data((row["files"] as String).utf8)),
            lists: try JSONDecoder().decode([String: String].self, from: Data((row["lists"] as String).utf8)),
            publishedAt: row["publishedAt"], pulledAt: Date(timeIntervalSince1970: row["pulledAt"]), server: row["server"])
    }

    private static func json(_ value: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
