import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeFieldwork
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

    @Option(help: "Fill in a translation, e.g. 'ar' (default: INTAKE_LANGUAGE or the locale's language, when the questionnaire has it).")
    var language: String?

    @Flag(help: "Resume a draft: the one given by id, or the only one there is.")
    var resume = false

    @Argument(
        help: ArgumentHelp("With --resume: the draft's id or its first characters (see 'intake drafts list').", valueName: "draft-id"))
    var draftId: String?

    @Option(
        help:
            "Who is collecting: a user name of the server's team (default: the signed-in account, else INTAKE_COLLECTOR, else your login name)."
    )
    var collector: String?

    @Option(
        help:
            "A registry patient's id (or its first characters): the patient section comes filled in and the record points to them (needs the server)."
    )
    var patient: String?

    @Option(
        name: .customLong("case"),
        help: ArgumentHelp(
            "A case on this machine (its id or first characters, or the patient's name; see 'intake cases list'): fill its follow-up, offline too.",
            valueName: "case"))
    var caseReference: String?

    @Flag(
        help: """
            When the record cannot be sent now, keep trying in the background (a detached 'intake flush --watch', \
            one per machine, logging to flush-watch.log in the data directory) until the queue is empty.
            """)
    var sendInBackground = false

    func validate() throws {
        if patient != nil, resume {
            throw ValidationError("--patient starts a new record; a draft keeps the patient it has.")
        }
        if caseReference != nil, resume || patient != nil {
            throw ValidationError("--case starts a new follow-up about the case's patient; give it without --resume and --patient.")
        }
        // A mistyped option (--langauge ar) is the parser's to name; "ar" is not a draft then.
        if draftId != nil, !resume, !UnknownOption.typed(for: Self.self) {
            throw ValidationError("Please add --resume to continue a draft: intake fill --resume \(draftId!)")
        }
    }

    func run() async throws {
        // The store's questionnaires are readable before it is unlocked.
        let store = try storeOptions.open()
        // A case is sealed: the store is unlocked first, and the case says which questionnaire follows it.
        var followed: FollowedCase?
        if let caseReference {
            try store.unlock()
            followed = try CaseCopy(store: store).find(caseReference)
        }
        let questionnaire =
            try followed.map { try questionnaireOptions.loadFollowing(list: $0.list, store: store) }
            ?? questionnaireOptions.loadForFilling(store: store)
        // The person's language when the questionnaire speaks it: the whole screen follows,
        // the passphrase prompt included.
        let preferred = Language.say.code.flatMap { questionnaire.languages.contains($0) ? $0 : nil }
        let chosen = language.flatMap { questionnaire.languages.contains($0) ? $0 : nil } ?? preferred
        Language.use(FormLanguage(chosen ?? questionnaire.baseLanguage))
        try store.unlock()
        // The queue as it stands, for the coordinator's list of devices.
        let client = try clientOptions.client(dataDirectory: storeOptions.directory)?.reporting(queueSize: try store.pendingCount())
        Interruption.install()
        let environment = ProcessInfo.processInfo.environment
        // The server checks the collector is a member of the team: the signed-in account first.
        // Before anyone signs in here, a record has no collector yet: it is sent as the account
        // that signs in on this machine (intake flush says so), never as a guessed login name.
        var who = collector
        if who == nil, let client {
            let asking = Language.say(.askingServer(host: client.baseURL.host ?? "the server", seconds: 3))
            who = await sayingWhileWaiting(asking) { await clientOptions.signedInUsername(dataDirectory: storeOptions.directory) }
        }
        var session = FillSession(
            questionnaire: questionnaire, store: store, client: client, io: StandardIO(), interactive: isatty(STDIN_FILENO) == 1,
            collector: who ?? environment["INTAKE_COLLECTOR"].flatMap { $0.isEmpty ? nil : $0 } ?? PatientResponse.collectorToCome)
        if let patient {
            guard let client else {
                throw ValidationError(
                    "--patient reads the registry on the server; sign in with 'intake login' or give --server and --token.")
            }
            session.patient = try await client.patient(try await PatientReference.resolve(patient, with: client))
            // A new record, whatever drafts there are.
            session.interactive = false
        }
        if let followed {
            session.followedCase = followed
            session.interactive = false
        }
        session.preferredLanguage = preferred
        session.collectorGiven = collector != nil
        session.versions = { QuestionnaireOptions.kept($0, in: store) }
        try await FormEnding.run {
            let ending = try await session.run(resume: resume, draftId: draftId, language: language)
            if sendInBackground, client != nil, (try? store.pendingCount()) ?? 0 > 0 {
                // The watcher has no terminal to ask a passphrase on: it starts only when the store
                // opens without one (a kiosk store, INTAKE_PASSPHRASE, the session's key agent).
                let unattended = try? LocalStore(
                    directory: storeOptions.directory,
                    configuration: .standard(
                        environment: ProcessInfo.processInfo.environment, ask: nil, wording: Language.passphraseWording))
                let started =
                    (try? unattended?.unlock()) != nil
                    && BackgroundFlush.start(
                        dataDirectory: storeOptions.directory, server: clientOptions.server, token: clientOptions.token,
                        transport: clientOptions.transportArguments)
                print(Language.say(started ? .sendingInBackground : .backgroundNotStarted))
            }
            return ending
        }
    }
}
