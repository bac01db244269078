import IntakeCore

/// The form's messages in English.
enum EnglishText {
    static func text(_ text: FormText) -> String {
        switch text {
        case .formTitle(let title, let id, let version): "\(title) (\(id), version \(version))"
        case .recordId(let id): "Record \(id)"
        case .resuming(let place, let answers):
            "Resuming the draft at \(describe(place)); \(answers) answer\(answers == 1 ? "" : "s") so far."
        case .typeHelp: "Type :help for commands. Every answer is saved as you go."
        case .editingRevision(let revision): "Editing the server's record at revision \(revision)."
        case .followUpOfCase(let id, let list, let name): "Follow-up of case \(id) (\(list)) for \(name): the patient section is filled in."
        case .registryPatient(let name, let id): "Patient \(name), from the registry (\(id)): the patient section is filled in."

        case .patientHeading: "── Patient information ──"
        case .sectionHeading(let number, let count, let title): "── Section \(number) of \(count): \(title) ──"
        case .patientField(let field): field.label
        case .patientHint(let field):
            switch field {
            case .givenName, .familyName: "text"
            case .dateOfBirth: "date YYYY-MM-DD; press Enter if it is not known"
            case .sex: "female, male, other or unknown (f/m/o/u)"
            case .externalId: "text; press Enter if there is none"
            }
        case .sex(let sex): sex.rawValue
        case .currentAnswer(let answer): "current answer: \(answer) (Enter keeps it)"
        case .calculated(let value): "calculated: \(value)"
        case .notCalculated: "calculated: no value yet (a question it uses is not answered)"
        case .defaultAnswer(let answer): "default: \(answer) (Enter accepts it)"
        case .help(let help): "help: \(help)"
        case .required: "required"
        case .enterKeeps(let answer): "Enter keeps \(answer)"
        case .hint(let hint): describe(hint)
        case .yes: "yes"
        case .no: "no"
        case .compoundParts(let count, let labels): "\(count) parts: " + labels.joined(separator: ", ")
        case .fileHint(let kind):
            "the path of a \(kind.types.map(\.name).joined(separator: ", ")) \(kind.rawValue) file, up to \(AttachmentKind.describe(kind.maxBytes)) (drag it here)"
        case .fileAnswer(let kind, let type, let size, let digest): "\(kind.rawValue) (\(type), \(size), \(digest))"
        case .fileNotFound: "There is no file at that path. Type the path of the file (or drag it into this window)."
        case .fileUnreadable: "That file cannot be read (a folder, or no permission to read it)."
        case .fileTooLarge(let kind, let size):
            "That file is \(size); a \(kind.rawValue) is at most \(AttachmentKind.describe(kind.maxBytes)). Make it smaller and attach it again."
        case .fileWrongType(let kind):
            "That file is not a \(kind.types.map(\.name).joined(separator: ", ")) file (its contents say so, whatever its name); attach one of those."
        case .fileNotKept(let reason): "The file could not be kept on this machine: \(reason)."
        case .repeatStatus(let count, let wanted):
            wanted.map { "\(count) of \($0) recorded" } ?? (count == 1 ? "1 recorded" : "\(count) recorded")
        case .instanceLine(let number, let summary): "  #\(number)  \(summary.isEmpty ? "(no answers yet)" : summary)"
        case .repeatCommands(let canAdd, let counted):
            (counted
                ? "Enter fills the next one (or goes on when all are recorded)" : canAdd ? "+ adds one, Enter goes on" : "Enter goes on")
                + "; a number opens that one; -N removes it; N>M moves it to place M."
        case .instanceHeading(let label, let number, let total): "— \(label): \(number)\(total.map { " of \($0)" } ?? "") —"
        case .instanceRemoved(let number): "Removed #\(number); the ones after it moved up. Type undo to bring it back."
        case .instanceRestored(let number): "#\(number) is back in its place, with its answers."
        case .nothingToUndo: "There is no removal to undo here."
        case .undoWord: "undo"
        case .instanceMoved(let from, let to): "Moved #\(from) to place \(to)."
        case .noSuchInstance(let number, let count):
            count == 0 ? "There is no #\(number) yet; type + to add one." : "There is no #\(number); the numbers are 1 to \(count)."
        case .repeatFull(let limit): "This repeat holds at most \(limit); remove one (-N) to add another."
        case .instanceCount(let count): count == 1 ? "1 recorded" : "\(count) recorded"
        case .repeatAnswer: "Type +, a number, -N or N>M (or Enter to go on)."

        case .controlCharacter:
            "That line holds a control character (an arrow key or an escape sequence where no line editing was available, or a pasted one), which a record never keeps; type the answer again."
        case .answerYesOrNo: "Please answer yes or no (y/n)."
        case .chooseAtLeastOne: "Choose at least one, separated by commas."
        case .wholeNumber: "Please enter a whole number, like 42."
        case .number: "Please enter a number, like 37.5."
        case .date: "Please enter a date as YYYY-MM-DD, like 2024-03-15, or 'today'."
        case .geopoint:
            "Please enter a place as latitude and longitude in degrees, like 31.9539, 35.9106 (altitude and accuracy may follow), or paste a map link or 31°57'14\"N 35°54'38\"E."
        case .typeAChoice: "Type a choice's number, code or name; :list shows them all."
        case .notAChoice(let typed): "'\(typed)' is not one of the choices. Type its number, code or name; :list shows them all."
        case .characters(let count): "(\(count) characters)"
        case .noSuchDay(let typed, .noSuchMonth): "\(typed) is not a day: months run from 01 to 12."
        case .noSuchDay(let typed, .noSuchDay(_, let month, let year, let days)):
            "\(typed) is not a day: month \(month < 10 ? "0" : "")\(month) of \(year) has \(days) days."
        case .numberNotShown(let typed):
            "\(typed) is not one of the numbers on the screen; type part of the choice's name, or :list to number them all."
        case .severalMatchTypeMore(let typed): "Several choices match '\(typed)'; type more of the name, or its number or code:"
        case .severalMatchPickNumber(let typed):
            "Several choices match '\(typed)'; type the number of the one you mean, or type the answer again:"
        case .didYouMean(let typed): "'\(typed)' is not a choice; did you mean this one? Type 1 to choose it, or type the answer again:"
        case .chosen(let labels): "  → \(labels)"
        case .outOfRange(let below, let limit):
            below ? "The answer is below the minimum \(limit)." : "The answer is above the maximum \(limit)."
        case .answerProblem(let problem): problem.prefix(1).uppercased() + problem.dropFirst() + "."
        case .questionRequired: "This question is required. Answer it, or type :skip to come back to it later."
        case .fieldRequired(let label): "\(label) is required. Type :skip to leave the whole question for now."
        case .keepUnder(let limit): "Please keep it under \(limit) characters."
        case .dateOfBirthFormat: "Please enter the date of birth as YYYY-MM-DD, like 1988-04-02, or press Enter if it is not known."
        case .dateOfBirthRange: "The date of birth must be between 1900-01-01 and today."
        case .sexAnswer: "Please answer female, male, other or unknown (f/m/o/u)."

        case .commandsHelp:
            """
            Commands (type them at any prompt):
              :back      go to the previous question
              :skip      leave this question for now
              :next      go to the next section
              :go 3      go to section 3 (:go 3.5, :go patient)
              :review    show all answers so far
              :clear     remove this question's answer
              :list      show all choices of this question
              :finish    check and complete the record
              :quit      save the draft and stop
              :help      show this list
            Press Enter to keep the current answer or leave an optional question empty.
            """
        case .unknownCommand(let name, let suggestion):
            "Unknown command ':\(name)'." + (suggestion.map { " Did you mean :\($0)?" } ?? "") + " Type :help for the list."
        case .goWhere: "Go where? Type :go 2 for section 2, :go 2.5 for its fifth question, or :go patient."
        case .firstQuestion: "This is the first question."
        case .noSuchSection(let number, let count): "There is no section \(number); sections are 1 to \(count)."
        case .sectionHidden(let number): "Every question in section \(number) is hidden by earlier answers."
        case .noSuchQuestion(let position): "There is no question \(position)."
        case .questionHidden(let position): "Question \(position) is hidden by earlier answers (its show-if condition)."
        case .goFirstThenClear: "Go to a question first (:go 2.5), then :clear."
        case .cleared: "Cleared."
        case .noChoices: "This question has no choices to list."
        case .answerNotChanged: "The answer to this question was not changed."

        case .reviewHeading: "── Review ──"
        case .reviewPatient: "Patient"
        case .reviewSection(let number, let title): "Section \(number): \(title)"
        case .notAnswered: "required, not answered"
        case .endOfQuestionnaire(let answers): "End of the questionnaire: \(answers) questions answered."
        case .stillRequired(let positions): "Still required: " + positions.joined(separator: ", ")
        case .finishPrompt: "Type :finish to complete the record, :review to check the answers, or :go 2 to change section 2."
        case .cannotComplete: "The record cannot be completed yet:"
        case .issue(let issue): issue.description
        case .droppedHidden(let count):
            count == 1
                ? "1 answer to a question hidden by later changes was dropped."
                : "\(count) answers to questions hidden by later changes were dropped."
        case .complete(let id, let answers): "Record \(id) is complete (\(answers) answers)."

        case .couldNotSave(let error):
            "Could not save the draft (\(error)). The answers are kept here, in memory, and saved as soon as there is room: free some disk space and go on. Do not close this window."
        case .savedAgain: "Saved again: every answer so far is on disk."
        case .quitNeedsRoom: "The draft cannot be saved yet, so the form stays open: free some disk space, then type :quit again."
        case .finishNeedsRoom: "The record cannot be saved yet, so it is not complete: free some disk space, then type :finish again."
        case .nothingTyped: "Nothing was typed; no draft was kept."
        case .draftSaved(let resume): "Draft saved. Resume it with: intake fill --resume \(resume)"

        case .sending(let host, let seconds): "Sending to \(host)… (at most \(seconds) s; Ctrl-C keeps it offline, in the queue)"
        case .sent: "Sent to the server."
        case .alreadySent: "The server already had this record; nothing was sent twice."
        case .savedAsRevision(let revision): "Saved on the server as revision \(revision)."
        case .savedOffline(let waiting, let reason):
            "Saved offline (\(reason)): \(waiting) record\(waiting == 1 ? "" : "s") waiting, encrypted on this machine. Upload with 'intake flush'."
        case .alertWaits(let message):
            "ALERT: \(message.hasSuffix(".") ? message : message + ".") The coordinators are told only when this record reaches the server: send it as soon as you can ('intake flush'), or tell them now."
        case .savedUntilSignIn(let waiting):
            "Saved, encrypted on this machine (\(plural(waiting, "record")) waiting). It has no collector yet (nobody has signed in here, or the server did not say who is): it will be sent as the account signed in on this machine ('intake login' or 'intake enrol', then 'intake flush')."
        case .refused(let message): "The server refused the record: \(message)"
        case .refusedFor(_, let message): "The server refused the record: \(message)"
        case .serverIssue(let said, _): said
        case .refusedDraftAgain: "The record is a draft again; fix it with: intake fill --resume"
        case .heldBack(let reason):
            "The server has a different record with this id (\(reason)). It is kept in the queue, set aside: see 'intake queue list'."
        case .staleEdit(let current):
            "Someone saved this record on the server (now revision \(current)) after you loaded it, so your changes were not saved over theirs. They are kept as a draft; look the record up again ('intake lookup') and apply them to the current version."
        case .inputEndedBlank: "Input ended before anything was typed; no draft was kept."
        case .inputEnded(let resume): "Input ended before the record was finished. The draft is saved: intake fill --resume \(resume)"

        case .draftColumns: "#|ID|QUESTIONNAIRE|ANSWERS|AT|PATIENT|UPDATED"
        case .draftAtPatient: "patient"
        case .draftAtStart: "start"
        case .editOfRevision(let revision): "(edit of revision \(revision))"
        case .unfinishedDrafts: "Unfinished drafts:"
        case .resumeWhich: "Resume which (number), or press Enter for a new record? "
        case .pickNumber(let count): "Please type a number from 1 to \(count), or press Enter."

        case .serverNotSearched(let problem): "Server not searched (\(problem)); showing matches on this machine only."
        case .searchForPatient: "\nSearch for a patient (press Enter to skip a field; Enter at all of them to stop)."
        case .searchPrompt(let field):
            field == .dateOfBirth ? "Date of birth (YYYY-MM-DD): " : field == .externalId ? "External id: " : "\(field.label): "
        case .dateOfBirthLeftOut: "(The date of birth was not YYYY-MM-DD and is left out.)"
        case .noPatientMatches: "No patient matches."
        case .matchColumns: "#|WHERE|ID|NAME|BORN|SEX|EXTERNAL ID"
        case .matchSource(let source): source
        case .offlineSearch(let copy):
            "Offline: searching drafts, the queue and \(copy ?? "no synced copy (run 'intake sync' while online)")."
        case .openWhich: "Open which (number), or press Enter to search again? "

        case .flushSending(let count, let host, let timeout, let tries, let longest):
            "Sending \(plural(count, "record")) to \(host): each try waits at most \(timeout) s, \(tries == 1 ? "1 try" : "\(tries) tries") at most (\(longest) s in all); Ctrl-C stops, losing nothing."
        case .flushRetrying(let attempt, let of, let reason, let seconds):
            "Try \(attempt) of \(of) failed (\(reason)); trying again in \(seconds) s."
        case .flushWaiting(let seconds): "Trying again in \(seconds) s (Ctrl-C stops; nothing is lost)."
        case .nothingWaits: "Nothing waits to be sent."
        case .recordsWait(let count): "\(plural(count, "record")) wait\(count == 1 ? "s" : "") to be sent: run 'intake flush'."
        case .recordsSetAside(let count): "\(plural(count, "record")) set aside by the server: see 'intake queue list'."
        case .answersWait(let count): "\(plural(count, "answer")) to referrals given offline wait\(count == 1 ? "s" : "") too."
        case .askingServer(let host, let seconds): "Asking \(host) (at most \(seconds) s; Ctrl-C stops)…"
        case .noDrafts: "No unfinished drafts."
        case .draftsWait(let count): "\(plural(count, "unfinished draft")): 'intake fill --resume' or 'intake drafts list'."
        case .notSignedIn: "Not signed in to a server: 'intake login'."
        case .lastSent(let at): "Last sent to the server: \(at) UTC."
        case .lastTryFailed(let at, let reason): "Last try, \(at) UTC, failed: \(reason)"
        case .sendingInBackground:
            "Sending in the background until the queue is empty (flush-watch.log in the data directory says how it goes)."
        case .backgroundNotStarted:
            "Not sending in the background: that needs the store's key without a prompt (a kiosk store, INTAKE_PASSPHRASE, or a session kept unlocked); run 'intake flush --watch'."
        case .signedIn(let server, let nothingNew): "Signed in to \(server)\(nothingNew ? "; nothing new there." : ":")"
        case .serverNotAsked(let error): "The server could not be asked (\(error)); records wait here until 'intake flush' reaches it."
        case .unreadNotifications(let total, let kinds):
            "\(plural(total, "unread notification")) (\(kinds.map { "\($0.count) \($0.kind)" }.joined(separator: ", "))): 'intake inbox'."
        case .invitations(let count, let teams):
            "\(plural(count, "invitation")) to join \(teams.map { "'\($0)'" }.joined(separator: ", ")): 'intake invitation list'."

        case .passphrasePrompt: "Passphrase of the local store: "
        case .wrongPassphrase(let left): "Wrong passphrase (\(left) tr\(left == 1 ? "y" : "ies") left). "
        case .choosePassphrase:
            "Choose a passphrase for the drafts and queue on this machine. It cannot be recovered: if it is forgotten, nobody can read what waits here. (At least 8 characters.)\n"
        case .newPassphrase: "New passphrase: "
        case .typeItAgain: "Type it again: "
        case .passphraseTooShort: "That is shorter than 8 characters; choose a longer one.\n"
        case .passphrasesDiffer: "The two differ; choose it again.\n"
        case .cancelled: "Cancelled; nothing was changed."
        case .cancelledSignedIn:
            "Cancelled. You are signed in (the token is saved); the questionnaires were not pulled: run 'intake questionnaire pull'."
        case .interrupted: "Interrupted. Every answer given so far is saved; continue with 'intake fill --resume'."
        case .interruptedSending:
            "Stopped sending. The record is kept, encrypted, in the queue on this machine; 'intake flush' sends it later."

        case .questionnairesToPull(let versions):
            "\(plural(versions.count, "questionnaire version")) published that this machine has not pulled (\(versions.joined(separator: ", "))): 'intake questionnaire pull'."
        case .casesPulled(let total, let received, let dropped):
            "Cases: \(total) open on this machine, sealed (\(received) new or changed, \(dropped) closed or given to someone else)."
        case .casesNoneYet: "No cases on this machine yet: run 'intake cases pull' while the server can be reached."
        case .casesNone: "No open cases on this machine."
        case .caseColumns: "id|list|who|due|for|visits"
        case .caseTheTeam: "(team)"
        case .casesOverdue(let count): "\(count) overdue (marked !)."
        case .casesConflictNote: "⚠: visits made offline from the same revision disagree; a coordinator reviews them."
        case .casesDetails: "Details: intake cases show ID"
        case .caseHeading(let id): "Case \(id)"
        case .caseStatus(let open): open ? "open" : "closed"
        case .caseFields: "list|patient|follows|due|visits|conflicts"
        case .caseBorn(let date): ", born \(date)"
        case .caseOverdue: "(overdue)"
        case .caseVisits(let visits, let revision): "\(visits) (revision \(revision))"
        case .caseConflicts(let properties): "\(properties) (visits made offline from one revision disagree)"
        case .caseFill(let id): "Fill its follow-up: intake fill --case \(id)"
        case .queueListEmpty: "The queue is empty."
        case .queueColumns: "ID|STATE|ATTEMPTS|QUEUED|KIND|REASON"
        case .queueWaiting: "waiting"
        case .queueSetAsideState: "set aside"
        case .queueNew: "new"
        case .queueEdit: "edit"
        case .queueCounts(let waiting, let setAside):
            "\(waiting) waiting, \(setAside) set aside. Upload with 'intake flush'; put set-aside records back with 'intake queue retry'."
        case .queueEmpty: "The queue is empty; nothing to upload."
        case .queueSetAside(let count): "\(count) record(s) set aside: see 'intake queue list'."
        case .flushed(let uploaded, let already, let setAside, let queued):
            "Uploaded: \(uploaded). Already on the server: \(already). Set aside: \(setAside). Still queued: \(queued)."
        case .mergedMeanwhile(let id, let how): "  \(id) changed on the server meanwhile: \(how)."
        case .setAsideBecause(let id, let reason), .setAsideFor(let id, _, let reason): "  \(id) set aside: \(reason)"
        case .moveToVersion(let id, let questionnaire, let from, let to):
            "  \(id) is on \(questionnaire) version \(from); this machine has version \(to): intake drafts migrate \(id)"
        case .stoppedEarly(let reason): "Stopped early: \(reason). The records not sent are still queued; run 'intake flush' again later."
        case .filledBeforeSignIn(let count, let account):
            "\(count == 1 ? "1 record was" : "\(count) records were") filled here before you signed in; \(count == 1 ? "it" : "they") will be sent as \(account)'s."
        case .filledBeforeSignInNoAccount(let count):
            "\(count == 1 ? "1 record has" : "\(count) records have") no collector yet and \(count == 1 ? "stays" : "stay") queued: \(count == 1 ? "it is" : "they are") sent as the account signed in here once the server says who that is (sign in again with 'intake login'), or name the collector: intake queue retry ID --collector NAME."
        }
    }

    private static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }

    private static func describe(_ place: FormText.Place) -> String {
        switch place {
        case .patient(let field): "the patient section (\(field.label.lowercased()))"
        case .question(let position): "question \(position)"
        case .end: "the end of the questionnaire"
        }
    }

    private static func describe(_ hint: FormText.Hint) -> String {
        switch hint {
        case .text: "text"
        case .yesNo: "yes/no"
        case .wholeNumber(let from, let to): "whole number" + range(from, to)
        case .number(let from, let to): "number" + range(from, to)
        case .date(let from, let to): "date YYYY-MM-DD" + range(from, to)
        case .chooseOneOfLong(let count): "choose one of \(count): type part of a name or a code (:list shows all)"
        case .chooseOne: "choose one: type its number, code or name"
        case .chooseSomeOfLong(let count): "choose one or more of \(count), separated by commas (:list shows all)"
        case .chooseSome: "choose one or more, separated by commas"
        case .geopoint: "place: latitude, longitude [altitude accuracy], or a map link"
        }
    }

    private static func range(_ lower: String?, _ upper: String?) -> String {
        switch (lower, upper) {
        case let (lower?, upper?): " from \(lower) to \(upper)"
        case let (lower?, nil): " from \(lower)"
        case let (nil, upper?): " up to \(upper)"
        case (nil, nil): ""
        }
    }
}
