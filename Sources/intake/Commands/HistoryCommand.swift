import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeForm

/// `intake history RECORD-ID [--as-of TIME]`: who saved each revision, when and from which device,
/// or the record's answers as they were at a time.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "A record's revisions (who, when, which device), or the record as it was at a time.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Argument(help: "The record's id, or its first characters.") var id: String
    @Option(help: ArgumentHelp("Show the record as it was then (2026-11-24T08:00:00Z).", valueName: "time")) var asOf: String?

    func run() async throws {
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        let record = try await RecordReference.resolve(id, with: client)
        if let asOf {
            guard let time = Timestamp.date(from: asOf) else { throw ValidationError("--as-of is a time such as 2026-11-24T08:00:00Z.") }
            let (stored, revision) = try await client.record(id: record, asOf: time)
            print(
                "Record \(id.prefix(8)) as of \(Timestamp.string(from: time)): revision \(revision), \(stored.status.rawValue), \(stored.allAnswers.count) answer(s)."
            )
            // Labelled as the form shows them when this machine has the record's version.
            let store = try? storeOptions.open()
            let questionnaire = store.flatMap { QuestionnaireOptions.kept(stored.questionnaire, in: $0) }
            let display = AnswerDisplay(language: nil)
            for (position, answer) in stored.allAnswers.sorted(by: { $0.0 < $1.0 }) {
                guard let question = questionnaire?.question(at: position) else {
                    print("  \(position): \(AnswerDisplay.plain(answer))")
                    continue
                }
                print("  \(position) \(question.id ?? ""): \(display.text(of: answer, for: question.type))")
            }
            return
        }
        for revision in try await client.revisions(of: record) {
            print("revision \(revision.revision)\t\(revision.savedAt)\t\(revision.savedBy)\t\(revision.deviceId ?? "(device not said)")")
        }
    }
}
