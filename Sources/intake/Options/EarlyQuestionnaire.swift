import Foundation
import IntakeCore

/// The questionnaire `intake fill` will most likely show, read from its folder on a thread of its
/// own while the command line is still being parsed and the store opened: most of a first start's
/// time is the Swift runtime's first look at types, which the two threads then spend side by
/// side on two cores instead of one after the other.
///
/// The load is the one ``QuestionnaireLoader`` does; fill takes its result only for the very
/// folder it resolves itself (the same catalog, the same `--questionnaire`), and otherwise reads
/// the folder as always. A questionnaire pulled from the server is never read early: the store
/// decides that, and fill asks it as before.
enum EarlyQuestionnaire {
    private static let condition = NSCondition()
    nonisolated(unsafe) private static var started = false
    nonisolated(unsafe) private static var loaded: (folder: URL, result: Result<Questionnaire, QuestionnaireLoadError>)?

    /// Starts the early read when the command line asks for `fill` (before it is parsed).
    static func start(arguments: [String]) {
        guard arguments.dropFirst().first == "fill", let named = named(in: Array(arguments.dropFirst(2))) else { return }
        condition.lock()
        started = true
        condition.unlock()
        let thread = Thread {
            let outcome: (URL, Result<Questionnaire, QuestionnaireLoadError>)?
            do {
                let folder = try QuestionnaireCatalog.commandLine.folder(for: named)
                outcome = (folder, Result { () throws(QuestionnaireLoadError) in try QuestionnaireLoader.load(directory: folder) })
            } catch {
                outcome = nil
            }
            condition.lock()
            loaded = outcome
            started = false
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// The early read of `folder`, waiting for it if it is under way; nil when none was made of it.
    /// Taken once: a later load reads the folder again. Nil, too, after ten seconds of waiting.
    static func take(_ folder: URL) -> Result<Questionnaire, QuestionnaireLoadError>? {
        condition.lock()
        defer { condition.unlock() }
        // Never waits long: a thread that did not start (or a folder on a hung disk) leaves the
        // load to the normal path.
        let deadline = Date().addingTimeInterval(10)
        while started {
            guard condition.wait(until: deadline) else { return nil }
        }
        guard let early = loaded, early.folder.standardizedFileURL.path == folder.standardizedFileURL.path else { return nil }
        loaded = nil
        return early.result
    }

    /// The questionnaire named on fill's command line (`-q`, `--questionnaire`, `--questionnaire=`),
    /// `.some(nil)` when none is, or nil when the arguments cannot be read without the parser.
    private static func named(in arguments: [String]) -> String?? {
        var named: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "-q" || argument == "--questionnaire" {
                guard index + 1 < arguments.count, named == nil else { return nil }
                named = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("--questionnaire=") {
                guard named == nil else { return nil }
                named = String(argument.dropFirst("--questionnaire=".count))
            } else if argument.hasPrefix("-q") && argument.count > 2 && !argument.hasPrefix("--") {
                // -qID, or -q among other short flags: leave it to the parser.
                return nil
            }
            index += 1
        }
        return .some(named)
    }
}
