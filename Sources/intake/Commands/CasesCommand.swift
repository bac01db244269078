import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeFieldwork
import IntakeForm
import IntakeTerminal

struct CasesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cases",
        abstract:
            "The cases you follow: pull them to this machine (sealed), list and show them offline; assign and close them (coordinators).",
        discussion: """
            A screening whose questionnaire opens cases (the bundled one opens a follow-up for a PHQ-2 score of 3 or \
            more, a long-term illness or thoughts of self-harm) opens one for the field worker who sent it. 'intake cases \
            pull' keeps on this machine, sealed, the open cases you follow: those assigned to you and those left to \
            your team (a coordinator: every open case of the team). Closed cases and cases given to someone else \
            leave the machine at the next pull. Fill a follow-up offline with 'intake fill --case ID'. See docs/cases.md.
            """,
        subcommands: [Pull.self, List.self, Show.self, Assign.self, Close.self],
        defaultSubcommand: List.self)

    static var today: LocalDate { LocalDate.today() }

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull", abstract: "Bring this machine's cases up to date from the server (only what changed).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions

        func run() async throws {
            let store = try storeOptions.openUnlocked()
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            // Whose cases the copy holds: the name saved at sign-in, else the server's answer (a
            // server that does not answer says so, rather than asking to sign in).
            let user: String
            if let known = await clientOptions.signedInUsername(dataDirectory: storeOptions.directory) {
                user = known
            } else {
                user = try await client.me()
            }
            let summary = try await CaseCopy(store: store).pull(from: client, user: user)
            print(Language.say(.casesPulled(total: summary.total, received: summary.received, dropped: summary.dropped)))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "The open cases on this machine, the soonest due first (offline; initials, never names).")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try storeOptions.openUnlocked()
            guard let copy = try CaseCopy(store: store).load() else {
                print(Language.say(.casesNoneYet))
                return
            }
            CaseText.list(copy.cases, today: CasesCommand.today, width: TerminalSize.columns(STDOUT_FILENO), say: Language.say)
                .forEach { print($0) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One case on this machine: who it is about, what it says, when it is due.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: "The case's id (or its first characters), or the patient's name.") var reference: String

        func run() async throws {
            let store = try storeOptions.openUnlocked()
            let followed = try CaseCopy(store: store).find(reference)
            // Its properties' choices are shown by their labels, as the questionnaire that follows its list declares them.
            let follows = (try? QuestionnaireOptions.following(list: followed.list, store: store))?.cases.follows
            CaseText.detail(followed, today: CasesCommand.today, follows: follows, say: Language.say).forEach { print($0) }
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "assign", abstract: "Give a case of your team to a member, or back to the team (coordinators).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The case's whole id.") var id: String
        @Argument(help: "The field worker or coordinator who follows it; leave out with --team.") var user: String?
        @Flag(help: "Leave it to the team: every field worker of the team receives it.") var team = false

        func validate() throws {
            guard UUID(uuidString: id) != nil else { throw ValidationError("'\(id.prefix(40))' is not a case's whole id (a UUID).") }
            guard (user == nil) == team else { throw ValidationError("Name the user who follows the case, or give --team (not both).") }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let followed = try await client.assignCase(UUID(uuidString: id)!, to: user)
            print("Case \(followed.id.uuidString.lowercased().prefix(8)) is followed by \(followed.assignee ?? "the team").")
        }
    }

    struct Close: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "close", abstract: "Close a case of your team without a visit, or open it again with --reopen (coordinators).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The case's whole id.") var id: String
        @Flag(help: "Open the case again.") var reopen = false

        func validate() throws {
            guard UUID(uuidString: id) != nil else { throw ValidationError("'\(id.prefix(40))' is not a case's whole id (a UUID).") }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let followed = try await client.setCaseStatus(UUID(uuidString: id)!, closed: !reopen)
            print("Case \(followed.id.uuidString.lowercased().prefix(8)) is \(followed.status).")
        }
    }
}
