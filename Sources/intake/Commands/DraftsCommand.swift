import ArgumentParser
import Foundation
import IntakeCore
import IntakeFieldwork
import IntakeStore

struct DraftsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drafts",
        abstract: "List, show and discard the unfinished records on this machine.",
        discussion: "Finished records wait in the queue instead: see 'intake queue list'.",
        subcommands: [List.self, Show.self, Discard.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List drafts, most recent first.")

        @OptionGroup var storeOptions: StoreOptions

        func run() throws {
            let summaries = try storeOptions.open().summaries()
            guard !summaries.isEmpty else {
                print("No drafts. Start one with 'intake fill'.")
                return
            }
            TextTable.drafts(summaries, say: Language.say).forEach { print($0) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one draft as JSON, patient details and answers included.")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The draft's id or its first characters.", valueName: "id"))
        var id: String

        func run() throws {
            let draft = try storeOptions.open().draft(idPrefix: id)
            printData(String(decoding: try draft.response.jsonData(pretty: true), as: UTF8.self))
        }
    }

    struct Discard: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a draft from this machine for good.")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The draft's id or its first characters.", valueName: "id"))
        var id: String

        func run() throws {
            let store = try storeOptions.open()
            let draft = try store.draft(idPrefix: id)
            try store.discard(id: draft.response.id)
            print("Discarded \(draft.response.id.uuidString.lowercased()).")
        }
    }
}
