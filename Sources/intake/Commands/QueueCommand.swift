import ArgumentParser
import Foundation
import IntakeFieldwork
import IntakeStore

struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "See and manage the encrypted queue of finished records waiting for upload.",
        subcommands: [List.self, Show.self, Retry.self, Export.self, Import.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List queued records: ids, states, attempts and reasons; no patient data.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let store = try storeOptions.open()
            let entries = try store.queueEntries()
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyy-MM-dd HH:mm"
            if entries.isEmpty {
                print("The queue is empty.")
            } else {
                print(TextTable.row("ID", "STATE", "ATTEMPTS", "QUEUED", "KIND", "REASON", widths: [9, 9, 9, 17, 9]))
                for entry in entries {
                    print(
                        TextTable.row(
                            String(entry.id.uuidString.lowercased().prefix(8)), entry.state.rawValue, "\(entry.attempts)",
                            formatter.string(from: entry.enqueuedAt), entry.baseRevision == nil ? "new" : "edit", entry.reason ?? "",
                            widths: [9, 9, 9, 17, 9]))
                }
                let pending = entries.filter { $0.state == .pending }.count
                print("\(pending) waiting, \(entries.count - pending) set aside. Upload with 'intake flush'; put set-aside records back with 'intake queue retry'.")
            }
            let answers = try store.pendingActionCount()
            if answers > 0 { print("\(answers) answer(s) to referrals given offline wait too; 'intake flush' sends them.") }
            let quarantined = try store.quarantined()
            if !quarantined.isEmpty {
                print("\(quarantined.count) damaged entr\(quarantined.count == 1 ? "y" : "ies") quarantined (could not be decrypted): " + quarantined.map { String($0.id.prefix(8)) }.joined(separator: ", "))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one queued record as JSON (decrypted), patient details included.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("The record's id or its first characters.", valueName: "id")) var id: String

        func run() throws {
            let queued = try storeOptions.open().queuedRecord(idPrefix: id)
            print(String(decoding: try queued.response.jsonData(pretty: true), as: UTF8.self))
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put set-aside records back in line for the next flush.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("A record's id or first characters; all set-aside records when left out.", valueName: "id")) var id: String?

        func run() throws {
            let count = try storeOptions.open().retry(idPrefix: id)
            print("\(count) record\(count == 1 ? "" : "s") back in line; run 'intake flush'.")
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an encrypted backup of the queue, e.g. to carry on a USB stick to another machine.",
            discussion: "The backup is sealed with a passphrase you choose (asked, or the first line of standard input with --passphrase-stdin).")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("The backup file to write.", valueName: "file")) var file: String
        @Flag(help: "Read the backup's passphrase from standard input.") var passphraseStdin = false

        func run() throws {
            let store = try storeOptions.open()
            let passphrase = try PasswordInput.read(fromStdin: passphraseStdin, prompt: "Passphrase for the backup: ", minimum: 8)
            let count = try store.exportQueue(to: URL(fileURLWithPath: file), passphrase: passphrase)
            print("Wrote \(count) queued record\(count == 1 ? "" : "s"), encrypted, to \(file). Import on another machine with 'intake queue import \(file)'.")
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add the records of a queue backup to this machine's queue (still encrypted), then flush.")
        @OptionGroup var storeOptions: StoreOptions
        @Argument(help: ArgumentHelp("The backup file.", valueName: "file")) var file: String
        @Flag(help: "Read the backup's passphrase from standard input.") var passphraseStdin = false

        func run() throws {
            let store = try storeOptions.open()
            let passphrase = try PasswordInput.read(fromStdin: passphraseStdin, prompt: "Passphrase of the backup: ", confirm: false)
            let result = try store.importQueue(from: URL(fileURLWithPath: file), passphrase: passphrase)
            print("Imported \(result.imported) record\(result.imported == 1 ? "" : "s") (\(result.alreadyQueued) already queued here\(result.damaged > 0 ? ", \(result.damaged) damaged and skipped" : "")). Upload with 'intake flush'.")
        }
    }
}
