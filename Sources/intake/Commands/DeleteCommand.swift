import ArgumentParser
import Foundation
import IntakeClient

/// `intake delete RECORD-ID --reason TEXT`: a coordinator deletes a record of their team.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a record of your team (coordinators): its answers and history go, a tombstone stays.",
        discussion: """
            The server keeps who deleted the record, when and why; reading it afterwards answers that it was deleted, \
            sending it again under its id is refused, and the next incremental export lists it in removed.csv. \
            This cannot be undone.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Argument(help: "The record's id, or its first characters.") var id: String
    @Option(help: "Why it is deleted (kept with the tombstone; say why, not who).") var reason: String

    func run() async throws {
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        let record = try await RecordReference.resolve(id, with: client)
        let tombstone = try await client.deleteRecord(id: record, reason: reason)
        print("Deleted record \(tombstone.id) (it was at revision \(tombstone.revision)) at \(tombstone.deletedAt).")
    }
}
