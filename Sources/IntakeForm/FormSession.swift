import Foundation
import IntakeCore

/// The line-based form: the patient section and the questionnaire's sections, asked in order,
/// with commands to move around, review and finish.
///
/// Every answer updates the one ``PatientResponse`` and is handed to `save` at once, so stopping
/// at any moment loses at most the line being typed.
public final class FormSession {
    public enum Outcome: Equatable, Sendable {
        /// The record passed validation and was saved as complete (still in the drafts, for the caller to send or queue).
        case completed(PatientResponse)
        /// The person typed `:quit`; the draft is saved.
        case quit(Draft)
        /// Input ended before the record was finished; the draft is saved.
        case inputEnded(Draft)
        /// The person quit (or input ended) before typing anything: no draft was kept.
        case abandoned(inputEnded: Bool)
    }

    public let questionnaire: Questionnaire
    public internal(set) var response: PatientResponse
    let validator: Validator
    let io: any FormIO
    let save: (Draft) throws -> Void
    /// Removes a draft that holds nothing, so quitting before typing anything leaves none.
    let discard: ((UUID) throws -> Void)?
    /// Keeps an attached file's bytes (sealed in the local store) before its answer is saved;
    /// nil where no file can be kept, and file questions are refused.
    let keepFile: ((AttachmentRef, Data) throws -> Void)?
    let language: String?
    /// What the form says, in the record's language.
    let say: FormLanguage
    let input: AnswerInput
    let display: AnswerDisplay
    var place: FormPlace
    /// For an edit of a server record: the revision it was loaded at.
    let baseRevision: Int?
    /// Whether the last save failed, so the latest answers are only in memory.
    var unsaved = false
    /// The place whose question was last shown, so a re-prompt does not repeat it.
    var shownPlace: FormPlace?
    /// The choices the screen numbered last for the question at hand (number → choice): a
    /// number typed means one of them, never a place in a list the screen does not show.
    var numbered: [Int: Choice] = [:]
    var announcedSection: Int?
    /// The repeat instances the form is inside, outermost first (see ``InstanceFrame``).
    var frames: [InstanceFrame] = []
    /// The instance removed last at a repeat, which `undo` puts back.
    var lastRemoved: RemovedInstance?

    /// An instance removed with `-N`: its repeat (and the instances it is inside), its place, its
    /// answers, and the list it left.
    struct RemovedInstance {
        var group: QuestionPosition
        var inside: [Int]
        var number: Int
        var instance: [Int: Answer]
        var after: [[Int: Answer]]
    }

    /// - Parameters:
    ///   - draft: the record to fill; a new one or one from the local store.
    ///   - save: called with the draft after every change; an error stops the form.
    public init(
        questionnaire: Questionnaire, draft: Draft, io: any FormIO, today: LocalDate = .today(),
        discard: ((UUID) throws -> Void)? = nil, keepFile: ((AttachmentRef, Data) throws -> Void)? = nil,
        save: @escaping (Draft) throws -> Void
    ) throws(FormError) {
        guard draft.response.questionnaire == questionnaire.reference else {
            throw FormError.versionMismatch(draft: draft.response.questionnaire, loaded: questionnaire.reference)
        }
        if let language = draft.response.language, !questionnaire.languages.contains(language) {
            throw FormError.unknownLanguage(language, available: questionnaire.languages)
        }
        self.questionnaire = questionnaire
        self.response = draft.response
        self.validator = Validator(questionnaire: questionnaire, today: today)
        self.io = io
        self.save = save
        self.discard = discard
        self.keepFile = keepFile
        self.language = draft.response.language
        self.say = FormLanguage(draft.response.language ?? questionnaire.baseLanguage)
        io.setRightToLeft(say.isRightToLeft)
        self.input = AnswerInput(language: draft.response.language, validator: validator, say: say)
        self.display = AnswerDisplay(language: draft.response.language, say: say)
        self.place = FormPlace(cursor: draft.cursor, sectionCount: questionnaire.sections.count)
        self.baseRevision = draft.baseRevision
    }

    /// The record with any open instance written back; a draft left inside an instance resumes
    /// at its repeat.
    var draft: Draft {
        let cursor = frames.first.map { FormPlace.question($0.group.position) } ?? place
        return Draft(response: folded, cursor: cursor.cursor(sectionCount: questionnaire.sections.count), baseRevision: baseRevision)
    }

    /// Runs the form until the record is complete, the person quits, or input ends.
    public func run() throws -> Outcome {
        introduce()
        // What calculations read may be there before any answer: the case a follow-up is filled
        // for, a registry patient's date of birth.
        if questionnaire.hasCalculations { recalculate() }
        while true {
            if let outcome = try step() { return outcome }
        }
    }

    private func introduce() {
        let title = questionnaire.title.text(in: language)
        io.write(say(.formTitle(title: title, id: questionnaire.id, version: questionnaire.version)))
        io.write(say(.recordId(response.id.uuidString.lowercased())))
        if response.answerCount > 0 || place != .patient(.givenName) {
            io.write(say(.resuming(at: describe(place), answers: response.answerCount)))
        }
        io.write(say(.typeHelp))
    }

    /// Asks for the current place once; returns an outcome when the form is over.
    private func step() throws -> Outcome? {
        if shownPlace != place {
            announceSectionIfNeeded()
            show(place)
            shownPlace = place
        }
        if !isAsked(place) {
            // A note or a calculated value is shown, and the form goes on.
            try move(to: next(after: place))
            return nil
        }
        if case .question(let position) = place, let question = questionnaire.question(at: position),
            case .compound(let fields) = question.type
        {
            return try answerCompound(question, fields: fields)
        }
        guard let line = io.readLine(prompt: "> ") else {
            if try discardIfBlank() { return .abandoned(inputEnded: true) }
            // Nobody is left to tell: a draft that cannot be saved now is an error, said as such.
            try save(draft)
            return .inputEnded(draft)
        }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if ControlCharacters.contained(in: trimmed) {
            io.write(say(.controlCharacter))
            return nil
        }
        if trimmed.hasPrefix(":") {
            return try perform(trimmed)
        }
        switch place {
        case .patient(let field): try answerPatient(field, trimmed)
        case .question(let position):
            if let group = questionnaire.question(at: position), group.isRepeat {
                try answerRepeat(group, trimmed)
            } else {
                try answerQuestion(at: position, trimmed)
            }
        case .end:
            if ["finish", "yes", "y"].contains(trimmed.lowercased()) || TextFold.fold(trimmed) == TextFold.fold(say(.yes)) {
                return try finish()
            }
            io.write(say(.finishPrompt))
        }
        return nil
    }

    /// Saves the draft. When the local store cannot write (a full disk), the person is told at
    /// the prompt and the form goes on: the answers stay in memory and are saved with the next
    /// one that can be; nothing saved before is touched.
    func persist() throws {
        do {
            try save(draft)
            if unsaved {
                unsaved = false
                io.write(say(.savedAgain))
            }
        } catch {
            if !unsaved {
                io.write(say(.couldNotSave("\(error)")))
            }
            unsaved = true
        }
    }

    /// Whether nothing was typed: no answer, no patient detail, no registry patient.
    var isBlank: Bool {
        response.answerCount == 0 && response.patient == PatientIdentification() && response.patientId == nil
    }

    /// Removes the draft when nothing was typed in it (an edit of a server record is never
    /// removed); whether it was.
    func discardIfBlank() throws -> Bool {
        guard isBlank, baseRevision == nil, let discard else { return false }
        try discard(response.id)
        return true
    }

    /// Moves to `newPlace` and saves the position, so a resumed draft starts there.
    func move(to newPlace: FormPlace) throws {
        // Leaving an instance's questions closes the instance (its answers go into its repeat).
        var closed = false
        while !frames.isEmpty, !isInOpenInstance(newPlace) {
            closeInstance()
            closed = true
        }
        if closed { recalculate() }
        place = newPlace
        try persist()
    }

    func describe(_ place: FormPlace) -> FormText.Place {
        switch place {
        case .patient(let field): .patient(field)
        case .question(let position): .question("\(position)\(instanceTag)")
        case .end: .end
        }
    }

    private func announceSectionIfNeeded() {
        let section: Int
        switch place {
        case .patient: section = 0
        case .question(let position): section = position.section
        case .end: section = questionnaire.sections.count + 1
        }
        guard section != announcedSection else { return }
        announcedSection = section
        if section == 0 {
            io.write("\n" + say(.patientHeading))
        } else if let s = questionnaire.section(section) {
            io.write("\n" + say(.sectionHeading(number: s.number, of: questionnaire.sections.count, title: s.title.text(in: language))))
        }
    }
}

/// Why a form cannot start.
public enum FormError: Error, Equatable, CustomStringConvertible {
    case versionMismatch(draft: QuestionnaireReference, loaded: QuestionnaireReference)
    case unknownLanguage(String, available: [String])

    public var description: String {
        switch self {
        case .versionMismatch(let draft, let loaded):
            "this draft was started with \(draft), but the questionnaire loaded is \(loaded); "
                + "fill it with the questionnaire version it was started with (--questionnaire), or discard it"
        case .unknownLanguage(let language, let available):
            "the questionnaire has no '\(language)' translation; choose one of \(available.joined(separator: ", "))"
        }
    }
}
