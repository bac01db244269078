import Foundation
import IntakeClient
import IntakeCore
import IntakeForm
import IntakeStore

/// `intake fill`: picks the draft to work on (the one named, one chosen from a list on a
/// terminal, or a new record), then runs the form on it.
public struct FillSession {
    public var questionnaire: Questionnaire
    public var store: LocalStore
    public var client: IntakeClient?
    public var io: any FormIO
    /// Whether a person is at a terminal to pick a draft from a list.
    public var interactive: Bool
    /// Who is collecting, written into new records (``PatientResponse/collectorToCome`` before
    /// anyone signed in here).
    public var collector: String
    /// Whether `collector` was given for this fill (`--collector`): a resumed draft of a new record
    /// takes it too, as does one that had no collector yet.
    public var collectorGiven = false
    /// A registry patient a new record is about: its patient section comes filled in from the
    /// registry and the record points to them (`patientId`).
    public var patient: RemotePatient?
    /// The case a new record is a follow-up of (`intake fill --case`): the patient section comes
    /// filled in from it, and the record names it, its revision and the properties it reads.
    public var followedCase: FollowedCase?
    /// The person's language (`INTAKE_LANGUAGE`, the locale), for a new record when the
    /// questionnaire has it; a draft resumed keeps its own unless `--language` says otherwise.
    public var preferredLanguage: String?
    /// Another version of the questionnaire, for a draft begun on it (kept on this machine); nil
    /// when it is not there.
    public var versions: (@Sendable (QuestionnaireReference) -> Questionnaire?)?

    public init(
        questionnaire: Questionnaire, store: LocalStore, client: IntakeClient?, io: any FormIO, interactive: Bool, collector: String
    ) {
        self.questionnaire = questionnaire
        self.store = store
        self.client = client
        self.io = io
        self.interactive = interactive
        self.collector = collector
    }

    /// Fills one record: `resume` continues a draft (`draftId`, a prefix of its id, or the only
    /// one), `language` a translation of the questionnaire.
    public func run(resume: Bool, draftId: String?, language: String?) async throws -> FormRun.Ending {
        if let language, !questionnaire.languages.contains(language) {
            throw FieldworkError(
                "the questionnaire has no '\(language)' translation; choose one of \(questionnaire.languages.joined(separator: ", "))")
        }
        let say = FormLanguage(language ?? preferredLanguage ?? questionnaire.baseLanguage)
        io.setRightToLeft(say.isRightToLeft)
        guard var draft = try chooseDraft(resume: resume, draftId: draftId, say: say) else { return .done }
        if let follows = questionnaire.cases.follows, draft.response.caseLink == nil,
            draft.response.questionnaire == questionnaire.reference
        {
            throw FieldworkError(
                "\(questionnaire.id) is filled for a case of the list '\(follows.list)'; pick the case: intake fill --case ID "
                    + "('intake cases list' shows the cases on this machine; 'intake cases pull' brings new ones)")
        }
        if let followedCase, draft.response.caseLink?.id == followedCase.id {
            io.write(
                say(
                    .followUpOfCase(
                        id: String(followedCase.id.uuidString.lowercased().prefix(8)), list: followedCase.list,
                        name: "\(followedCase.patient.givenName) \(followedCase.patient.familyName)")))
        }
        let isNew = try store.draft(id: draft.response.id) == nil
        // Who fills a new record is known once someone signs in, or when given.
        if draft.baseRevision == nil, collector != PatientResponse.collectorToCome,
            collectorGiven || draft.response.collector == PatientResponse.collectorToCome
        {
            draft.response.collector = collector
        }
        if let patient, draft.response.patientId == UUID(uuidString: patient.id) {
            io.write(say(.registryPatient(name: "\(patient.givenName) \(patient.familyName)", id: String(patient.id.prefix(8)))))
        }
        if let chosen = language ?? (isNew ? preferredLanguage : nil) {
            draft.response.language = chosen == questionnaire.baseLanguage ? nil : chosen
        }
        // A draft begun on another version is filled on that version, when this machine has it.
        let filledOn =
            draft.response.questionnaire == questionnaire.reference
            ? questionnaire : versions?(draft.response.questionnaire) ?? questionnaire
        return try await FormRun(store: store, client: client, io: io).run(draft, questionnaire: filledOn)
    }

    /// The draft named by `draftId`, one picked from a list, or a new record; nil when input ends at the list.
    func chooseDraft(resume: Bool, draftId: String?, say: FormLanguage = FormLanguage(nil)) throws -> Draft? {
        if let draftId {
            let queued = try store.queueEntries().filter { $0.id.uuidString.lowercased().hasPrefix(draftId.lowercased()) }
            if draftId.count >= 4, queued.count == 1, try store.draft(id: queued[0].id) == nil {
                let short = String(queued[0].id.uuidString.lowercased().prefix(8))
                throw FieldworkError(
                    "record \(short) is finished and waits in the queue, it is not a draft; to send it with another collector: "
                        + "intake queue retry \(short) --collector NAME; to change its answers before it is sent: intake lookup --offline")
            }
            return try store.draft(idPrefix: draftId)
        }
        // Without a terminal to pick on, or with no drafts, a new record: the store stays locked.
        if try !resume && (!interactive || store.draftCount(questionnaireId: questionnaire.id) == 0) {
            return try newDraft()
        }
        let drafts = try store.summaries().filter { $0.questionnaire.id == questionnaire.id }
        if resume {
            if drafts.count == 1, let only = try store.draft(id: drafts[0].id) { return only }
            if drafts.isEmpty { throw FieldworkError("there is no draft of \(questionnaire.id) to resume; start one with 'intake fill'") }
            guard interactive else {
                throw FieldworkError(
                    "there are \(drafts.count) drafts; name one: intake fill --resume <id> (ids from 'intake drafts list')")
            }
        }
        guard !drafts.isEmpty, interactive else { return try newDraft() }
        io.write(say(.unfinishedDrafts))
        TextTable.drafts(drafts, say: say).forEach(io.write)
        while true {
            guard let line = io.readLine(prompt: say(.resumeWhich)) else { return nil }
            if line.isEmpty { return try newDraft() }
            if let number = TextFold.number(line), drafts.indices.contains(number - 1),
                let draft = try store.draft(id: drafts[number - 1].id)
            {
                return draft
            }
            io.write(say(.pickNumber(drafts.count)))
        }
    }

    func newDraft() throws -> Draft {
        var response = PatientResponse(questionnaire: questionnaire.reference, collector: collector, deviceId: try store.deviceId())
        if let followedCase {
            guard let link = followedCase.link(for: questionnaire) else {
                throw FieldworkError(
                    "case \(followedCase.id.uuidString.lowercased().prefix(8)) is of the list '\(followedCase.list)', and \(questionnaire.id) "
                        + (questionnaire.cases.follows.map { "follows '\($0.list)'" } ?? "follows no case list")
                        + "; fill it with the questionnaire that follows '\(followedCase.list)'")
            }
            response.caseLink = link
            response.patient = followedCase.patient
            response.patientId = followedCase.patientId
            // The form starts at the first question; ':back' still reaches the patient section.
            return Draft(response: response, cursor: QuestionPosition(section: 1, index: 1))
        }
        guard let patient, let id = UUID(uuidString: patient.id) else { return Draft(response: response) }
        response.patientId = id
        response.patient = PatientIdentification(
            givenName: patient.givenName, familyName: patient.familyName, dateOfBirth: patient.dateOfBirth.flatMap(LocalDate.init(iso:)),
            sex: patient.sex.flatMap(PatientIdentification.Sex.init(rawValue:)), externalId: patient.externalId)
        // The form starts at the first question; ':back' still reaches the patient section.
        return Draft(response: response, cursor: QuestionPosition(section: 1, index: 1))
    }
}
