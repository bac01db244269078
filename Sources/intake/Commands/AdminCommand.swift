import ArgumentParser
import Foundation
import IntakeCore
import IntakeServer
import IntakeService
import IntakeTerminal

struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Manage the server's users, teams, tokens and questionnaires directly in its database.",
        subcommands: [
            Bootstrap.self, TeamCommand.self, UserCommand.self, TokenCommand.self, PublishCommand.self, CopyDatabaseCommand.self,
            AuditCommand.self,
            PurgeTombstonesCommand.self, CollectorOnlyCommand.self,
        ]
    )

    struct Bootstrap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "bootstrap", abstract: "Create the first admin of an empty database.")

        @OptionGroup var databaseOptions: ServerDatabaseOptions
        @Option(help: "The admin's username.") var username: String
        @Flag(help: "Read the password from the first line of standard input instead of asking.") var passwordStdin = false

        func run() async throws {
            let services = try await databaseOptions.services()
            let password = try PasswordInput.read(fromStdin: passwordStdin, minimum: AccountService.minimumPasswordLength)
            let user = try await AdminRule.run { try await services.accounts.bootstrapAdmin(username: username, password: password) }
            print(
                "Created admin '\(user.username)'. Sign in with POST /v1/sessions, or create a token: intake admin token create \(user.username)"
            )
        }
    }

    struct TeamCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "team", abstract: "Create and list teams.", subcommands: [Create.self, List.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a team.")
            @OptionGroup var databaseOptions: ServerDatabaseOptions
            @Argument(help: "The team's name.") var name: String

            func run() async throws {
                let services = try await databaseOptions.services()
                let team = try await AdminRule.run { try await services.accounts.createTeam(name: name, by: AuditText.localActor) }
                print("Created team '\(team.name)'.")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List teams.")
            @OptionGroup var databaseOptions: ServerDatabaseOptions

            func run() async throws {
                for team in try await databaseOptions.services().store.teams() { print(team.name) }
            }
        }
    }

    struct UserCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "user", abstract: "Create, list and change users; unlock one locked by failed sign-ins.",
            subcommands: [Create.self, List.self, Update.self, Unlock.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "create", abstract: "Create a user with a role (and a team for field workers and coordinators).")
            @OptionGroup var databaseOptions: ServerDatabaseOptions
            @Argument(help: "The username.") var username: String
            @Option(help: "fieldworker, coordinator, researcher or admin.") var role: Role
            @Option(help: "The user's team (required for field workers and coordinators).") var team: String?
            @Flag(help: "Read the password from the first line of standard input instead of asking.") var passwordStdin = false

            func run() async throws {
                let services = try await databaseOptions.services()
                let password = try PasswordInput.read(fromStdin: passwordStdin, minimum: AccountService.minimumPasswordLength)
                let user = try await AdminRule.run {
                    try await services.accounts.createUser(
                        username: username, password: password, role: role, team: team, by: AuditText.localActor)
                }
                let waiting =
                    user.role == .fieldworker || user.role == .coordinator
                    ? " without a team (invite them from a team, or give --team)" : ""
                print("Created \(user.role.rawValue) '\(user.username)'\(user.teamName.map { " in team '\($0)'" } ?? waiting).")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list", abstract: "List users.")
            @OptionGroup var databaseOptions: ServerDatabaseOptions

            func run() async throws {
                for user in try await databaseOptions.services().store.users() {
                    let state = user.disabled ? "disabled" : user.lockedAt != nil ? "locked" : "active"
                    print([user.username, user.role.rawValue, user.teamName ?? "-", state].joined(separator: "\t"))
                }
            }
        }

        struct Update: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "update", abstract: "Change a user's role or team, disable or enable them, or reset their password.")
            @OptionGroup var databaseOptions: ServerDatabaseOptions
            @Argument(help: "The username.") var username: String
            @Option(help: "A new role.") var role: Role?
            @Option(help: "A new team.") var team: String?
            @Flag(inversion: .prefixedEnableDisable, help: "Enable or disable the account (a disabled user's tokens stop working).")
            var enabled: Bool?
            @Flag(help: "Set a new password (asked, or read with --password-stdin).") var resetPassword = false
            @Flag(help: "Read the new password from standard input.") var passwordStdin = false
            @Option(help: "A researcher's access: study (the sponsor's team and partners) or external (qualified researchers outside).")
            var researchAccess: ResearchAccess?

            func run() async throws {
                let services = try await databaseOptions.services()
                let password =
                    resetPassword ? try PasswordInput.read(fromStdin: passwordStdin, minimum: AccountService.minimumPasswordLength) : nil
                let user = try await AdminRule.run {
                    try await services.accounts.updateUser(
                        username: username, role: role, team: team.map { .some($0) }, password: password, disabled: enabled.map { !$0 },
                        researchAccess: researchAccess, by: AuditText.localActor)
                }
                let access = user.role == .researcher ? ", research access \((user.researchAccess ?? .external).rawValue)" : ""
                print(
                    "Updated '\(user.username)': \(user.role.rawValue), team \(user.teamName ?? "-"), \(user.disabled ? "disabled" : "active")\(access)."
                )
            }
        }

        struct Unlock: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "unlock",
                abstract: "Unlock a user whom repeated failed sign-ins locked out, and forget the failures.")
            @OptionGroup var databaseOptions: ServerDatabaseOptions
            @Argument(help: "The username.") var username: String

            func run() async throws {
                let user = try await AdminRule.run { try await databaseOptions.services().accounts.unlock(username: username) }
                print("Unlocked '\(user.username)'; they may sign in again.")
            }
        }
    }

    struct TokenCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token", abstract: "Create, list and revoke API tokens.", subcommands: [Create.self, List.self, Revoke.self])

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract:
                    "List a user's tokens, the newest first: the start of each one's fingerprint (never the token), what it was made for, when it ends."
            )
            @OptionGroup var databaseOptions: ServerDatabaseOptions
            @Argument(help: "The username.") var username: String

            func run() async throws {
                let tokens = try await AdminRule.run { try await databaseOptions.services().accounts.tokens(of: username) }
                guard !tokens.isEmpty else {
                    print("'\(username)' has no token.")
                    return
                }
                let now = Date()
                for token in tokens {
                    let ends = token.expiresAt.map { ($0 <= now ? "ended " : "ends ") + Timestamp.string(from: $0) } ?? "never ends"
                    print("\(token.id)  \(TerminalText.escaped(token.name))  made \(Timestamp.string(from: token.createdAt))  \(ends)")
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke", abstract: "Revoke one of a user's tokens at once, named as 'intake admin token list' shows it.")
            @OptionGroup var databaseOptions: ServerDatabaseOptions
            @Argument(help: "The username.") var username: String
            @Argument(help: "The token's 12 hex digits from 'intake admin token list'.") var token: String

            func run() async throws {
                try await AdminRule.run { try await databaseOptions.services().accounts.revokeToken(token, of: username, by: "cli") }
                print("Revoked token \(token.lowercased()) of '\(username)'; whatever used it must be given a new one.")
            }
        }

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "create",
                abstract: "Create a token for a user and print it once; it is stored only as a hash.")
            @OptionGroup var databaseOptions: ServerDatabaseOptions
            @Argument(help: "The username.") var username: String
            @Option(help: "A name to recognise the token by, e.g. the device.") var name = "cli"
            @Option(help: "Days until it expires (default: never).") var expiresInDays: Int?
            @Flag(
                help:
                    "A REDCap-style token (32 hexadecimal characters) for REDCap clients such as PyCap; their API URL is https://HOST/redcap/QUESTIONNAIRE/api/."
            )
            var redcap = false

            func validate() throws {
                if let days = expiresInDays, !(1...3650).contains(days) {
                    throw ValidationError("Please give --expires-in-days from 1 to 3650.")
                }
            }

            func run() async throws {
                let expires = expiresInDays.map { Date().addingTimeInterval(Double($0) * 86400) }
                let token = try await AdminRule.run {
                    try await databaseOptions.services().accounts.issueToken(
                        username: username, name: name, expiresAt: expires, style: redcap ? .redcap : .intake)
                }
                print(token)
            }
        }
    }

    struct PublishCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "publish", abstract: "Publish a questionnaire version so records may use it.")
        @OptionGroup var databaseOptions: ServerDatabaseOptions
        @OptionGroup var publishing: PublishingOptions

        func run() async throws {
            let folder = try publishing.folder()
            let (published, isNew) = try await AdminRule.run {
                try await databaseOptions.services().questionnaires.publish(directory: folder, draft: publishing.draft)
            }
            let state = published.status.state
            print(
                "\(isNew ? (state == .draft ? "Stored as a draft" : "Published") : "Already on the server (\(state.rawValue))"): "
                    + "\(published.id) version \(published.version) (\(published.questionCount) questions)")
        }
    }
}

extension Role: ExpressibleByArgument {}
extension ResearchAccess: ExpressibleByArgument {}

/// Turns account and store errors into messages for the command line.
enum AdminRule {
    static func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AccountError {
            throw ValidationError(error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
        } catch let error as RecordStoreError {
            switch error {
            case .alreadyExists(let what): throw ValidationError("The \(what) already exists.")
            case .notFound(let what): throw ValidationError("There is no \(what).")
            }
        } catch let error as QuestionnaireLoadError {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}

/// Passwords and passphrases come from a prompt that does not echo, or from standard input for scripts.
enum PasswordInput {
    static func read(fromStdin: Bool, prompt: String = "Password: ", confirm: Bool = true, minimum: Int = 1) throws -> String {
        let secret: String
        if fromStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw ValidationError("Nothing on standard input; pipe the secret as the first line.")
            }
            secret = line
        } else {
            guard isatty(STDIN_FILENO) == 1 else {
                throw ValidationError("Standard input is not a terminal; pipe the secret and add the --…-stdin flag.")
            }
            // At a terminal a secret too short, or typed differently twice, is asked again (three tries).
            var tries = 3
            while true {
                tries -= 1
                guard let entered = SecretPrompt.read(prompt) else { throw ValidationError("Nothing was typed; nothing was changed.") }
                guard entered.count >= minimum else {
                    guard tries > 0 else { throw ValidationError("Please use at least \(minimum) characters; nothing was changed.") }
                    Console.error("Too short: please use at least \(minimum) characters.\n")
                    continue
                }
                if confirm {
                    guard let again = SecretPrompt.read("Again: ") else { throw ValidationError("Nothing was typed; nothing was changed.") }
                    guard again == entered else {
                        guard tries > 0 else { throw ValidationError("The two entries differ; nothing was changed. Try again.") }
                        Console.error("The two entries differ; type it again.\n")
                        continue
                    }
                }
                secret = entered
                break
            }
        }
        guard secret.count >= minimum else { throw ValidationError("Please use at least \(minimum) characters.") }
        return secret
    }
}
