import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork

struct TeamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "team",
        abstract: "Run a team you coordinate: its members, their roles, its history, and invitations.",
        discussion: """
            A user belongs to at most one team, and the records they send are collected for it. A team's \
            coordinators (and admins) manage it; a team always keeps one coordinator.
            """,
        subcommands: [Members.self, History.self, Invite.self, Role.self, Remove.self, Create.self],
        defaultSubcommand: Members.self
    )

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a team's members: user, role, since when.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            TeamText.members(try await client.members(of: team), team: team).forEach { print($0) }
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Who joined or left the team or changed role, when, and by whose hand.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            TeamText.history(try await client.history(of: team)).forEach { print($0) }
        }
    }

    struct Invite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invite a user who belongs to no team; prints the passcode to pass on in person.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String
        @Argument(help: "The user to invite.") var username: String
        @Option(help: "fieldworker (default) or coordinator.") var role: String?
        @Option(help: "Days before the invitation expires (1 to 30; default 7).") var days: Int?
        @Option(help: "A note to the invitee, shown with the invitation (up to 1000 characters).") var message: String?

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let (invitation, passcode) = try await client.invite(username, to: team, role: role, days: days, message: message)
            TeamText.issued(invitation, passcode: passcode).forEach { print($0) }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Form a team and lead it (a member without a team, where the server allows it; an admin creates any team).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team's name.") var name: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            try await client.createTeam(name)
            print("Created team '\(name)'. If you formed it, you are its coordinator: invite members with 'intake team invite \(name) NAME'.")
        }
    }

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a member a fieldworker or a coordinator.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String
        @Argument(help: "The member.") var username: String
        @Argument(help: "fieldworker or coordinator.") var role: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let member = try await client.changeRole(in: team, of: username, to: role)
            print("\(member.username) is a \(member.role) of '\(team)'.")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take a member out of the team; the records they sent stay the team's.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String
        @Argument(help: "The member.") var username: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            try await client.remove(username, from: team)
            print("\(username) is no longer a member of '\(team)'.")
        }
    }
}
