import ArgumentParser

@main
struct IntakeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intake",
        abstract: "Collect health questionnaire data in the field, online or off.",
        discussion: """
            Start with 'intake fill' to fill in the bundled questionnaire. Answers are saved on this \
            machine as you type; see 'intake drafts list' for unfinished records.
            """,
        version: "0.1.0",
        subcommands: [
            FillCommand.self, DraftsCommand.self, QuestionnaireCommand.self, SampleCommand.self, ServeCommand.self,
            AdminCommand.self, LoginCommand.self, FlushCommand.self, QueueCommand.self, KeyCommand.self, LookupCommand.self,
            ExportCommand.self, TeamCommand.self, InvitationCommand.self, InboxCommand.self,
            AnnounceCommand.self, ReferCommand.self, ReferralsCommand.self, WebhookCommand.self, PatientCommand.self, HistoryCommand.self,
            DeleteCommand.self, SyncCommand.self, GrantCommand.self, TransferCommand.self,
        ]
    )
}
