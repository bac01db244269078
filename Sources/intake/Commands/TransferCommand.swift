import ArgumentParser
import Foundation
import IntakeClient

/// `intake transfer ID --to-team NAME [--patient]`: a coordinator moves a record, or a patient
/// with all their records, to another team.
struct TransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfer",
        abstract: "Move a record, or a registry patient with all their records, to another team (coordinators).",
        discussion: """
            The other team's members see it from then on and yours no longer do; synced copies and incremental exports \
            of your team are told it left. The coordinators of both teams are notified. A record of a registry patient \
            moves only with the patient (--patient).
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Argument(help: "The record's id, or with --patient the patient's (whole, or its first characters as listings show them).") var id:
        String
    @Option(help: "The team to move it to.") var toTeam: String
    @Flag(help: "The id is a registry patient's: move them and all their records.") var patient = false

    func run() async throws {
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        guard patient else {
            let moved = try await client.transfer(try await RecordReference.resolve(id, with: client), patient: false, toTeam: toTeam)
            print("Moved \(moved.count) record(s) to team '\(toTeam)'.")
            return
        }
        guard let uuid = UUID(uuidString: try await PatientReference.resolve(id, with: client)) else {
            throw ValidationError("The server cannot be reached to say which patient '\(id.prefix(40))' is; try again when it can.")
        }
        let moved = try await client.transfer(uuid, patient: patient, toTeam: toTeam)
        print("Moved \(moved.count) record(s) to team '\(toTeam)'\(patient ? " with the patient" : "").")
    }
}
