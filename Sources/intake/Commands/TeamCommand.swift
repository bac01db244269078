import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork
import IntakeTerminal

struct TeamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "team",
        abstract: "Run a team you coordinate: its members, their roles, its history, and invitations.",
        discussion: """
            A user belongs to at most one team, and the records they send are collected for it. A team's \
            coordinators (and admins) manage it; a team always keeps one coordinator.
            """,
        subcommands: [
            Members.self, History.self, Invite.self, Role.self, Remove.self, Create.self, Enrol.self, Codes.self, Devices.self,
            RevokeDevice.self,
            TimeZoneCommand.self,
        ],
        defaultSubcommand: Members.self
    )

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "members", abstract: "List a team's members: user, role, since when.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            TeamText.members(try await client.members(of: team), team: team).forEach { print($0) }
        }
    }

    struct TimeZoneCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "timezone",
            abstract: "Set the time zone the team's console pages show times in (an IANA name such as Asia/Amman, or UTC).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String
        @Argument(help: "The time zone: Asia/Amman, Africa/Nairobi, UTC…") var zone: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let set = try await client.setTimeZone(zone, of: team)
            print("'\(TerminalText.escaped(team))' shows times in \(set).")
        }
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history", abstract: "Who joined or left the team or changed role, when, and by whose hand.")
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
            commandName: "invite",
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
            commandName: "create",
            abstract: "Form a team and lead it (a member without a team, where the server allows it; an admin creates any team).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team's name.") var name: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            try await client.createTeam(name)
            print(
                "Created team '\(name)'. If you formed it, you are its coordinator: invite members with 'intake team invite \(name) NAME'.")
        }
    }

    struct Role: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "role", abstract: "Make a member a fieldworker or a coordinator.")
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
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Take a member out of the team; the records they sent stay the team's.")
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

    struct Enrol: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enrol",
            abstract: "Make a one-time code that sets up a new machine for a member of the team; printed as text and as a QR code.",
            discussion: """
                On the new machine, 'intake enrol CODE --server URL' (or the intake://enrol link the QR code holds) makes a \
                token for that machine only, saves the server, pulls the questionnaires and is ready to fill. The code works \
                once, expires (72 hours unless --hours says otherwise) and locks after 5 wrong tries. See the machines \
                enrolled with 'intake team devices' and stop one with 'intake team revoke-device'.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String
        @Argument(help: "The member the machine works for (a field worker or coordinator of the team).") var username: String
        @Option(help: "Hours before the code expires (from 0.2 to 720; default 72).") var hours: Double?
        @Flag(help: "Do not draw the QR code.") var noQr = false

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let issued = try await client.createEnrolment(team: team, username: username, expiresInHours: hours)
            let link = EnrolmentLink(server: client.baseURL.absoluteString, code: issued.code, pins: issued.pins)
            let command = (["intake enrol \(issued.code) --server \(link.server)"] + issued.pins.map { "--pin \($0)" }).joined(
                separator: " ")
            print("Enrolment code for \(username) of '\(team)': \(issued.code)")
            print(
                "It works once, until \(String(issued.enrolment.expiresAt.prefix(16)).replacingOccurrences(of: "T", with: " ")) UTC, and locks after 5 wrong tries."
            )
            print("On the new machine:")
            print("  \(command)")
            print("or, with the link the QR code holds:")
            print("  intake enrol '\(link.text)'")
            guard !noQr, let code = QRCode(link.text) else { return }
            print("")
            // Written as they are: the colour codes are ours, and the lines hold nothing else.
            code.lines(colours: isatty(STDOUT_FILENO) == 1).forEach { Console.out($0 + "\n") }
        }
    }

    struct Codes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "codes", abstract: "List the team's enrolment codes: for whom, state, expiry, wrong tries (never the codes).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            TeamText.enrolments(try await client.enrolments(of: team)).forEach { print($0) }
        }
    }

    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices",
            abstract: "List the machines enrolled for the team: who, last seen, last upload, queue as last reported, Intake version.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            TeamText.devices(try await client.devices(of: team)).forEach { print($0) }
        }
    }

    struct RevokeDevice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-device",
            abstract: "Stop an enrolled machine: its token is refused from its next request.",
            discussion: "What it had queued stays sealed on the machine; its user can still export it with 'intake queue export'.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String
        @Argument(help: "The device's number, from 'intake team devices'.") var device: Int64

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let revoked = try await client.revokeDevice(device, of: team)
            print("Device \(revoked.id) (\(revoked.name), \(revoked.username)) is revoked: its token is refused from now on.")
        }
    }
}
