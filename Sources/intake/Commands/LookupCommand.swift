import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeFieldwork
import IntakeForm

struct LookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Find a patient on the server and on this machine, then open the record to edit it.",
        discussion: """
            Searches by any of family name, given name, date of birth and external id (names match without \
            regard to case or accents, partially); with --offline, only this machine (drafts, the queue and \
            the synced copy 'intake sync' keeps). Pick a match to continue it in the form; saving a server \
            record sends an update based on the revision you loaded, and a record changed meanwhile is \
            explained instead of overwritten. After each record you may search again.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions

    @Option(help: "Family name, or part of it.") var familyName: String?
    @Option(help: "Given name, or part of it.") var givenName: String?
    @Option(help: "Date of birth, YYYY-MM-DD.") var dateOfBirth: String?
    @Option(help: "External id (case or file number).") var externalId: String?
    @Flag(help: "Search this machine only: drafts, the queue and the synced copy of the team's records (intake sync).")
    var offline = false
    @Option(
        help: ArgumentHelp(
            "Open this server record directly: its id, or its first characters as listings and the inbox show them.", valueName: "record-id"
        ))
    var id: String?

    func validate() throws {
        if let dateOfBirth, LocalDate(iso: dateOfBirth) == nil {
            throw ValidationError("Please give the date of birth as YYYY-MM-DD.")
        }
        if id != nil, offline || familyName != nil || givenName != nil || dateOfBirth != nil || externalId != nil {
            throw ValidationError("--id opens one server record; leave out the search fields and --offline.")
        }
    }

    func run() async throws {
        let store = try storeOptions.openUnlocked()
        let client = offline ? nil : try clientOptions.client(dataDirectory: storeOptions.directory)
        if offline {
            let copy = try store.syncState().map {
                "the synced copy of team '\($0.team)' (\($0.count) records, \(Timestamp.string(from: $0.syncedAt)))"
            }
            print(Language.say(.offlineSearch(copy: copy)))
        }
        Interruption.install()
        let session = LookupSession(
            store: store, client: client, io: StandardIO(), catalog: QuestionnaireCatalog.commandLine, say: Language.say)
        if let id {
            guard let client else { throw ValidationError("--id opens a server record; sign in with 'intake login' first.") }
            let record = try await RecordReference.resolve(id, with: client)
            try await FormEnding.run { try await session.run(record: record) }
            return
        }
        let criteria = LookupCriteria(
            familyName: familyName, givenName: givenName, dateOfBirth: dateOfBirth.flatMap(LocalDate.init(iso:)), externalId: externalId)
        try await FormEnding.run { try await session.run(criteria) }
    }
}
