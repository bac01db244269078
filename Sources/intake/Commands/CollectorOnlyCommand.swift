import ArgumentParser
import Foundation
import IntakeServer
import IntakeService

/// `intake admin collector-only QUESTIONNAIRE on|off`: who of a team sees a questionnaire's records.
struct CollectorOnlyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collector-only",
        abstract: "Make a questionnaire's records visible only to the field workers who collected them (on), or to the whole team (off).",
        discussion: """
            Coordinators always see their team's records; grants and referrals still open a record to others. \
            Synced copies on field workers' machines drop what they may no longer see at their next sync.
            """)

    @OptionGroup var databaseOptions: ServerDatabaseOptions
    @Argument(help: "The questionnaire's id.") var questionnaire: String
    @Argument(help: "on or off.") var setting: String

    func run() async throws {
        guard ["on", "off"].contains(setting) else { throw ValidationError("Say on or off.") }
        let services = try await databaseOptions.services()
        guard try await services.questionnaires.published().contains(where: { $0.id == questionnaire }) else {
            throw ValidationError("No questionnaire '\(questionnaire.prefix(100))' is published; see 'intake questionnaire list'.")
        }
        let on = setting == "on"
        let changed = try await services.records.setCollectorOnly(questionnaireId: questionnaire, on, by: AuditText.localActor)
        let what = on ? "only to the field workers who collected them (and coordinators)" : "to their whole team"
        print("\(questionnaire)'s records are \(changed ? "now" : "already") visible \(what).")
    }
}
