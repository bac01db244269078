import ArgumentParser
import Foundation
import IntakeCore
import IntakeFieldwork
import IntakeStore
import IntakeTerminal

struct DraftsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drafts",
        abstract: "List, show, move to another questionnaire version and discard the unfinished records on this machine.",
        discussion: "Finished records wait in the queue instead: see 'intake queue list'.",
        subcommands: [List.self, Show.self, Migrate.self, History.self, Discard.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List drafts, most recent first.")

        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let summaries = try storeOptions.open().summaries()
            guard !summaries.isEmpty else {
                print("No drafts. Start one with 'intake fill'.")
                return
            }
            TextTable.drafts(summaries, say: Language.say).forEach { print($0) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one draft as JSON, patient details and answers included.")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The draft's id or its first characters.", valueName: "id"))
        var id: String

        func run() throws {
            let draft = try storeOptions.open().draft(idPrefix: id)
            printData(String(decoding: try draft.response.jsonData(pretty: true), as: UTF8.self))
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "migrate",
            abstract: "Move a draft or a queued record to another version of its questionnaire.",
            discussion: """
                Each answer goes to the question with the same id on the new version when its type and choices \
                still take it; every other answer is listed and set aside, kept sealed in the record's history on \
                this machine (intake drafts history ID), never dropped silently. A queued record complete on the new \
                version goes back in the queue; one that now misses required answers becomes a draft, resumed at the \
                first of them with 'intake fill --resume ID'. Use it when the server says a version is retired or \
                unknown. The new version is the newest one pulled from the server (intake questionnaire pull) unless \
                --to or --questionnaire says otherwise.
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The draft's or queued record's id, or its first characters.", valueName: "id"))
        var id: String?

        @Flag(help: "Move every draft and queued record of the questionnaire that is not on the new version.")
        var all = false

        @Option(help: "The version to move to (pulled to this machine, or the local folder's).")
        var to: String?

        @Option(
            name: [.short, .long],
            help: ArgumentHelp(
                "With --all: which questionnaire (an id); or a folder path holding the version to move to.", valueName: "id-or-path"))
        var questionnaire: String?

        @Option(help: ArgumentHelp("The folder of the version the records are on, when it is not kept on this machine.", valueName: "path"))
        var from: String?

        @OptionGroup var clientOptions: ClientOptions

        func validate() throws {
            if id == nil, !all { throw ValidationError("Name the record to move (intake drafts list, intake queue list), or give --all.") }
            if id != nil, all { throw ValidationError("Give a record's id or --all, not both.") }
        }

        func run() async throws {
            let store = try storeOptions.open()
            try store.unlock()
            let older = try from.map { try QuestionnaireOptions.load($0) }
            let migration = DraftMigration(store: store) { reference in
                if let older, older.reference == reference { return older }
                return QuestionnaireOptions.kept(reference, in: store)
            }
            let candidates: [DraftMigration.Candidate]
            let target: Questionnaire
            if let id {
                let candidate = try migration.candidate(idPrefix: id)
                target = try Self.target(id: candidate.draft.response.questionnaire.id, version: to, path: questionnaire, store: store)
                candidates = [candidate]
            } else {
                let ids = Set(try migration.all().map(\.draft.response.questionnaire.id))
                let questionnaireId =
                    questionnaire.flatMap { $0.contains("/") ? nil : $0 } ?? (ids.count == 1 ? ids.first! : QuestionnaireCatalog.defaultId)
                target = try Self.target(id: questionnaireId, version: to, path: questionnaire, store: store)
                candidates = try migration.behind(target.reference)
                guard !candidates.isEmpty else {
                    print("Nothing to move: every draft and queued record of \(target.id) is on version \(target.version).")
                    return
                }
            }
            var failed = 0
            var toAnswer: [DraftMigration.Outcome] = []
            for candidate in candidates {
                do {
                    let outcome = try migration.migrate(candidate, to: target)
                    DraftMigration.lines(outcome).forEach { print($0) }
                    if !outcome.queued, !outcome.result.nowRequired.isEmpty { toAnswer.append(outcome) }
                } catch {
                    failed += 1
                    printError("Record \(candidate.shortId) not moved: \(error)")
                }
            }
            if failed > 0 { throw ExitCode.failure }
            // One record moved at a terminal: the questions that became required, asked now.
            guard id != nil, let outcome = toAnswer.first, isatty(STDIN_FILENO) == 1 else { return }
            let count = outcome.result.nowRequired.count
            Console.out("Answer the \(count) question\(count == 1 ? "" : "s") now and send the record? [Y/n] ")
            guard let reply = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased(),
                reply.isEmpty || reply.hasPrefix("y")
            else { return }
            var arguments = ["--resume", outcome.candidate.shortId, "--data-dir", storeOptions.directory.path]
            if let server = clientOptions.server { arguments += ["--server", server] }
            if let token = clientOptions.token { arguments += ["--token", token] }
            arguments += clientOptions.transportArguments
            var fill = try FillCommand.parse(arguments)
            try await fill.run()
        }

        /// The version to move to: a folder given, the version named, or the newest pulled.
        static func target(id: String, version: String?, path: String?, store: LocalStore) throws -> Questionnaire {
            if let path, path.contains("/") || path.hasPrefix(".") {
                let loaded = try QuestionnaireOptions.load(path)
                if let version, loaded.version != version {
                    throw ValidationError("\(path) holds version \(loaded.version) of \(loaded.id), not \(version).")
                }
                return loaded
            }
            if let version {
                guard let kept = QuestionnaireOptions.kept(QuestionnaireReference(id: id, version: version), in: store) else {
                    throw ValidationError(
                        "\(id) version \(version) is not on this machine; pull it (intake questionnaire pull) or give its folder with --questionnaire PATH."
                    )
                }
                return kept
            }
            if let pulled = try store.currentPulled(id: id) { return try pulled.load() }
            return try QuestionnaireOptions.load(id)
        }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Show a record's moves to other questionnaire versions and the answers set aside on the way.",
            discussion: "Without --json only the questions and reasons are shown; --json shows the answers set aside too.")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(
            help: ArgumentHelp(
                "The record's id (a draft's, a queued record's, or one sent since), or its first 8 characters.", valueName: "id"))
        var id: String

        @Flag(help: "Print each move as JSON, the answers set aside included.")
        var json = false

        func run() throws {
            let store = try storeOptions.open()
            try store.unlock()
            let moves = try store.moves(idPrefix: id)
            guard !moves.isEmpty else {
                print("Record \(id) was never moved to another questionnaire version on this machine.")
                return
            }
            for move in moves {
                if json {
                    printData(String(decoding: move.json, as: UTF8.self))
                    continue
                }
                print(
                    "\(Timestamp.string(from: move.movedAt))  \(move.from) → \(move.to): \(move.setAsideCount) answer\(move.setAsideCount == 1 ? "" : "s") set aside"
                )
                for aside in move.setAside { print("  \(aside.question) (question \(aside.position)): \(aside.detail)") }
            }
        }
    }

    struct Discard: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "discard", abstract: "Delete a draft from this machine for good.")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The draft's id or its first characters.", valueName: "id"))
        var id: String

        func run() throws {
            let store = try storeOptions.open()
            let draft = try store.draft(idPrefix: id)
            try store.discard(id: draft.response.id)
            print("Discarded \(draft.response.id.uuidString.lowercased()).")
        }
    }
}
