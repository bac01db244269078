import Foundation
import IntakeClient
import IntakeCore
import IntakeStore

/// `intake questionnaire pull` (and `intake login`): brings the versions the server publishes
/// (and those closed, which drafts begun on them may still finish) to this machine, each checked
/// to be the version it claims, and notes which kept versions were retired since.
public struct QuestionnairePull {
    public var store: LocalStore
    public var client: IntakeClient

    public init(store: LocalStore, client: IntakeClient) {
        self.store = store
        self.client = client
    }

    public struct Report: Sendable {
        /// Versions new on this machine.
        public var pulled: [PulledQuestionnaire] = []
        /// Versions kept whose state changed on the server (`closed`, `retired`, `published` again).
        public var changed: [(reference: QuestionnaireReference, state: String)] = []
        /// Drafts on a version that is no longer the newest published one of their questionnaire.
        public var draftsBehind: [(reference: QuestionnaireReference, state: String, count: Int, current: String?)] = []
        public var unchanged = 0
    }

    public func run(at time: Date = Date()) async throws -> Report {
        var report = Report()
        let versions = try await client.questionnaireVersions()
        let server = client.baseURL.absoluteString
        for version in versions where version.state != "draft" {
            let reference = QuestionnaireReference(id: version.id, version: version.version)
            if let kept = try store.pulled(reference) {
                if kept.state == version.state {
                    report.unchanged += 1
                } else {
                    try store.setPulledState(id: version.id, version: version.version, state: version.state)
                    report.changed.append((reference, version.state))
                }
                continue
            }
            // Retired versions are not fetched: nothing new is filled on them.
            guard version.state == "published" || version.state == "closed" else { continue }
            let (files, lists) = try await client.questionnaireFiles(reference)
            let pulled = PulledQuestionnaire(
                id: version.id, version: version.version, title: version.title, state: version.state, files: files, lists: lists,
                publishedAt: version.publishedAt, pulledAt: time, server: server)
            do {
                _ = try pulled.load()
            } catch {
                throw FieldworkError(
                    "the server's copy of \(reference) is not that version (\(error.diagnostics.first?.message ?? "it does not load")); nothing of it was kept"
                )
            }
            try store.savePulled(pulled)
            report.pulled.append(pulled)
        }
        // Versions kept from this server that it no longer lists: withdrawn, never offered again.
        let listed = Set(versions.map { QuestionnaireReference(id: $0.id, version: $0.version) })
        for kept in try store.pulledQuestionnaires()
        where kept.server == server && kept.state != "withdrawn" && !listed.contains(kept.reference) {
            try store.setPulledState(id: kept.id, version: kept.version, state: "withdrawn")
            report.changed.append((kept.reference, "withdrawn"))
        }
        // Drafts on a version that is not the current one of their questionnaire.
        let byVersion = Dictionary(grouping: try store.summaries(), by: \.questionnaire)
        for (reference, drafts) in byVersion.sorted(by: { $0.key.description < $1.key.description }) {
            let current = try store.currentPulled(id: reference.id)?.version
            guard let current, current != reference.version else { continue }
            let state = versions.first { $0.id == reference.id && $0.version == reference.version }?.state ?? "unknown to the server"
            report.draftsBehind.append((reference, state, drafts.count, current))
        }
        return report
    }

    /// What to tell the person.
    public static func lines(_ report: Report) -> [String] {
        var lines = report.pulled.map { "Pulled \($0.id) version \($0.version) (\($0.state)): \($0.title)." }
        lines += report.changed.map { "\($0.reference.id) version \($0.reference.version) is now \($0.state) on the server." }
        if report.pulled.isEmpty, report.changed.isEmpty {
            lines.append("Questionnaires up to date (\(report.unchanged) version\(report.unchanged == 1 ? "" : "s") kept on this machine).")
        }
        for behind in report.draftsBehind {
            // A published or closed version still takes them; a retired one does not.
            let advice =
                ["published", "closed"].contains(behind.state)
                ? "Finish them with 'intake fill --resume'."
                : "The server takes no records on it now: move them with 'intake drafts migrate --all -q \(behind.reference.id)'."
            lines.append(
                "\(behind.count) draft\(behind.count == 1 ? "" : "s") of \(behind.reference.id) version \(behind.reference.version) (\(behind.state)); "
                    + "new records use version \(behind.current ?? "?"). \(advice)")
        }
        return lines
    }
}
