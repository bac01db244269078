import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeForm
import IntakeStore

struct FillCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fill",
        abstract: "Fill in a questionnaire in the terminal, typed or piped; every answer is saved as you go.",
        discussion: """
            Answer each question and press Enter. Commands start with ':' (:back, :next, :go 3, :review, \
            :finish, :quit, :help). Ctrl-C or a closed terminal loses nothing: resume with 'intake fill --resume'.
            When the record is finished it is sent to the server (--server, INTAKE_SERVER or 'intake login'); \
            when that cannot succeed it is kept in the encrypted queue for 'intake flush'.
            Exit status: 0 when the record is sent or queued, or you quit with :quit; 3 when input ended first \
            (the draft is kept); 130 after Ctrl-C (the draft is kept); 1 when the server refused the record or on errors.
            """)

    @OptionGroup var questionnaireOptions: QuestionnaireOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions

    @Option(help: "Fill in a translation, e.g. 'ar'.")
    var language: String?

    @Flag(help: "Resume a draft: the one given by id, or the only one there is.")
    var resume = false

    @Argument(
        help: ArgumentHelp("With --resume: the draft's id or its first characters (see 'intake drafts list').", valueName: "draft-id"))
    var draftId: String?

    @Option(help: "Who is collecting (default: INTAKE_COLLECTOR, else your user name).")
    var collector: String?

    func validate() throws {
        if draftId != nil, !resume {
            throw ValidationError("Please add --resume to continue a draft: intake fill --resume \(draftId!)")
        }
    }

    func run() async throws {
        let questionnaire = try questionnaireOptions.load()
        if let language, !questionnaire.languages.contains(language) {
            throw ValidationError(
                "The questionnaire has no '\(language)' translation; choose one of \(questionnaire.languages.joined(separator: ", ")).")
        }
        let store = try storeOptions.open()
        let client = try clientOptions.client(dataDirectory: storeOptions.directory)
        Interruption.install()
        let io = StandardIO()
        guard var draft = try chooseDraft(store: store, questionnaire: questionnaire, io: io) else { return }
        if let language {
            draft.response.language = language == questionnaire.baseLanguage ? nil : language
        }
        try await FormRun(store: store, client: client, io: io).run(draft, questionnaire: questionnaire)
    }

    /// The draft named by --resume, one picked from a list on a terminal, or a new record.
    private func chooseDraft(store: LocalStore, questionnaire: Questionnaire, io: StandardIO) throws -> Draft? {
        if let draftId {
            return try store.draft(idPrefix: draftId)
        }
        // Without a terminal to pick on, or with no drafts, a new record: the store stays locked.
        if try !resume && (isatty(STDIN_FILENO) != 1 || store.draftCount(questionnaireId: questionnaire.id) == 0) {
            return try newDraft(store: store, questionnaire: questionnaire)
        }
        let drafts = try store.summaries().filter { $0.questionnaire.id == questionnaire.id }
        if resume {
            if drafts.count == 1, let only = try store.draft(id: drafts[0].id) { return only }
            if drafts.isEmpty { throw ValidationError("There is no draft of \(questionnaire.id) to resume; start one with 'intake fill'.") }
            guard isatty(STDIN_FILENO) == 1 else {
                throw ValidationError(
                    "There are \(drafts.count) drafts; name one: intake fill --resume <id> (ids from 'intake drafts list').")
            }
        }
        guard !drafts.isEmpty, isatty(STDIN_FILENO) == 1 else { return try newDraft(store: store, questionnaire: questionnaire) }
        io.write("Unfinished drafts:")
        DraftTable.lines(drafts).forEach(io.write)
        while true {
            guard let line = io.readLine(prompt: "Resume which (number), or press Enter for a new record? ") else { return nil }
            if line.isEmpty { return try newDraft(store: store, questionnaire: questionnaire) }
            if let number = Int(line), drafts.indices.contains(number - 1), let draft = try store.draft(id: drafts[number - 1].id) {
                return draft
            }
            io.write("Please type a number from 1 to \(drafts.count), or press Enter.")
        }
    }

    private func newDraft(store: LocalStore, questionnaire: Questionnaire) throws -> Draft {
        let environment = ProcessInfo.processInfo.environment
        let who = collector ?? environment["INTAKE_COLLECTOR"] ?? environment["USER"] ?? "unknown"
        let response = PatientResponse(
            questionnaire: questionnaire.reference, collector: who, deviceId: try store.deviceId())
        return Draft(response: response)
    }
}
