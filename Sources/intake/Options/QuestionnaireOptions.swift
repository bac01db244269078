import ArgumentParser
import Foundation
import IntakeCore
import IntakeStore
import IntakeTerminal

/// `--questionnaire`: which questionnaire to use, by id or folder path.
struct QuestionnaireOptions: ParsableArguments {
    @Option(
        name: [.short, .long],
        help: ArgumentHelp(
            "A questionnaire id under Questionnaires/, or a folder path (default: \(QuestionnaireCatalog.defaultId)).",
            valueName: "id-or-path"))
    var questionnaire: String?

    /// Loads the questionnaire, or prints every problem and exits with status 1.
    func load() throws -> Questionnaire {
        try QuestionnaireOptions.load(questionnaire)
    }

    /// What `intake fill` fills: a folder when a path is given; otherwise the newest version the
    /// server publishes, as last pulled to this machine (`intake login`, `intake questionnaire
    /// pull`), of the id given, the default one, or the only one pulled; and the local folder of
    /// that id when nothing was pulled (a machine that never signed in).
    func loadForFilling(store: LocalStore) throws -> Questionnaire {
        if let questionnaire, questionnaire.contains("/") || questionnaire.hasPrefix(".") { return try load() }
        let ids = Set(try store.pulledQuestionnaires().filter { $0.state == "published" }.map(\.id))
        let id = questionnaire ?? (ids.count == 1 ? ids.first! : QuestionnaireCatalog.defaultId)
        guard let pulled = try store.currentPulled(id: id) else { return try load() }
        do {
            return try pulled.load()
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }

    /// The questionnaire that follows the case list `list`: `--questionnaire` when given (it must
    /// follow that list), else the one among those pulled from the server, or else in the local
    /// Questionnaires folder, whose `cases.txt` follows it.
    func loadFollowing(list: String, store: LocalStore) throws -> Questionnaire {
        if questionnaire != nil {
            let chosen = try loadForFilling(store: store)
            guard chosen.cases.follows?.list == list else {
                throw ValidationError(
                    "\(chosen.id) does not follow the case list '\(list)'; leave out --questionnaire to use the one that does.")
            }
            return chosen
        }
        if let found = try Self.following(list: list, store: store) { return found }
        throw ValidationError(
            "No questionnaire on this machine follows the case list '\(list)'; pull your team's questionnaires ('intake questionnaire pull') and try again."
        )
    }

    /// The questionnaire that follows the case list `list` among those pulled from the server,
    /// or else in the local Questionnaires folder; nil when none does.
    static func following(list: String, store: LocalStore) throws -> Questionnaire? {
        for pulled in try store.pulledQuestionnaires() where pulled.state == "published" {
            if let current = try store.currentPulled(id: pulled.id), let loaded = try? current.load(), loaded.cases.follows?.list == list {
                return loaded
            }
        }
        for folder in QuestionnaireCatalog.commandLine.folders() {
            if let loaded = try? QuestionnaireLoader.load(directory: folder), loaded.cases.follows?.list == list { return loaded }
        }
        return nil
    }

    /// A version of a questionnaire kept on this machine (pulled from the server), for a draft
    /// begun on a version other than the one loaded.
    static func kept(_ reference: QuestionnaireReference, in store: LocalStore) -> Questionnaire? {
        if let pulled = (try? store.pulled(reference)).flatMap({ try? $0?.load() }) { return pulled }
        // A draft begun on the local folder's version before anything was pulled.
        return (try? QuestionnaireCatalog.commandLine.folder(for: reference.id)).flatMap { try? QuestionnaireLoader.load(directory: $0) }
            .flatMap { $0.reference == reference ? $0 : nil }
    }

    static func load(_ reference: String?) throws -> Questionnaire {
        do {
            let folder = try QuestionnaireCatalog.commandLine.folder(for: reference)
            if let early = EarlyQuestionnaire.take(folder) { return try early.get() }
            return try QuestionnaireLoader.load(directory: folder)
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}

extension QuestionnaireCatalog {
    /// Where the command line looks for questionnaires: `INTAKE_QUESTIONNAIRES` when set;
    /// otherwise the first `Questionnaires/` folder in the current directory or above it, or
    /// beside the running executable or above it (so `swift run intake` and `.build/debug/intake`
    /// find the repository's folder).
    ///
    /// Read at every `intake fill`'s start (on the early questionnaire's thread), so through the
    /// C library: `getenv` rather than Foundation's dictionary of the whole environment, and
    /// `realpath` rather than `resolvingSymlinksInPath()` (finding the folder was about a tenth of
    /// that thread's time at a start).
    static var commandLine: QuestionnaireCatalog {
        if let explicit = getenv("INTAKE_QUESTIONNAIRES").map({ String(cString: $0) }), !explicit.isEmpty {
            return QuestionnaireCatalog(root: URL(fileURLWithPath: explicit))
        }
        let executable = URL(fileURLWithPath: resolvedPath(CommandLine.arguments.first ?? ".")).deletingLastPathComponent()
        return QuestionnaireCatalog(
            searchPath: upward(from: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) + upward(from: executable))
    }

    /// `path` with every symbolic link resolved, made absolute; as it was given (made absolute)
    /// when it cannot be resolved (a name found on the PATH, a file since removed).
    private static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return URL(fileURLWithPath: path).path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Writes to standard error.
func printError(_ text: String) {
    Console.error(TerminalText.shown(text, bidi: Language.errorBidi, rightToLeft: Language.say.isRightToLeft, fd: STDERR_FILENO) + "\n")
}
