import Foundation
import IntakeCore
import Synchronization

/// Publishes questionnaire versions and parses them back, once each, for validation.
public final class QuestionnaireService: Sendable {
    public let store: any QuestionnaireStore
    /// Versions never change once published, so a parsed one stays valid for the server's life.
    private let parsed = Mutex<[QuestionnaireReference: Questionnaire]>([:])

    public init(store: any QuestionnaireStore) {
        self.store = store
    }

    /// Every published version, for the list.
    public func published() async throws -> [PublishedQuestionnaire] { try await store.questionnaires() }

    /// One published version as stored (its files).
    public func published(id: String, version: String) async throws -> PublishedQuestionnaire? {
        try await store.questionnaire(id: id, version: version)
    }

    /// Parses the files with `IntakeCore` and stores the version; returns it and whether it is new.
    public func publish(files: [String: String], lists: [String: String]) async throws -> (PublishedQuestionnaire, Bool) {
        func file(_ name: String, _ text: String) -> QuestionnaireFiles.File {
            QuestionnaireFiles.File(path: name, bytes: Array(text.utf8))
        }
        let sources = QuestionnaireFiles(
            directory: "questionnaire", files: files.reduce(into: [:]) { $0[$1.key] = file($1.key, $1.value) },
            lists: lists.reduce(into: [:]) { $0[$1.key] = file($1.key, $1.value) })
        let questionnaire: Questionnaire
        do {
            questionnaire = try QuestionnaireLoader.load(sources)
        } catch {
            throw ServiceError(
                .invalidQuestionnaire, "the questionnaire has \(error.diagnostics.count) problem(s); fix them and publish again",
                problems: error.diagnostics.map(\.description))
        }
        let published = PublishedQuestionnaire(
            id: questionnaire.id, version: questionnaire.version, title: questionnaire.title.base,
            questionCount: questionnaire.questionCount, files: files, lists: lists, publishedAt: Date())
        let isNew = try await store.publish(published)
        parsed.withLock { $0[questionnaire.reference] = questionnaire }
        return (isNew ? published : try await store.questionnaire(id: published.id, version: published.version) ?? published, isNew)
    }

    /// Publishes a questionnaire folder from disk, with the shared lists it uses.
    public func publish(directory: URL) async throws -> (PublishedQuestionnaire, Bool) {
        let files = try QuestionnaireFiles(directory: directory)
        let questionnaire = try QuestionnaireLoader.load(files)
        var texts: [String: String] = [:]
        for (name, file) in files.files { texts[name] = String(decoding: file.bytes, as: UTF8.self) }
        var lists: [String: String] = [:]
        for (name, file) in files.lists where Self.uses(questionnaire, list: name) {
            lists[name] = String(decoding: file.bytes, as: UTF8.self)
        }
        return try await publish(files: texts, lists: lists)
    }

    private static func uses(_ questionnaire: Questionnaire, list fileName: String) -> Bool {
        let listName = String(fileName.prefix { $0 != "." })
        return questionnaire.allQuestions.contains { question in
            if question.type.choices?.listName == listName { return true }
            if case .compound(let fields) = question.type { return fields.contains { $0.type.choices?.listName == listName } }
            return false
        }
    }

    /// The parsed questionnaire a record refers to, or nil when that version is not published.
    public func questionnaire(_ reference: QuestionnaireReference) async throws -> Questionnaire? {
        if let cached = parsed.withLock({ $0[reference] }) { return cached }
        guard let published = try await store.questionnaire(id: reference.id, version: reference.version) else { return nil }
        let files = QuestionnaireFiles(
            directory: published.id,
            files: published.files.reduce(into: [:]) { $0[$1.key] = .init(path: $1.key, bytes: Array($1.value.utf8)) },
            lists: published.lists.reduce(into: [:]) { $0[$1.key] = .init(path: $1.key, bytes: Array($1.value.utf8)) })
        let questionnaire = try QuestionnaireLoader.load(files)
        parsed.withLock { $0[reference] = questionnaire }
        return questionnaire
    }
}
