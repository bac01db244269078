import ArgumentParser
import Foundation
import IntakeStore

struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "See and change how the local store's encryption key is protected.",
        subcommands: [Status.self, ChangePassphrase.self, Rotate.self, Lock.self],
        defaultSubcommand: Status.self
    )

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Say whether a device key file or a passphrase protects the store.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            switch try storeOptions.open().keyProtection() {
            case .deviceKey:
                print(
                    "Protected by the device key file \(storeOptions.directory.appendingPathComponent("device.key").path). Add a passphrase with 'intake key change-passphrase'."
                )
            case .passphrase: print("Protected by a passphrase (INTAKE_PASSPHRASE, or asked).")
            case nil: print("No key yet; one is made when the first record is saved.")
            }
        }
    }

    struct ChangePassphrase: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change-passphrase",
            abstract: "Protect the store with a new passphrase (or, with --remove, with the device key file again).",
            discussion:
                "The current passphrase comes from INTAKE_PASSPHRASE or is asked; the new one is asked twice, or read with --new-passphrase-stdin."
        )
        @OptionGroup var storeOptions: StoreOptions
        @Flag(help: "Go back to the device key file, with no passphrase.") var remove = false
        @Flag(help: "Read the new passphrase from standard input.") var newPassphraseStdin = false

        func run() throws {
            let store = try storeOptions.open()
            _ = try store.summaries()  // unlocks with the current passphrase first
            let new = remove ? nil : try PasswordInput.read(fromStdin: newPassphraseStdin, prompt: "New passphrase: ", minimum: 8)
            try store.changePassphrase(to: new)
            print(remove ? "The store is protected by the device key file now." : "The passphrase is changed. Nothing else was touched.")
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate", abstract: "Make a new data key and re-seal every draft and queued record with it.")
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let count = try storeOptions.open().rotateKey()
            print("New key in use; \(count) record\(count == 1 ? "" : "s") re-sealed.")
        }
    }

    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lock",
            abstract: "Lock the store now: the next command asks for the passphrase again.",
            discussion: """
                Once typed, the passphrase unlocks the store for this login session until it has not \
                been used for INTAKE_UNLOCK_MINUTES (30 by default; 0 asks every time). The unlocked \
                key is held by the kernel's keyring, never written to disk. Lock before leaving the \
                machine.
                """)
        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let locked = try storeOptions.open().lock()
            print(locked ? "Locked: the next command asks for the passphrase." : "The store was not unlocked; nothing to lock.")
        }
    }
}
