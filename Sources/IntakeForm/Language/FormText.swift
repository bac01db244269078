import IntakeCore

/// Everything the form, and the fill and lookup commands around it, say to the person filling
/// it: one case a message, its variable parts as values.
///
/// Each language is one catalogue (``EnglishText``, ``ArabicText``) that switches over every
/// case, so the compiler refuses a catalogue missing a message. The language is the record's
/// (`intake fill --language ar`), so the whole screen speaks it, not only the questions.
public enum FormText: Sendable {
    // Starting and resuming.
    case formTitle(title: String, id: String, version: String)
    case recordId(String)
    case resuming(at: Place, answers: Int)
    case typeHelp
    case editingRevision(Int)
    case registryPatient(name: String, id: String)
    /// `intake fill --case`: the follow-up of a case, about its patient.
    case followUpOfCase(id: String, list: String, name: String)

    // Sections and questions.
    case patientHeading
    case sectionHeading(number: Int, of: Int, title: String)
    case patientField(PatientIdentification.Field)
    case patientHint(PatientIdentification.Field)
    case sex(PatientIdentification.Sex)
    case currentAnswer(String)
    /// A calculated question's value, shown as the form passes it.
    case calculated(String)
    /// A calculated question that has no value yet (a question it reads is unanswered).
    case notCalculated
    /// The default answer Enter accepts.
    case defaultAnswer(String)
    case help(String)
    case required
    case enterKeeps(String)
    case hint(Hint)
    case yes, no
    case compoundParts(count: Int, labels: [String])

    // Files.
    /// What a file question takes: `a path to a JPEG, PNG or WEBP photo, up to 10 MB`.
    case fileHint(kind: AttachmentKind)
    /// A file answer as the form shows it.
    case fileAnswer(kind: AttachmentKind, type: String, size: String, digest: String)
    case fileNotFound
    case fileUnreadable
    case fileTooLarge(kind: AttachmentKind, size: String)
    case fileWrongType(kind: AttachmentKind)
    case fileNotKept(String)

    // Repeats.
    /// How many instances a repeat has, and how many its count asks for.
    case repeatStatus(count: Int, wanted: Int?)
    /// One instance in the list at a repeat: its number and its first answers.
    case instanceLine(number: Int, summary: String)
    /// What may be typed at a repeat.
    case repeatCommands(canAdd: Bool, counted: Bool)
    /// Entering an instance: `— Household members: 2 of 3 —`.
    case instanceHeading(label: String, number: Int, total: Int?)
    case instanceRemoved(Int)
    /// `undo` at a repeat: the instance removed last is back at its place.
    case instanceRestored(Int)
    case nothingToUndo
    /// The word that undoes a removal, in this language (`undo` works in every language).
    case undoWord
    case instanceMoved(from: Int, to: Int)
    case noSuchInstance(Int, count: Int)
    case repeatFull(Int)
    /// A repeat's answer as the form shows it.
    case instanceCount(Int)
    case repeatAnswer

    // Answers refused.
    case controlCharacter
    case answerYesOrNo
    case chooseAtLeastOne
    case wholeNumber
    case number
    case date
    case geopoint
    case typeAChoice
    case notAChoice(String)
    /// A number typed for a choice that is not among the numbers on the screen.
    case numberNotShown(String)
    /// A date written as one that names no day (2024-02-31).
    case noSuchDay(String, LocalDate.ImpossibleDay)
    /// A long answer's length, after its start in the review: `(5,000 characters)`.
    case characters(Int)
    case severalMatchTypeMore(String)
    case severalMatchPickNumber(String)
    case didYouMean(String)
    /// What a partial or numbered answer picked: `  → Saudi Arabia`.
    case chosen(String)
    case outOfRange(below: Bool, limit: String)
    case answerProblem(String)
    case questionRequired
    case fieldRequired(String)
    case keepUnder(Int)
    case dateOfBirthFormat
    case dateOfBirthRange
    case sexAnswer

    // Commands.
    case commandsHelp
    case unknownCommand(String, suggestion: String?)
    case goWhere
    case firstQuestion
    case noSuchSection(Int, count: Int)
    case sectionHidden(Int)
    case noSuchQuestion(String)
    case questionHidden(String)
    case goFirstThenClear
    case cleared
    case noChoices
    case answerNotChanged

    // Review, end and finish.
    case reviewHeading
    case reviewPatient
    case reviewSection(number: Int, title: String)
    case notAnswered
    case endOfQuestionnaire(answers: Int)
    case stillRequired([String])
    case finishPrompt
    case cannotComplete
    case issue(ValidationIssue)
    case droppedHidden(Int)
    case complete(id: String, answers: Int)

    // Saving the draft.
    case couldNotSave(String)
    case savedAgain
    case quitNeedsRoom
    case finishNeedsRoom
    case nothingTyped
    case draftSaved(resume: String)

    // Sending the finished record (IntakeFieldwork's FormRun).
    case sending(host: String, seconds: Int)
    case sent
    case alreadySent
    case savedAsRevision(Int)
    case savedOffline(waiting: Int, reason: String)
    /// A record kept on this machine raises an alert: it reaches the coordinators with the record.
    case alertWaits(String)
    /// Finished before anyone signed in on this machine: kept until someone does.
    case savedUntilSignIn(waiting: Int)
    case refused(String)
    /// The server refused the record with `code` (its own words in `message`).
    case refusedFor(code: String, message: String)
    /// One problem the server found: its words (`said`) and the problem, to say in this language.
    case serverIssue(said: String, ValidationIssue)
    case refusedDraftAgain
    case heldBack(String)
    case staleEdit(current: Int)
    case inputEndedBlank
    case inputEnded(resume: String)

    // Picking a draft (IntakeFieldwork's FillSession), and `intake drafts list`.
    case draftColumns
    case draftAtPatient
    case draftAtStart
    case editOfRevision(Int)
    case unfinishedDrafts
    case resumeWhich
    case pickNumber(Int)

    // `intake lookup`.
    case serverNotSearched(String)
    case searchForPatient
    case searchPrompt(PatientIdentification.Field)
    case dateOfBirthLeftOut
    case noPatientMatches
    case matchColumns
    /// Where a match was found: `server`, `draft`, `queued`, `synced`.
    case matchSource(String)
    case offlineSearch(copy: String?)
    case openWhich

    // `intake status`.
    case nothingWaits
    case recordsWait(Int)
    case recordsSetAside(Int)
    case answersWait(Int)
    case noDrafts
    case draftsWait(Int)
    case notSignedIn
    /// Said when the server has not answered within a second.
    case askingServer(host: String, seconds: Int)
    /// When records last reached the server from this machine.
    case lastSent(at: String)
    /// The last try to send what waits, when it failed, and why (never patient data).
    case lastTryFailed(at: String, reason: String)
    case sendingInBackground
    case backgroundNotStarted
    case signedIn(server: String, nothingNew: Bool)
    case serverNotAsked(String)
    case unreadNotifications(Int, kinds: [(kind: String, count: Int)])
    case invitations(Int, teams: [String])
    /// Questionnaire versions the server publishes that this machine has not pulled.
    case questionnairesToPull([String])

    // The local store's passphrase, Ctrl-C.
    case passphrasePrompt
    case wrongPassphrase(triesLeft: Int)
    case choosePassphrase
    case newPassphrase
    case typeItAgain
    case passphraseTooShort
    case passphrasesDiffer
    case cancelled
    /// Ctrl-C after the sign-in was saved (at the new store's passphrase prompt, say).
    case cancelledSignedIn
    case interrupted
    case interruptedSending

    // `intake cases`.
    case casesPulled(total: Int, received: Int, dropped: Int)
    case casesNoneYet
    case casesNone
    /// The columns of `intake cases list`, separated by `|`: id, list, initials, due, who follows, visits.
    case caseColumns
    case caseTheTeam
    case casesOverdue(Int)
    case casesConflictNote
    case casesDetails
    case caseHeading(id: String)
    case caseStatus(open: Bool)
    /// The labels of `intake cases show`, separated by `|`: list, patient, follows, due, visits, conflicts.
    case caseFields
    case caseBorn(String)
    case caseOverdue
    case caseVisits(visits: Int, revision: Int)
    case caseConflicts(String)
    case caseFill(id: String)

    // `intake flush`.
    case queueEmpty
    // `intake queue list`.
    case queueListEmpty
    case queueColumns
    case queueWaiting
    case queueSetAsideState
    case queueNew
    case queueEdit
    case queueCounts(waiting: Int, setAside: Int)
    case queueSetAside(Int)
    case flushed(uploaded: Int, alreadyThere: Int, setAside: Int, stillQueued: Int)
    case mergedMeanwhile(id: String, how: String)
    case setAsideBecause(id: String, reason: String)
    /// The same, with the server's code when its validation refused the record.
    case setAsideFor(id: String, code: String?, reason: String)
    /// A record on an older version than the newest kept on this machine: how to move it.
    case moveToVersion(id: String, questionnaire: String, from: String, to: String)
    case stoppedEarly(String)
    /// `intake flush --watch` between two tries.
    case flushWaiting(seconds: Int)
    /// Before a flush sends: how many, where, how long one try and the whole flush may wait.
    case flushSending(count: Int, host: String, timeout: Int, tries: Int, longest: Int)
    /// A try that failed and will be made again after `seconds`.
    case flushRetrying(attempt: Int, of: Int, reason: String, seconds: Int)
    /// Records filled before anyone signed in, given the signed-in account as their collector.
    case filledBeforeSignIn(count: Int, account: String)
    /// Records without a collector kept back by a flush (the account could not be known, or they
    /// came from another machine's queue): they stay queued, not sent.
    case filledBeforeSignInNoAccount(count: Int)

    /// Where in the form a draft stands, for "Resuming the draft at …".
    public enum Place: Sendable {
        case patient(PatientIdentification.Field)
        case question(String)
        case end
    }

    /// What to type at a question.
    public enum Hint: Sendable {
        case text, yesNo
        case wholeNumber(from: String?, to: String?)
        case number(from: String?, to: String?)
        case date(from: String?, to: String?)
        case chooseOneOfLong(Int)
        case chooseOne
        case chooseSomeOfLong(Int)
        case chooseSome
        case geopoint
    }
}

/// The language a form speaks: its catalogue and its direction.
public struct FormLanguage: Sendable {
    /// The language code (`ar`), or nil for the questionnaire's base language (English).
    public let code: String?

    public init(_ code: String?) {
        self.code = code
    }

    /// Whether the language writes a decimal comma (`37,5`); a point is read as well when typed.
    public var writesDecimalComma: Bool { primary == "fr" }

    /// Whether the language is written right to left.
    public var isRightToLeft: Bool { Self.rightToLeft.contains(primary ?? "") }

    private var primary: String? { code.map { String($0.lowercased().prefix(while: { $0 != "-" && $0 != "_" })) } }
    private static let rightToLeft: Set<String> = ["ar", "fa", "he", "ur", "ps", "ckb", "yi"]

    /// The message in this language; English where no catalogue is shipped for it.
    public func callAsFunction(_ text: FormText) -> String {
        switch primary {
        case "ar": ArabicText.text(text)
        case "fr": FrenchText.text(text)
        default: EnglishText.text(text)
        }
    }

    /// The languages with a catalogue of their own (docs/languages.md says how to add one).
    public static let catalogued = ["en", "ar", "fr"]

    /// The language a person asked for outside a form: `INTAKE_LANGUAGE`, else the locale's
    /// (`LC_ALL`, `LC_MESSAGES`, `LANG`: `ar_SY.UTF-8` is Arabic) when a catalogue speaks it.
    public static func preferred(environment: [String: String]) -> FormLanguage {
        for name in ["INTAKE_LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            let code = String(value.lowercased().prefix(while: { $0.isLetter }))
            return FormLanguage(catalogued.contains(code) && code != "en" ? code : nil)
        }
        return FormLanguage(nil)
    }
}
