import ArgumentParser
import Foundation
import IntakeFieldwork
import IntakeStore
import IntakeTerminal

struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "See and manage the encrypted queue of finished records waiting for upload.",
        subcommands: [List.self, Show.self, Retry.self, Discard.self, Export.self, Import.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List queued records: ids, states, attempts and reasons; no patient data.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let store = try storeOptions.open()
            let output = StandardOutput(rightToLeft: Language.say.isRightToLeft)
            TextTable.queue(try store.queueEntries(), say: Language.say).forEach(output.write)
            let answers = try store.pendingActionCount()
            if answers > 0 {
                print(
                    "\(answers) answer(s) to referrals and change(s) to the patient registry made offline wait too; 'intake flush' sends them."
                )
            }
            if try store.setAsideActionCount() > 0 {
                // Kept aside: the server refused them for a reason a person settles.
                try store.unlock()
                for entry in try store.pendingActions(includingSetAside: true) where entry.reason != nil && entry.action.kind.isRegistryWork
                {
                    print("set aside  \(entry.id.uuidString.lowercased().prefix(8))  \(entry.reason ?? "")")
                }
                print("Discard one with 'intake queue discard ID' once it is settled.")
            }
            let quarantined = try store.quarantined()
            if !quarantined.isEmpty {
                print(
                    "\(quarantined.count) damaged entr\(quarantined.count == 1 ? "y" : "ies") quarantined (could not be decrypted): "
                        + quarantined.map { String($0.id.prefix(8)) }.joined(separator: ", "))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Show one queued record as JSON (decrypted), patient details included.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("The record's id or its first characters.", valueName: "id")) var id: String

        func run() throws {
            let queued = try storeOptions.open().queuedRecord(idPrefix: id)
            printData(String(decoding: try queued.response.jsonData(pretty: true), as: UTF8.self))
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry", abstract: "Put set-aside records back in line for the next flush.",
            discussion: """
                A record the server set aside because its collector is not a member of the team (filled before \
                anyone signed in on this machine, or with a login name the server does not know) goes back \
                with --collector, a member's user name: 'intake queue retry --collector amina'. An edit of a \
                record already on the server keeps the collector it was stored with.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("A record's id or first characters; all set-aside records when left out.", valueName: "id")) var id:
            String?
        @Option(
            help: ArgumentHelp("The user name the new records among them are sent as: a member of the server's team.", valueName: "name"))
        var collector: String?

        func validate() throws {
            if let collector, collector.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("Please give --collector a member's user name (see 'intake team members').")
            }
        }

        func run() throws {
            let (count, changed) = try storeOptions.open().retry(idPrefix: id, collector: collector)
            let given = collector.map { changed > 0 ? " (\(changed) now collected by \($0))" : "" } ?? ""
            print("\(count) record\(count == 1 ? "" : "s") back in line\(given); run 'intake flush'.")
        }
    }

    struct Discard: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "discard",
            abstract: "Delete a queued record from this machine for good: it is never sent.",
            discussion: """
                For a record that must not reach the server (entered by mistake, a test). To change \
                it before it is sent, resume it instead: 'intake lookup' opens queued records. Asks \
                to type the id again unless --yes is given.
                """)
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("The record's id or its first characters.", valueName: "id")) var id: String
        @Flag(help: "Do not ask to confirm.") var yes = false

        func run() throws {
            let store = try storeOptions.open()
            let entry = try store.queueEntries().filter { $0.id.uuidString.lowercased().hasPrefix(id.lowercased()) }
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw ValidationError("Discarding cannot be undone; add --yes to discard without being asked.")
                }
                let short = entry.first.map { String($0.id.uuidString.lowercased().prefix(8)) } ?? id
                Console.out("The record \(short) will never be sent and cannot be brought back. Type \(short) to discard it: ")
                guard readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces) == short else {
                    print("Nothing was discarded.")
                    return
                }
            }
            // A queued action (a registration set aside) by its id, else a record.
            if let action = try store.actionId(prefix: id) {
                try store.removeAction(action)
                print("Discarded \(action.uuidString.lowercased().prefix(8)); it will not be sent.")
                return
            }
            let discarded = try store.discardFromQueue(idPrefix: id)
            print("Discarded \(discarded.prefix(8)); it will not be sent.")
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write an encrypted backup of the queue, e.g. to carry on a USB stick to another machine.",
            discussion:
                "The backup is sealed with a passphrase you choose (asked, or the first line of standard input with --passphrase-stdin).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("The backup file to write.", valueName: "file")) var file: String
        @Flag(help: "Read the backup's passphrase from standard input.") var passphraseStdin = false

        func run() throws {
            let store = try storeOptions.open()
            let passphrase = try PasswordInput.read(fromStdin: passphraseStdin, prompt: "Passphrase for the backup: ", minimum: 8)
            let count = try store.exportQueue(to: URL(fileURLWithPath: file), passphrase: passphrase)
            print(
                "Wrote \(count) queued record\(count == 1 ? "" : "s"), encrypted, to \(file). Import on another machine with 'intake queue import \(file)'."
            )
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import", abstract: "Add the records of a queue backup to this machine's queue (still encrypted), then flush.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("The backup file.", valueName: "file")) var file: String
        @Flag(help: "Read the backup's passphrase from standard input.") var passphraseStdin = false

        func run() throws {
            let store = try storeOptions.open()
            let passphrase = try PasswordInput.read(fromStdin: passphraseStdin, prompt: "Passphrase of the backup: ", confirm: false)
            let result = try store.importQueue(from: URL(fileURLWithPath: file), passphrase: passphrase)
            print(
                "Imported \(result.imported) record\(result.imported == 1 ? "" : "s") (\(result.alreadyQueued) already queued here\(result.damaged > 0 ? ", \(result.damaged) damaged and skipped" : "")). Upload with 'intake flush'."
            )
        }
    }
}
