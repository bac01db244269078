import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeForm
import IntakeStore

struct LookupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Find a patient on the server and on this machine, then open the record to edit it.",
        discussion: """
            Searches by any of family name, given name, date of birth and external id (names match without \
            regard to case or accents, partially). Pick a match to continue it in the form; saving a server \
            record sends an update based on the revision you loaded, and a record changed meanwhile is \
            explained instead of overwritten. After each record you may search again.
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions

    @Option(help: "Family name, or part of it.") var familyName: String?
    @Option(help: "Given name, or part of it.") var givenName: String?
    @Option(help: "Date of birth, YYYY-MM-DD.") var dateOfBirth: String?
    @Option(help: "External id (case or file number).") var externalId: String?

    func validate() throws {
        if let dateOfBirth, LocalDate(iso: dateOfBirth) == nil {
            throw ValidationError("Please give the date of birth as YYYY-MM-DD.")
        }
    }

    func run() async throws {
        let store = try storeOptions.open()
        let client = try clientOptions.client(dataDirectory: storeOptions.directory)
        let finder = PatientFinder(store: store, client: client)
        let io = StandardIO()
        Interruption.install()
        var criteria = LookupCriteria(
            familyName: familyName, givenName: givenName, dateOfBirth: dateOfBirth.flatMap(LocalDate.init(iso:)), externalId: externalId)
        if criteria.isEmpty { guard let asked = askCriteria(io) else { return } ; criteria = asked }
        while true {
            let result = try await finder.find(criteria)
            if let problem = result.serverProblem { io.write("Server not searched (\(problem)); showing matches on this machine only.") }
            if let match = try choose(from: result.matches, io: io) {
                let draft = try await finder.open(match)
                try await FormRun(store: store, client: client, io: io).run(draft, questionnaire: try await questionnaire(for: draft, client: client))
            }
            guard let next = askCriteria(io) else { return }
            criteria = next
        }
    }

    /// Asks for the next search; nil when the person presses Enter at every field or input ends.
    private func askCriteria(_ io: StandardIO) -> LookupCriteria? {
        io.write("\nSearch for a patient (press Enter to skip a field; Enter at all of them to stop).")
        guard let family = io.readLine(prompt: "Family name: "), let given = io.readLine(prompt: "Given name: "),
            let birth = io.readLine(prompt: "Date of birth (YYYY-MM-DD): "), let external = io.readLine(prompt: "External id: ")
        else { return nil }
        func value(_ text: String) -> String? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
        let criteria = LookupCriteria(
            familyName: value(family), givenName: value(given), dateOfBirth: value(birth).flatMap(LocalDate.init(iso:)),
            externalId: value(external))
        if value(birth) != nil, criteria.dateOfBirth == nil { io.write("(The date of birth was not YYYY-MM-DD and is left out.)") }
        return criteria.isEmpty ? nil : criteria
    }

    private func choose(from matches: [PatientFinder.Match], io: StandardIO) throws -> PatientFinder.Match? {
        guard !matches.isEmpty else {
            io.write("No patient matches.")
            return nil
        }
        io.write(DraftTable.row("#", "WHERE", "ID", "NAME", "BORN", "SEX", "EXTERNAL ID", widths: [3, 7, 9, 28, 11, 8]))
        for (number, match) in matches.enumerated() {
            let p = match.patient
            io.write(
                DraftTable.row(
                    "\(number + 1)", match.source.rawValue, String(match.id.uuidString.lowercased().prefix(8)),
                    "\(p.familyName), \(p.givenName)", p.dateOfBirth?.description ?? "-", p.sex?.rawValue ?? "-", p.externalId ?? "-",
                    widths: [3, 7, 9, 28, 11, 8]))
        }
        while true {
            guard let line = io.readLine(prompt: "Open which (number), or press Enter to search again? "), !line.isEmpty else { return nil }
            if let number = Int(line), matches.indices.contains(number - 1) { return matches[number - 1] }
            io.write("Please type a number from 1 to \(matches.count), or press Enter.")
        }
    }

    /// The questionnaire version the record was collected with: from this machine if it has that
    /// version, else from the server.
    private func questionnaire(for draft: Draft, client: IntakeClient?) async throws -> Questionnaire {
        let reference = draft.response.questionnaire
        if let folder = try? QuestionnaireCatalog.commandLine.folder(for: reference.id), let local = try? QuestionnaireLoader.load(directory: folder),
            local.reference == reference
        {
            return local
        }
        guard let client else {
            throw ValidationError("This record uses \(reference), which this machine does not have; connect to the server to fetch it.")
        }
        return try await client.questionnaire(reference)
    }
}
