import ArgumentParser
import Foundation
import IntakeTerminal

@main
struct IntakeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intake",
        abstract: "Collect health questionnaire data in the field, online or off.",
        discussion: """
            Start with 'intake fill' to fill in the bundled questionnaire. Answers are saved on this \
            machine as you type; see 'intake drafts list' for unfinished records.
            """,
        version: "0.1.0",
        subcommands: [
            FillCommand.self, DraftsCommand.self, QuestionnaireCommand.self, SampleCommand.self, ServeCommand.self,
            AdminCommand.self, LoginCommand.self, LogoutCommand.self, EnrolCommand.self, FlushCommand.self, QueueCommand.self,
            KeyCommand.self, LookupCommand.self,
            ExportCommand.self, TeamCommand.self, InvitationCommand.self, InboxCommand.self,
            AnnounceCommand.self, ReferCommand.self, ReferralsCommand.self, ReviewCommand.self, WebhookCommand.self, PatientCommand.self,
            HistoryCommand.self,
            DeleteCommand.self, SyncCommand.self, GrantCommand.self, TransferCommand.self, StatusCommand.self, CasesCommand.self,
        ]
    )

    /// Parses the command line and runs the command. A mistaken command line is the only error
    /// that shows the usage and exits 64; once the command runs, an error is one message on
    /// standard error and exit 1 (or the status the command chose).
    static func main() async {
        Console.ignoreBrokenPipes()
        // Over a file size limit, a write fails (and the store says so) instead of the signal
        // killing the process with the answers it holds.
        signal(SIGXFSZ, SIG_IGN)
        oneMallocArena(unless: CommandLine.arguments.dropFirst().first == "serve")
        EarlyQuestionnaire.start(arguments: CommandLine.arguments)
        Language.use(Language.say)
        var command: any ParsableCommand
        do {
            command = try parsedCommand(Array(CommandLine.arguments.dropFirst()))
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            Console.error("Error: \(error.message)\n")
            Foundation.exit(1)
        } catch {
            exit(withError: error)
        }
    }
}

extension IntakeCommand {
    /// The command `arguments` name. `intake fill …`, the command a field worker starts most,
    /// is read by its own type first: reading the root reads the whole command tree's types,
    /// and the Swift runtime's first look at each costs every start (about 3 ms of the 10 it
    /// takes beyond `--version`). Whatever fill's own reading does not take as it stands (help,
    /// a mistake) is read again from the root, which answers it as `intake fill` always has.
    static func parsedCommand(_ arguments: [String]) throws -> any ParsableCommand {
        if arguments.first == "fill", let fill = (try? FillCommand.parseAsRoot(Array(arguments.dropFirst()))) as? FillCommand {
            return fill
        }
        return try parseAsRoot(arguments)
    }
}

/// A command other than the server keeps its memory in one malloc arena. glibc gives each thread
/// that allocates an arena of its own (up to eight a core), and memory freed in one stays there:
/// an export's reading and writing threads, and PostgresNIO's event loops, held 8 MB more at
/// their peak this way (71 against 62 MB from PostgreSQL at 100,000 records, 65 against 57 from
/// SQLite; no slower in alternating runs). The server, whose many threads allocate at once, keeps
/// glibc's default. Set before any thread starts: threads take their arena at their first malloc.
private func oneMallocArena(unless keepDefault: Bool) {
    #if canImport(Glibc)
        // mallopt and M_ARENA_MAX (-8) are in malloc.h, which the Glibc module does not import.
        // An operator's MALLOC_ARENA_MAX is theirs to set.
        // getenv, not ProcessInfo's dictionary of the whole environment: this runs before the
        // early questionnaire's thread may start, at every command's start.
        guard !keepDefault, getenv("MALLOC_ARENA_MAX") == nil,
            let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt")
        else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        _ = unsafeBitCast(symbol, to: Mallopt.self)(-8, 1)
    #endif
}
