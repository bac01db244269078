import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork
import IntakeTerminal

struct InvitationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invitation",
        abstract: "See and answer invitations to a team: accept with the passcode, decline; coordinators revoke or confirm.",
        subcommands: [List.self, Accept.self, Decline.self, Revoke.self, Confirm.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Invitations to you, and (coordinators) of your team.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Option(help: "Only those in this state (pending, accepted, confirmed, declined, revoked, expired, locked).") var state: String?

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            TeamText.invitations(try await client.invitations(state: state)).forEach { print($0) }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Accept an invitation to you with the passcode the coordinator gave you (asked for, or read from standard input).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The invitation's id, or its first characters.") var id: String
        @Flag(help: "Read the passcode from standard input instead of asking.") var passcodeStdin = false

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let invitation = try await InvitationCommand.find(id, client)
            let typed = passcodeStdin || isatty(STDIN_FILENO) == 0 ? readLine(strippingNewline: true) : SecretPrompt.read("Passcode: ")
            guard let passcode = typed?.trimmingCharacters(in: .whitespaces), !passcode.isEmpty else {
                throw ValidationError("No passcode was given; type the six digits the coordinator gave you.")
            }
            let accepted = try await client.invitation(invitation.id, "accept", passcode: passcode)
            print(
                "Accepted the invitation to '\(accepted.team)'. A coordinator of the team confirms it next; 'intake inbox' tells you when.")
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "decline", abstract: "Decline an invitation to you.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The invitation's id, or its first characters.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let declined = try await client.invitation(try await InvitationCommand.find(id, client).id, "decline")
            print("Declined the invitation to '\(declined.team)'.")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Take back an open invitation of your team.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The invitation's id, or its first characters.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let revoked = try await client.invitation(try await InvitationCommand.find(id, client).id, "revoke")
            print("Revoked the invitation of \(revoked.invitee) to '\(revoked.team)'.")
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "confirm", abstract: "Let an invitee who accepted into your team.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The invitation's id, or its first characters.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let confirmed = try await client.invitation(try await InvitationCommand.find(id, client).id, "confirm")
            print("\(confirmed.invitee) is now a \(confirmed.role) of '\(confirmed.team)'.")
        }
    }

    /// The invitation the caller can see whose id starts with `prefix`.
    static func find(_ prefix: String, _ client: IntakeClient) async throws -> RemoteInvitation {
        let matches = try await client.invitations().filter { $0.id.hasPrefix(prefix.lowercased()) }
        guard let first = matches.first else {
            throw ValidationError("No invitation you can see has an id starting with '\(prefix)'; list them with 'intake invitation list'.")
        }
        guard matches.count == 1 else { throw ValidationError("Several invitations start with '\(prefix)'; give more of the id.") }
        return first
    }
}
