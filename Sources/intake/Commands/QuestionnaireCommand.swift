import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeFieldwork
import IntakeForm
import IntakeStore

struct QuestionnaireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "questionnaire",
        abstract: "Check, show and list questionnaires; publish them on the server and move versions through their states.",
        subcommands: [
            Check.self, Show.self, List.self, Import.self, Export.self, Pull.self, Versions.self, Publish.self, State.self, Try.self,
            TestRecords.self,
        ]
    )

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull",
            abstract: "Bring the questionnaires the server publishes to this machine; 'intake fill' then uses them, offline too.",
            discussion: "Each version is checked to be the one it claims (its version is the hash of its files). 'intake login' pulls too.")
        @OptionGroup var clientOptions: ClientOptions
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let report = try await QuestionnairePull(store: try storeOptions.open(), client: client).run()
            QuestionnairePull.lines(report).forEach { print($0) }
        }
    }

    struct Versions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "versions",
            abstract: "List the server's questionnaire versions with their state (drafts for coordinators and admins).")
        @OptionGroup var clientOptions: ClientOptions
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let versions = try await client.questionnaireVersions()
            guard !versions.isEmpty else {
                print("No questionnaire is published on \(client.baseURL.absoluteString) yet: 'intake questionnaire publish'.")
                return
            }
            print(TextTable.row(["QUESTIONNAIRE", "VERSION", "STATE", "SINCE", "TITLE"], widths: [18, 17, 10, 11]))
            for v in versions {
                print(
                    TextTable.row(
                        [v.id, v.version, v.state, String((v.stateChangedAt ?? v.publishedAt).prefix(10)), v.title],
                        widths: [18, 17, 10, 11]))
            }
        }
    }

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish",
            abstract: "Publish a questionnaire folder on the server (coordinators, admins), or with --draft store it to try first.")
        @OptionGroup var clientOptions: ClientOptions
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var publishing: PublishingOptions

        func run() async throws {
            let folder = try publishing.folder()
            _ = try QuestionnaireOptions.load(folder.path)
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let (version, existed) = try await client.publishQuestionnaire(directory: folder, draft: publishing.draft)
            print(
                existed
                    ? "Already on the server: \(version.id) version \(version.version), \(version.state)."
                    : "\(version.state == "draft" ? "Stored as a draft" : "Published"): \(version.id) version \(version.version) (\(version.questionCount) questions)."
            )
        }
    }

    struct State: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "state",
            abstract: "Publish a draft, close a version to new records, reopen it, or retire it (coordinators, admins).",
            discussion: """
                published: records on it are taken. closed: no new records, but those filled on it before it closed \
                are still taken, and edits. retired: records on it are refused, naming the newest published version \
                to move them to. Nothing goes back to draft.
                """)
        @OptionGroup var clientOptions: ClientOptions
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The questionnaire's id.") var id: String
        @Argument(help: "The version (see 'intake questionnaire versions').") var version: String
        @Argument(help: "published, closed or retired.") var state: String

        func validate() throws {
            guard ["published", "closed", "retired"].contains(state) else {
                throw ValidationError("The state is published, closed or retired, not '\(state.prefix(40))'.")
            }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let changed = try await client.setQuestionnaireState(id: id, version: version, to: state)
            print("\(changed.id) version \(changed.version) is \(changed.state)\(changed.stateChangedBy.map { " (by \($0))" } ?? "").")
        }
    }

    struct Try: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "try",
            abstract:
                "Try a draft version before publishing it: fill it in the terminal (or send sample records); the server checks each as a record and keeps it apart as a test record.",
            discussion: """
                Test records are in no export, change feed or lookup; 'intake questionnaire test-records' lists them, and \
                publishing the draft discards them. Coordinators and admins of a team.
                """)
        @OptionGroup var clientOptions: ClientOptions
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The questionnaire's id.") var id: String
        @Argument(help: "The draft version (see 'intake questionnaire versions').") var version: String
        @Option(help: "Send this many sample records (random answers the questionnaire allows) instead of filling one.") var sample: Int?

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let reference = QuestionnaireReference(id: id, version: version)
            let (files, lists) = try await client.questionnaireFiles(reference)
            let questionnaire = try QuestionnaireLoader.load(QuestionnaireFiles(directory: id, texts: files, lists: lists))
            guard questionnaire.reference == reference else {
                throw ValidationError("The server's copy of \(reference) holds \(questionnaire.reference); nothing was sent.")
            }
            let me = try await client.me()
            var records: [PatientResponse] = []
            if let sample {
                guard (1...1000).contains(sample) else { throw ValidationError("Please send from 1 to 1000 sample records.") }
                var generator = SampleGenerator(questionnaire: questionnaire, seed: UInt64.random(in: 1...UInt64.max), collector: me)
                records = (0..<sample).map { _ in generator.next() }
            } else {
                let draft = Draft(response: PatientResponse(questionnaire: reference, collector: me, deviceId: "trial"))
                // Nothing of a trial is kept on this machine: the server keeps the test record.
                let session = try FormSession(
                    questionnaire: questionnaire, draft: draft, io: StandardIO(), discard: { _ in }, save: { _ in })
                guard case .completed(let record) = try session.run() else {
                    print("Not finished: nothing was sent.")
                    return
                }
                records = [record]
            }
            var refused = 0
            for record in records {
                switch try await client.tryRecord(record) {
                case .kept(let replaced, let warnings):
                    print(
                        "Test record \(record.id.uuidString.lowercased().prefix(8)) \(replaced ? "replaced" : "kept") on the server, apart from the team's records."
                    )
                    warnings.forEach { print("  warning: \($0)") }
                case .invalid(let message, let issues):
                    refused += 1
                    print("Test record \(record.id.uuidString.lowercased().prefix(8)) refused: \(message)")
                    issues.forEach { print("  - \($0)") }
                }
            }
            if records.count > 1 { print("\(records.count - refused) of \(records.count) test records kept.") }
            if refused > 0 { throw ExitCode.failure }
        }
    }

    struct TestRecords: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test-records", abstract: "List (or discard, --discard) your team's test records of a draft version.")
        @OptionGroup var clientOptions: ClientOptions
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The questionnaire's id.") var id: String
        @Argument(help: "The version.") var version: String
        @Flag(help: "Delete them.") var discard = false

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let reference = QuestionnaireReference(id: id, version: version)
            if discard {
                let count = try await client.deleteTestRecords(reference)
                print("Discarded \(count) test record\(count == 1 ? "" : "s") of \(id) version \(version).")
                return
            }
            let records = try await client.testRecords(reference)
            guard !records.isEmpty else {
                print("No test records of \(id) version \(version). Try it with 'intake questionnaire try \(id) \(version)'.")
                return
            }
            print(TextTable.row("ID", "COLLECTOR", "SENT BY", "RECEIVED", "ANSWERS", widths: [9, 16, 16, 17]))
            for record in records {
                print(
                    TextTable.row(
                        String(record.id.prefix(8)), record.collector, record.submittedBy,
                        String(record.receivedAt.prefix(16)).replacingOccurrences(of: "T", with: " "), "\(record.answerCount)",
                        widths: [9, 16, 16, 17]))
            }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check questionnaire folders and report every problem with its file, line and column.")

        @Argument(help: ArgumentHelp("Questionnaire folders or ids.", valueName: "folder"))
        var folders: [String] = [QuestionnaireCatalog.defaultId]

        /// How many untranslated texts a folder's note lists.
        static let untranslatedShown = 30

        func run() throws {
            var failed = false
            for folder in folders {
                do {
                    let url = try QuestionnaireCatalog.commandLine.folder(for: folder)
                    let q = try QuestionnaireLoader.load(directory: url)
                    print(
                        "ok: \(url.path): \(q.id) version \(q.version), \(q.sections.count) sections, \(q.questionCount) questions, languages \(q.languages.joined(separator: ", "))"
                    )
                    if let cases = q.cases.summary { print("  cases: \(cases)") }
                    // Not a problem (the questionnaire loads), but rarely meant: said, not refused.
                    let untranslated = q.untranslated
                    if !untranslated.isEmpty {
                        print(
                            "  note: \(untranslated.count) text(s) a translation leaves in the base language (its readers see that instead):"
                        )
                        for item in untranslated.prefix(Self.untranslatedShown) { print("    \(item)") }
                        if untranslated.count > Self.untranslatedShown {
                            print("    … and \(untranslated.count - Self.untranslatedShown) more")
                        }
                    }
                } catch {
                    printError(error.description)
                    failed = true
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show the sections and questions as a field worker sees them.")

        @Argument(help: ArgumentHelp("A questionnaire folder or id.", valueName: "folder"))
        var folder: String = QuestionnaireCatalog.defaultId

        @Option(help: "Show a translation, e.g. 'ar'.")
        var language: String?

        func run() throws {
            let questionnaire = try QuestionnaireOptions.load(folder)
            if let language, !questionnaire.languages.contains(language) {
                throw ValidationError(
                    "The questionnaire has no '\(language)' translation; choose one of \(questionnaire.languages.joined(separator: ", ")).")
            }
            QuestionnairePrinter(language: language).lines(for: questionnaire).forEach { print($0) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the questionnaires in the Questionnaires/ folder.")

        func run() throws {
            let catalog = QuestionnaireCatalog.commandLine
            guard let root = catalog.root else {
                throw ValidationError("No Questionnaires/ folder found. Run intake inside the Intake folder or set INTAKE_QUESTIONNAIRES.")
            }
            print("Questionnaires in \(root.path):")
            for folder in catalog.folders() {
                do {
                    let q = try QuestionnaireLoader.load(directory: folder)
                    print(
                        "  \(q.id)  version \(q.version)  \(q.sections.count) sections, \(q.questionCount) questions  [\(q.languages.joined(separator: ", "))]  \(q.title.base)"
                    )
                } catch {
                    print(
                        "  \(folder.lastPathComponent)  has \(error.diagnostics.count) problems: run 'intake questionnaire check \(folder.path)'"
                    )
                }
            }
        }
    }
}

/// What to publish: a questionnaire folder, and whether as a draft to try first.
struct PublishingOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("A questionnaire id under Questionnaires/, or a folder.", valueName: "id-or-path"))
    var questionnaire: String = QuestionnaireCatalog.defaultId
    @Flag(
        help:
            "Store it as a draft: coordinators can try it; records on it are refused until 'intake questionnaire state ID VERSION published'."
    )
    var draft = false

    func folder() throws -> URL { try QuestionnaireCatalog.commandLine.folder(for: questionnaire) }
}
