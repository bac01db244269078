import ArgumentParser
import Foundation
import IntakeCore
import IntakeStore

struct DraftsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drafts",
        abstract: "List, show and discard the records kept on this machine.",
        subcommands: [List.self, Show.self, Discard.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List unfinished drafts (with --all, completed records too).")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(help: "Include completed records.")
        var all = false

        func run() throws {
            let store = try storeOptions.open()
            let summaries = try store.summaries(including: all ? [.draft, .complete] : [.draft])
            guard !summaries.isEmpty else {
                print(all ? "No records on this machine." : "No drafts. Start one with 'intake fill'.")
                return
            }
            DraftTable.lines(summaries).forEach { print($0) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one record as JSON, patient details and answers included.")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The record's id or its first characters.", valueName: "id"))
        var id: String

        func run() throws {
            let draft = try storeOptions.open().draft(idPrefix: id)
            print(String(decoding: try draft.response.jsonData(pretty: true), as: UTF8.self))
        }
    }

    struct Discard: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a draft from this machine for good.")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The draft's id or its first characters.", valueName: "id"))
        var id: String

        @Flag(help: "Also discard a completed record.")
        var force = false

        func run() throws {
            let store = try storeOptions.open()
            let draft = try store.draft(idPrefix: id)
            guard draft.response.status == .draft || force else {
                throw ValidationError("Record \(id) is complete; add --force to delete it anyway.")
            }
            try store.discard(id: draft.response.id)
            print("Discarded \(draft.response.id.uuidString.lowercased()).")
        }
    }
}
