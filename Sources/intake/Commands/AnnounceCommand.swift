import ArgumentParser
import Foundation
import IntakeClient

struct AnnounceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "announce",
        abstract: "Announce something to your team (coordinators), or to a team or everyone (admins).",
        discussion: "Each recipient finds it in 'intake inbox'. Everyone it reaches reads it: never name a patient in an announcement.")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions
    @Argument(help: "What to announce (up to 2,000 characters).") var text: String
    @Option(help: "The team (a coordinator's own by default; for an admin, leave it out to announce to everyone).") var team: String?

    func run() async throws {
        let client = try clientOptions.requireClient(dataDirectory: storeOptions.directory)
        let sent = try await client.announce(text, to: team)
        print(
            "Announced to \(sent.team.map { "'\($0)'" } ?? "everyone"): \(sent.recipients) \(sent.recipients == 1 ? "person" : "people") notified."
        )
    }
}
