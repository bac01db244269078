import Foundation
import IntakeCore
import Synchronization

/// Publishes questionnaire versions and parses them back, once each, for validation.
public final class QuestionnaireService: Sendable {
    public let store: any QuestionnaireStore
    /// Versions never change once published, so a parsed one stays valid for the server's life.
    private let parsed = Mutex<[QuestionnaireReference: Questionnaire]>([:])
    /// Each version's state as last read, with when: every record checks it, so it is read at
    /// most once per ``statusLifetime`` (a change made through this service is seen at once;
    /// one made through another server sharing the store, within that time).
    private let statuses = Mutex<[QuestionnaireReference: (status: QuestionnaireStatus?, read: ContinuousClock.Instant)]>([:])
    /// How long a version's state read from the store is trusted.
    public static let statusLifetime = Duration.seconds(1)

    public init(store: any QuestionnaireStore) {
        self.store = store
    }

    /// Every published version, for the list.
    public func published() async throws -> [PublishedQuestionnaire] { try await store.questionnaires() }

    /// One published version as stored (its files).
    public func published(id: String, version: String) async throws -> PublishedQuestionnaire? {
        try await store.questionnaire(id: id, version: version)
    }

    /// The versions `user` may see: drafts only for those who manage questionnaires.
    public func visible(to user: User) async throws -> [PublishedQuestionnaire] {
        let all = try await store.questionnaires()
        return RecordAccessPolicy.seesDraftQuestionnaires(user) ? all : all.filter { $0.status.state != .draft }
    }

    /// The newest published version of questionnaire `id`: what records of a closed or retired
    /// version move to.
    public func current(id: String) async throws -> PublishedQuestionnaire? {
        try await store.questionnaires().first { $0.id == id && $0.status.state == .published }
    }

    /// Why the version `record` is on refuses it (a draft, closed to new records, retired), or
    /// nil when it takes it (``QuestionnaireLifecycle/refusal(of:status:isEdit:current:)``).
    public func refusal(of record: PatientResponse, isEdit: Bool) async throws -> (code: String, message: String)? {
        let reference = record.questionnaire
        guard let status = try await status(of: reference), status.state != .published,
            QuestionnaireLifecycle.refusal(of: record, status: status, isEdit: isEdit, current: nil) != nil
        else { return nil }
        // Refused: the message names the version to move to.
        return QuestionnaireLifecycle.refusal(
            of: record, status: status, isEdit: isEdit, current: try await current(id: reference.id)?.version)
    }

    /// The state of version `reference`, read from the store at most once per ``statusLifetime``.
    func status(of reference: QuestionnaireReference) async throws -> QuestionnaireStatus? {
        let now = ContinuousClock.now
        if let cached = statuses.withLock({ $0[reference] }), now - cached.read < Self.statusLifetime { return cached.status }
        let status = try await store.questionnaireStatus(id: reference.id, version: reference.version)
        statuses.withLock { $0[reference] = (status, now) }
        return status
    }

    /// Moves version `version` of `id` to `state`, as ``QuestionnaireLifecycle/allows(_:to:)``
    /// lets it; returns the version as it is now and whether it changed.
    public func change(id: String, version: String, to state: QuestionnaireState, by user: String, at time: Date = Date()) async throws
        -> (PublishedQuestionnaire, changed: Bool)
    {
        // Twice at most: someone else may change it between the read and the write.
        for _ in 0..<2 {
            guard let current = try await store.questionnaire(id: id, version: version) else {
                throw ServiceError(.notFound, "questionnaire \(id) version \(version)")
            }
            if current.status.state == state { return (current, false) }
            guard QuestionnaireLifecycle.allows(current.status.state, to: state) else {
                throw ServiceError(
                    .unprocessable(code: "invalid_transition"),
                    "questionnaire \(id) version \(version) is \(current.status.state.rawValue) and cannot become \(state.rawValue); "
                        + "a draft is published, a published version closes or retires, a closed one reopens or retires, a retired one can be closed again"
                )
            }
            if try await store.changeQuestionnaireState(id: id, version: version, from: current.status.state, to: state, by: user, at: time)
            {
                statuses.withLock { _ = $0.removeValue(forKey: QuestionnaireReference(id: id, version: version)) }
                // Tried and published: its test records have served.
                if current.status.state == .draft {
                    _ = try await store.deleteTestRecords(questionnaireId: id, version: version, teamId: nil)
                }
                var changed = current
                changed.status = QuestionnaireStatus(state: state, changedAt: time, changedBy: user)
                return (changed, true)
            }
        }
        throw ServiceError(
            .unprocessable(code: "state_changed"), "questionnaire \(id) version \(version) changed meanwhile; look at it and try again")
    }

    /// Parses the files with `IntakeCore` and stores the version (as a draft to try first, when
    /// `draft`); returns it and whether it is new.
    public func publish(files: [String: String], lists: [String: String], draft: Bool = false, by user: String? = nil) async throws
        -> (PublishedQuestionnaire, Bool)
    {
        let sources = QuestionnaireFiles(directory: "questionnaire", texts: files, lists: lists)
        let questionnaire: Questionnaire
        do {
            questionnaire = try QuestionnaireLoader.load(sources)
        } catch {
            throw ServiceError(
                .invalidQuestionnaire, "the questionnaire has \(error.diagnostics.count) problem(s); fix them and publish again",
                problems: error.diagnostics.map(\.description))
        }
        let now = Date()
        let published = PublishedQuestionnaire(
            id: questionnaire.id, version: questionnaire.version, title: questionnaire.title.base,
            questionCount: questionnaire.questionCount, files: files, lists: lists, publishedAt: now,
            status: QuestionnaireStatus(state: draft ? .draft : .published, changedAt: now, changedBy: user))
        let isNew = try await store.publish(published)
        parsed.withLock { $0[questionnaire.reference] = questionnaire }
        statuses.withLock { _ = $0.removeValue(forKey: questionnaire.reference) }
        return (isNew ? published : try await store.questionnaire(id: published.id, version: published.version) ?? published, isNew)
    }

    /// Publishes a questionnaire folder from disk, with the shared lists it uses.
    public func publish(directory: URL, draft: Bool = false) async throws -> (PublishedQuestionnaire, Bool) {
        let files = try QuestionnaireFiles(directory: directory)
        let (texts, lists) = files.texts(usedBy: try QuestionnaireLoader.load(files))
        return try await publish(files: texts, lists: lists, draft: draft)
    }

    /// The parsed questionnaire a record refers to, or nil when that version is not published.
    public func questionnaire(_ reference: QuestionnaireReference) async throws -> Questionnaire? {
        if let cached = parsed.withLock({ $0[reference] }) { return cached }
        guard let published = try await store.questionnaire(id: reference.id, version: reference.version) else { return nil }
        let questionnaire = try QuestionnaireLoader.load(
            QuestionnaireFiles(directory: published.id, texts: published.files, lists: published.lists))
        parsed.withLock { $0[reference] = questionnaire }
        return questionnaire
    }
}
