import Foundation
import IntakeClient
import IntakeCore
import IntakeForm
import IntakeStore

/// `intake lookup`: searches the server and this machine, lets the person pick a match, opens
/// it in the form, and asks for the next search until they stop.
public struct LookupSession {
    public var store: LocalStore
    public var client: IntakeClient?
    public var io: any FormIO
    /// Where questionnaire versions this machine has are found.
    public var catalog: QuestionnaireCatalog
    /// The language of the search prompts (a record opened speaks its own).
    public var say: FormLanguage

    public init(
        store: LocalStore, client: IntakeClient?, io: any FormIO, catalog: QuestionnaireCatalog, say: FormLanguage = FormLanguage(nil)
    ) {
        self.store = store
        self.client = client
        self.io = io
        self.catalog = catalog
        self.say = say
    }

    /// Searches for `criteria` first (asks when it is empty), and goes on until the person stops
    /// or a record cannot be saved.
    public func run(_ criteria: LookupCriteria) async throws -> FormRun.Ending {
        let finder = PatientFinder(store: store, client: client)
        guard var criteria = criteria.isEmpty ? askCriteria() : criteria else { return .done }
        while true {
            let result = try await finder.find(criteria)
            if let problem = result.serverProblem { io.write(say(.serverNotSearched("\(problem)"))) }
            if let match = choose(from: result.matches) {
                let draft = try await finder.open(match)
                let ending = try await FormRun(store: store, client: client, io: io).run(
                    draft, questionnaire: try await questionnaire(for: draft))
                if ending != .done { return ending }
                io.setRightToLeft(say.isRightToLeft)
            }
            guard let next = askCriteria() else { return .done }
            criteria = next
        }
    }

    /// Opens the server record `id` in the form at its current revision, as picking it from a
    /// search would (an alert's record, a referred one).
    public func run(record id: UUID) async throws -> FormRun.Ending {
        let finder = PatientFinder(store: store, client: client)
        let draft = try await finder.open(PatientFinder.Match(source: .server, id: id, patient: PatientIdentification(), revision: nil))
        return try await FormRun(store: store, client: client, io: io).run(draft, questionnaire: try await questionnaire(for: draft))
    }

    /// Asks for the next search; nil when the person presses Enter at every field or input ends.
    func askCriteria() -> LookupCriteria? {
        io.setRightToLeft(say.isRightToLeft)
        io.write(say(.searchForPatient))
        guard let family = io.readLine(prompt: say(.searchPrompt(.familyName))),
            let given = io.readLine(prompt: say(.searchPrompt(.givenName))),
            let birth = io.readLine(prompt: say(.searchPrompt(.dateOfBirth))),
            let external = io.readLine(prompt: say(.searchPrompt(.externalId)))
        else { return nil }
        func value(_ text: String) -> String? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed
        }
        let criteria = LookupCriteria(
            familyName: value(family), givenName: value(given),
            dateOfBirth: value(birth).map(TextFold.asciiDigits).flatMap(LocalDate.init(iso:)),
            externalId: value(external))
        if value(birth) != nil, criteria.dateOfBirth == nil { io.write(say(.dateOfBirthLeftOut)) }
        return criteria.isEmpty ? nil : criteria
    }

    /// The match the person picks by number; nil for none.
    func choose(from matches: [PatientFinder.Match]) -> PatientFinder.Match? {
        guard !matches.isEmpty else {
            io.write(say(.noPatientMatches))
            return nil
        }
        let widths = [3, 7, 9, 28, 11, 8]
        let columns = say(.matchColumns).split(separator: "|").map(String.init)
        io.write(TextTable.row(columns, widths: widths, rightToLeft: say.isRightToLeft))
        for (number, match) in matches.enumerated() {
            let p = match.patient
            io.write(
                TextTable.row(
                    "\(number + 1)", say(.matchSource(match.source.rawValue)), String(match.id.uuidString.lowercased().prefix(8)),
                    "\(p.familyName), \(p.givenName)", p.dateOfBirth?.description ?? "-", p.sex.map { say(.sex($0)) } ?? "-",
                    p.externalId ?? "-",
                    widths: widths))
        }
        while true {
            guard let line = io.readLine(prompt: say(.openWhich)), !line.isEmpty else { return nil }
            if let number = TextFold.number(line), matches.indices.contains(number - 1) {
                return matches[number - 1]
            }
            io.write(say(.pickNumber(matches.count)))
        }
    }

    /// The questionnaire version the record was collected with: from this machine if it has that
    /// version, else from the server.
    func questionnaire(for draft: Draft) async throws -> Questionnaire {
        let reference = draft.response.questionnaire
        if let folder = try? catalog.folder(for: reference.id), let local = try? QuestionnaireLoader.load(directory: folder),
            local.reference == reference
        {
            return local
        }
        guard let client else {
            throw FieldworkError("this record uses \(reference), which this machine does not have; connect to the server to fetch it")
        }
        return try await client.questionnaire(reference)
    }
}
