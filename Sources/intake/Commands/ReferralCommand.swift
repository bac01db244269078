import ArgumentParser
import Foundation
import IntakeClient
import IntakeFieldwork
import IntakeTerminal

struct ReferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refer",
        abstract: "Refer a patient (one of your team's records) to a member of your team or to another team.",
        discussion: """
            The referee is told at once ('intake inbox') and may read that record (and edit it, with \
            --allow-edit) while the referral is open or accepted, and nothing else of your team.
            """)
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Argument(help: "The record's id, or its first characters.") var record: String
    @Option(help: "A member of your team, or another team (its name).") var to: String
    @Flag(help: "--to names a team, not a user (when a team and a user share the name).") var team = false
    @Option(help: "Why (shown to the referee; never in notifications).") var reason: String
    @Option(help: "routine (default), urgent or emergency.") var priority: String?
    @Flag(help: "Let the referee edit the record, not only read it.") var allowEdit = false

    func run() async throws {
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        let referral = try await ReferralTarget.refer(
            client, record: try await RecordReference.resolve(record, with: client).uuidString.lowercased(), to: to, teamOnly: team,
            reason: reason, priority: priority, allowEdit: allowEdit)
        print("Referred to \(referral.assignee ?? "'\(referral.toTeam)'") (referral \(referral.id.prefix(8)), \(referral.priority)).")
    }
}

struct ReferralsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "referrals",
        abstract: "Referrals you received or sent: list, show with the thread, answer, reassign, write.",
        subcommands: [List.self, Show.self, Act.self, Reassign.self, Retarget.self, Message.self, Export.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Referrals you received (default) or sent.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Flag(help: "Those you (or your team) sent.") var sent = false
        @Option(help: "Only in this state: open, accepted, completed, declined, withdrawn, closed (its record deleted).") var state: String?
        @Option(help: ArgumentHelp("One record's referrals (sent and received) that you take part in.", valueName: "record-id")) var record:
            String?
        @Option(help: ArgumentHelp("The referrals of one registry patient's records.", valueName: "patient-id")) var patient: String?

        func validate() throws {
            if sent, record != nil || patient != nil {
                throw ValidationError("--record and --patient list both directions; leave out --sent.")
            }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            if record != nil || patient != nil {
                // Short ids as listings show them, for the record and the patient alike.
                var record = self.record, patient = self.patient
                if let given = record { record = try await RecordReference.resolve(given, with: client).uuidString.lowercased() }
                if let given = patient { patient = try await PatientReference.resolve(given, with: client) }
                ReferralText.list(try await client.referrals(record: record, patient: patient, state: state)).forEach { print($0) }
            } else {
                ReferralText.list(try await client.referrals(sent: sent, state: state)).forEach { print($0) }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "One referral with its reason and thread.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The referral's id, or its first characters.") var id: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            ReferralText.show(try await client.referral(try await ReferralTarget.id(id, client))).forEach { print($0) }
        }
    }

    struct Act: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "answer", abstract: "accept, decline or complete a referral to you; withdraw one you sent.",
            discussion: """
                Offline, the answer is kept sealed on this machine and sent by 'intake flush' (a later answer to \
                the same referral replaces it); if the referral moved on meanwhile, flush says so.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "accept, decline, complete or withdraw.") var action: String
        @Argument(help: "The referral's id, or its first characters.") var id: String

        func validate() throws {
            guard ["accept", "decline", "complete", "withdraw"].contains(action) else {
                throw ValidationError("The answer is accept, decline, complete or withdraw.")
            }
        }

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            switch try await ReferralTarget.answer(id, action, client: client, store: try storeOptions.open()) {
            case .sent(let referral): print("The referral \(referral.id.prefix(8)) is \(referral.state).")
            case .queued(let referral, let reason):
                print("Offline (\(reason)): your answer '\(action)' to referral \(referral.prefix(8)) is queued; 'intake flush' sends it.")
            }
        }
    }

    struct Retarget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retarget",
            abstract:
                "Send a referral nobody accepted yet elsewhere: to a member of your team, or to another team (the referrer or their coordinators)."
        )
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The referral's id, or its first characters.") var id: String
        @Option(help: "A member of your team, or another team (its name).") var to: String
        @Flag(help: "--to names a team, not a user (when a team and a user share the name).") var team = false

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let moved = try await ReferralTarget.retarget(client, id: try await ReferralTarget.id(id, client), to: to, teamOnly: team)
            print("The referral \(moved.id.prefix(8)) now goes to \(moved.assignee.map { "\($0) of " } ?? "")'\(moved.toTeam)'.")
        }
    }

    struct Reassign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reassign", abstract: "Give a referral to your team to one of its members (coordinators).")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The referral's id, or its first characters.") var id: String
        @Argument(help: "The member.") var user: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let referral = try await client.reassignReferral(try await ReferralTarget.id(id, client), to: user)
            print("The referral \(referral.id.prefix(8)) is now \(referral.assignee ?? user)'s.")
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "A team's referrals, sent and received, as CSV (coordinators): de-identified, never the reason or the thread.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The team.") var team: String
        @Option(help: "Write to this file (default: standard output).") var out: String?

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            let csv = try await client.referralsCSV(of: team)
            if let out {
                guard FileManager.default.createFile(atPath: out, contents: Data(csv.utf8), attributes: [.posixPermissions: 0o600]) else {
                    throw ValidationError("Cannot write \(out); check that its folder exists and is writable.")
                }
                print("Wrote \(max(0, csv.split(separator: "\r\n").count - 1)) referral(s) to \(out).")
            } else {
                Console.out(csv)
            }
        }
    }

    struct Message: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "message", abstract: "Write on a referral's thread; the other side is told.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var clientOptions: ClientOptions
        @Argument(help: "The referral's id, or its first characters.") var id: String
        @Argument(help: "The message.") var text: String

        func run() async throws {
            let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
            try await client.messageReferral(try await ReferralTarget.id(id, client), text: text)
            print("Written.")
        }
    }
}
