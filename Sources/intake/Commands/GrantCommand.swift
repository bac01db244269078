import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore

/// `intake grant`: give, list and revoke access to one record for a user or a team outside it.
struct GrantCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Let a user or a team outside yours read or edit one record, for a while (coordinators).",
        subcommands: [Give.self, List.self, Revoke.self, Mine.self], defaultSubcommand: Give.self)

    struct Give: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "give", abstract: "Grant access to a record until a time.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The record's id, or its first characters.") var id: String
        @Option(help: "The user to grant to.") var toUser: String?
        @Option(help: "The team to grant to (all its members).") var toTeam: String?
        @Option(help: "read, or edit (read and save revisions).") var access = "read"
        @Option(help: "For how many days (1 to 366).") var days: Int?
        @Option(help: ArgumentHelp("Until this time (2026-12-01T00:00:00Z), instead of --days.", valueName: "time")) var until: String?

        func run() async throws {
            guard (toUser == nil) != (toTeam == nil) else { throw ValidationError("Give either --to-user or --to-team.") }
            guard ["read", "edit"].contains(access) else { throw ValidationError("--access is read or edit.") }
            let expiresAt: Date
            switch (days, until) {
            case (let days?, nil):
                guard (1...366).contains(days) else { throw ValidationError("--days is from 1 to 366.") }
                expiresAt = Date().addingTimeInterval(Double(days) * 86_400)
            case (nil, let until?):
                guard let time = Timestamp.date(from: until) else {
                    throw ValidationError("--until is a time such as 2026-12-01T00:00:00Z.")
                }
                expiresAt = time
            default: throw ValidationError("Give either --days or --until: every grant ends.")
            }
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let record = try await RecordReference.resolve(id, with: client)
            let grant = try await client.grant(record: record, toUser: toUser, toTeam: toTeam, access: access, expiresAt: expiresAt)
            print(
                "Granted \(grant.access) access to record \(grant.recordId.prefix(8)) to \(GrantCommand.grantee(grant)) until \(grant.expiresAt) (grant \(grant.id))."
            )
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "A record's grants, revoked and expired ones too.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The record's id, or its first characters.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let grants = try await client.grants(record: try await RecordReference.resolve(id, with: client))
            if grants.isEmpty { print("No grants on this record.") }
            for grant in grants { print(GrantCommand.line(grant)) }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Revoke a grant.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The record's id, or its first characters.") var id: String
        @Argument(help: "The grant's id (from 'intake grant list').") var grant: String

        func run() async throws {
            guard let grantId = UUID(uuidString: grant) else { throw ValidationError("'\(grant.prefix(40))' is not a grant id (a UUID).") }
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let revoked = try await client.revokeGrant(record: try await RecordReference.resolve(id, with: client), grant: grantId)
            print("Revoked grant \(revoked.id) (\(revoked.access) for \(GrantCommand.grantee(revoked))) at \(revoked.revokedAt ?? "-").")
        }
    }

    struct Mine: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mine", abstract: "Records other teams let you (or your team) read or edit now.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let grants = try await client.grantsReceived()
            if grants.isEmpty { print("No grants for you now.") }
            for grant in grants { print(GrantCommand.line(grant)) }
        }
    }

    static func grantee(_ grant: RemoteGrant) -> String {
        grant.toUser.map { "user \($0)" } ?? grant.toTeam.map { "team \($0)" } ?? "-"
    }

    static func line(_ grant: RemoteGrant) -> String {
        let state = grant.revokedAt != nil ? "revoked" : grant.active ? "active" : "expired"
        return [grant.id, grant.recordId, grant.access, grantee(grant), "until \(grant.expiresAt)", state, "by \(grant.grantedBy)"].joined(
            separator: "\t")
    }
}
