import Foundation
import IntakeCore
import Logging

/// Cases: what records do to them, read from each team's change feed after the records are
/// stored (``catchUp(teamId:at:)``), and what people see and change of them.
///
/// Ingest never waits for cases: a record is acknowledged once it is stored, and the cases it
/// opens or updates follow within a moment, from the change feed, by whichever server reads the
/// feed first (the team's case cursor moves only from where it stood). A crash between the two
/// loses nothing: the cursor has not moved, and the next pass reads the records again; a record
/// read twice opens no second case and counts as one visit.
public final class CaseService: Sendable {
    public typealias Store = CaseStore & RecordDataStore & AccountStore & TeamStore

    let store: any Store
    let questionnaires: QuestionnaireService
    let logger: Logger
    /// Told when overdue cases were notified (the notification streams).
    let hub: NotificationHub?
    static let pageSize = 200

    public init(
        store: any Store, questionnaires: QuestionnaireService, hub: NotificationHub? = nil, logger: Logger = Logger(label: "intake.cases")
    ) {
        self.store = store
        self.questionnaires = questionnaires
        self.hub = hub
        self.logger = logger
    }

    // MARK: Overdue cases

    /// The overdue cases a pass tells their assignees of, per team (the soonest due first);
    /// the coordinators' count is of them all.
    static let overdueNoticesPerTeam = 1_000

    /// Tells of overdue cases, in each team's time zone: each assignee once per case and due date
    /// (`case_overdue`), and the team's coordinators once a day how many of the team's open cases
    /// are overdue (`cases_overdue`). Only active members of the case's team are told (a case whose
    /// assignee left or was disabled is in the coordinators' count). Subjects name the case and
    /// its list: never the patient, nor the due date (which may say why the case was opened). Run
    /// again, it tells nobody twice (the event keys); how many notices it made. A team whose
    /// cases cannot be read now holds no other team back (it is said, by its id).
    @discardableResult
    public func notifyOverdue(at time: Date = Date()) async throws -> Int {
        var notices: [CaseNotice] = []
        let active = Set(try await store.users().filter { !$0.disabled }.map(\.username))
        for team in try await store.teams() {
            do {
                notices += try await overdueNotices(of: team, active: active, at: time)
            } catch {
                logger.warning(
                    "could not read a team's overdue cases", metadata: ["team": "\(team.id)", "error.type": "\(type(of: error))"])
            }
        }
        guard !notices.isEmpty else { return 0 }
        let made = try await store.notifyAboutCases(notices, at: time)
        if made > 0 { hub?.notify() }
        return made
    }

    /// What ``notifyOverdue(at:)`` tells of one team's cases.
    private func overdueNotices(of team: Team, active: Set<String>, at time: Date) async throws -> [CaseNotice] {
        var notices: [CaseNotice] = []
        let zone = team.timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        let today = LocalDate.today(in: zone, now: time)
        let counts = try await store.caseCounts(teamId: team.id, visibleTo: nil, today: today)
        guard counts.overdue > 0 else { return [] }
        let members = try await store.members(teamId: team.id).filter { active.contains($0.username) }
        let followers = Set(members.filter { $0.role == .fieldworker || $0.role == .coordinator }.map(\.username))
        let overdue = try await store.openCasesByDue(teamId: team.id, visibleTo: nil, limit: Self.overdueNoticesPerTeam).filter {
            $0.due.map { $0 < today } ?? false
        }
        for stored in overdue {
            guard let assignee = stored.assignee, followers.contains(assignee), let due = stored.due else { continue }
            notices.append(
                CaseNotice(
                    username: assignee, type: NotificationType.caseOverdue,
                    eventKey: NotificationEvent.caseOverdue(stored.id, due: due),
                    subject: ["case": stored.id.uuidString.lowercased(), "list": stored.list]))
        }
        for member in members where member.role == .coordinator {
            notices.append(
                CaseNotice(
                    username: member.username, type: NotificationType.casesOverdue,
                    eventKey: NotificationEvent.casesOverdue(teamId: team.id, on: today),
                    subject: ["team": team.name, "count": String(counts.overdue), "day": today.description]))
        }
        return notices
    }

    // MARK: Following the change feed

    /// Reads the team's change feed past its case cursor to its end as it stands, writing what
    /// the records do to cases; how many changes it read.
    @discardableResult
    public func catchUp(teamId: Int64, at time: Date = Date()) async throws -> Int {
        var read = 0
        while true {
            let cursor = try await store.caseCursor(teamId: teamId)
            let page = try await store.caseFeed(teamId: teamId, after: cursor, limit: Self.pageSize)
            guard let last = page.last else { return read }
            let work = try await effects(of: page, teamId: teamId)
            let ids = Set(work.map(\.caseId))
            let moved = try await store.advanceCases(teamId: teamId, from: cursor, to: last.cursor, reading: ids, at: time) { current in
                Self.apply(work, to: current, teamId: teamId, at: time)
            }
            // Another server took the same changes first: read from where it left the cursor.
            if moved { read += page.count }
            // The end as it stood: what came since waits for the next pass, which takes it in
            // one transaction (chasing the feed's tail under a stream of records made a
            // transaction, and a sync to disk, for every few records: a third of ingest's rate).
            if moved && page.count < Self.pageSize { return read }
        }
    }

    /// Every team's feed, once; how many changes it read. A team whose feed cannot be read now
    /// holds no other team back (it is said, by its id, and tried again at the next pass).
    @discardableResult
    public func catchUpAll(at time: Date = Date()) async throws -> Int {
        var read = 0
        var failed: (any Error)?
        for team in try await store.teams() {
            do {
                read += try await catchUp(teamId: team.id, at: time)
            } catch {
                logger.warning(
                    "could not bring a team's cases up to date", metadata: ["team": "\(team.id)", "error.type": "\(type(of: error))"])
                failed = failed ?? error
            }
        }
        if let failed, read == 0 { throw failed }
        return read
    }

    /// Follows every team's feed until the task is cancelled: a pass when `wake` says records
    /// were stored, and every `interval` (records stored through another server). Under a stream
    /// of records, passes are at least `pause` apart, so each takes many records in one
    /// transaction instead of competing with ingest for every one.
    public func run(interval: Duration = .seconds(2), pause: Duration = .milliseconds(250), wake: NotificationHub? = nil) async {
        while !Task.isCancelled {
            let seen = wake?.generation
            var read = 0
            do {
                read = try await catchUpAll()
            } catch {
                logger.warning("could not bring cases up to date", metadata: ["error.type": "\(type(of: error))"])
            }
            if read > 0 { try? await Task.sleep(for: pause) }
            if let wake, let seen {
                await wake.wait(after: seen, timeout: interval)
            } else {
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One thing a record does to a case.
    enum Work: Sendable {
        case open(id: UUID, list: String, patientId: UUID?, facts: CaseOpeningFacts, assignee: String?)
        case visit(id: UUID, list: String, CaseVisit)
        /// The record that may have opened this case was deleted (or moved to another team).
        case openerDeleted(id: UUID, recordId: UUID)
        /// The record of a visit of this case was deleted (or moved to another team).
        case visitWithdrawn(id: UUID, recordId: UUID)

        var caseId: UUID {
            switch self {
            case .open(let id, _, _, _, _), .visit(let id, _, _), .openerDeleted(let id, _), .visitWithdrawn(let id, _): id
            }
        }
    }

    /// How many `opens:` lines of one record a deletion looks for (the cases a record opens are
    /// named by their place; a questionnaire has at most ``CaseRules/maxOpenings``).
    static let openingsLookedFor = CaseRules.maxOpenings

    /// What the changes of `feed` do to cases, in feed order: a saved record's work as ingest
    /// kept it (``CaseWorkCodec``), read from the record itself only when it was stored before
    /// its server kept it; a deletion or a move to another team erases the cases it opened.
    private func effects(of feed: [CaseFeedEntry], teamId: Int64) async throws -> [Work] {
        var work: [Work] = []
        for entry in feed {
            switch entry.kind {
            case .deleted(let followed), .transferred(let followed):
                // The cases it opened keep nothing of the patient; the case it visited, nothing
                // of the visit (docs/cases.md).
                for place in 0..<Self.openingsLookedFor {
                    work.append(
                        .openerDeleted(id: CaseEffects.openedCaseId(record: entry.recordId, place: place), recordId: entry.recordId))
                }
                if let followed { work.append(.visitWithdrawn(id: followed, recordId: entry.recordId)) }
            case .saved(caseWork: nil):
                continue
            case .saved(caseWork: .some(CaseWorkCodec.derive)):
                guard let stored = try await store.record(id: entry.recordId), stored.teamId == teamId else { continue }
                guard let questionnaire = try await readable(stored.record.questionnaire) else { continue }
                work += Self.work(of: stored.record, collector: stored.collector, questionnaire: questionnaire)
            case .saved(caseWork: let text?):
                do {
                    work += try CaseWorkCodec.decode(text)
                } catch {
                    // It should not happen (the server wrote it): the record changes no case, and holds no other back.
                    logger.warning("a record's case work could not be read", metadata: ["error.type": "\(type(of: error))"])
                }
            }
        }
        return work
    }

    /// The version, parsed; nil, said, when it cannot be read (it should not happen: versions
    /// are checked when published): its records open and change no case, and hold none back.
    private func readable(_ reference: QuestionnaireReference) async throws -> Questionnaire? {
        do {
            return try await questionnaires.questionnaire(reference)
        } catch {
            logger.warning(
                "a record's questionnaire version could not be read for its cases",
                metadata: ["questionnaire": "\(reference)", "error.type": "\(type(of: error))"])
            return nil
        }
    }

    /// What a complete record does to cases, as its questionnaire's `cases.txt` says: its
    /// openings and its visit, encoded to be kept with it (nil: nothing). Worked out as the record
    /// is checked at ingest, where it is read already (``RecordService``).
    public static func caseWork(of record: PatientResponse, questionnaire: Questionnaire) -> String? {
        CaseWorkCodec.encode(work(of: record, collector: record.collector, questionnaire: questionnaire))
    }

    /// What `record`, kept with `collector`, does to cases.
    static func work(of record: PatientResponse, collector: String, questionnaire: Questionnaire) -> [Work] {
        guard record.status == .complete, !questionnaire.cases.isEmpty else { return [] }
        var work: [Work] = []
        let effects = questionnaire.caseEffects(of: record)
        if let update = effects.update {
            work.append(
                .visit(
                    id: update.caseId, list: update.list,
                    CaseVisit(
                        recordId: record.id, at: record.createdAt, collector: collector, baseRevision: update.baseRevision,
                        arrivalRevision: 0, properties: update.properties, due: update.due, closes: update.closes,
                        deviceId: record.deviceId)))
        }
        for opened in effects.opened {
            let facts = CaseOpeningFacts(
                recordId: record.id, at: record.createdAt, collector: collector, patient: record.patient,
                properties: opened.properties, due: opened.due)
            work.append(
                .open(
                    id: opened.caseId, list: opened.list, patientId: record.patientId, facts: facts,
                    assignee: opened.assignment == .collector ? collector : nil))
        }
        return work
    }

    /// The cases `work` writes, from the cases as they stand (`current`): an opening makes its
    /// case (or, sent again or edited, gives it what the record now sets, keeping whom it is
    /// assigned to); a visit is recorded on its case. A visit of a case this team does not have
    /// (of another list, another team's, or one never opened) changes nothing.
    static func apply(_ work: [Work], to current: [UUID: StoredCase], teamId: Int64, at time: Date) -> [StoredCase] {
        var cases = current
        var changed: [UUID] = []
        for item in work {
            switch item {
            case .open(let id, let list, let patientId, let facts, let assignee):
                if var existing = cases[id] {
                    guard existing.teamId == teamId, existing.list == list, !existing.erased else { continue }
                    existing.opening = facts
                    existing.patientId = patientId
                    existing.updatedAt = time
                    cases[id] = CaseFold.folded(existing)
                } else {
                    cases[id] = CaseFold.folded(
                        StoredCase(
                            id: id, list: list, teamId: teamId, patientId: patientId, opening: facts, assignee: assignee, updatedAt: time))
                }
            case .visit(let id, let list, let visit):
                guard let existing = cases[id], existing.teamId == teamId, existing.list == list, !existing.erased else { continue }
                cases[id] = CaseFold.recording(visit, in: existing, at: time)
            case .openerDeleted(let id, let recordId):
                guard let existing = cases[id], existing.opening.recordId == recordId, !existing.erased else { continue }
                cases[id] = CaseFold.erased(existing, at: time)
            case .visitWithdrawn(let id, let recordId):
                guard var existing = cases[id], existing.teamId == teamId, !existing.erased,
                    let index = existing.visits.firstIndex(where: { $0.recordId == recordId && !$0.withdrawn })
                else { continue }
                existing.visits[index].withdrawn = true
                existing.visits[index].properties = [:]
                existing.visits[index].due = nil
                existing.updatedAt = time
                cases[id] = CaseFold.folded(existing)
            }
            if !changed.contains(item.caseId) { changed.append(item.caseId) }
        }
        return changed.compactMap { cases[$0] }
    }

    // MARK: Case lists, as the ODK façade serves them

    /// A case list as the questionnaires `user` sees declare it: its name, when the first of
    /// them was published, the properties they read or set, and the questionnaires.
    public struct CaseList: Sendable, Hashable {
        public var name: String
        public var createdAt: Date
        public var properties: [String]
        public var questionnaires: [String]
    }

    /// The published versions `user` sees, parsed; a version that cannot be read declares no
    /// list (records of it open no case either).
    private func published(for user: User) async throws -> [(PublishedQuestionnaire, Questionnaire)] {
        var parsed: [(PublishedQuestionnaire, Questionnaire)] = []
        for published in try await questionnaires.visible(to: user) where published.status.state != .draft {
            if let questionnaire = try? await questionnaires.questionnaire(
                QuestionnaireReference(id: published.id, version: published.version))
            {
                parsed.append((published, questionnaire))
            }
        }
        return parsed
    }

    /// How the newest published questionnaire `user` sees that follows `list` declares its
    /// properties (their types, their choices' labels); nil when none does.
    public func declaration(of list: String, for user: User) async throws -> CaseRules.Follow? {
        try await published(for: user).sorted { $0.0.publishedAt > $1.0.publishedAt }
            .lazy.compactMap { $0.1.cases.follows }.first { $0.list == list }
    }

    /// The case lists the published questionnaires `user` sees declare, by name.
    public func lists(for user: User) async throws -> [CaseList] {
        try await lists(in: published(for: user))
    }

    private func lists(in versions: [(PublishedQuestionnaire, Questionnaire)]) -> [CaseList] {
        var lists: [String: CaseList] = [:]
        for (published, questionnaire) in versions {
            let rules = questionnaire.cases
            var named: [(String, [String])] = rules.opens.map { ($0.list, $0.assignments.map(\.property)) }
            if let follows = rules.follows {
                named.append((follows.list, follows.properties.map(\.name) + follows.assignments.map(\.property)))
            }
            for (name, properties) in named {
                var list = lists[name] ?? CaseList(name: name, createdAt: published.publishedAt, properties: [], questionnaires: [])
                list.createdAt = min(list.createdAt, published.publishedAt)
                for property in properties where !list.properties.contains(property) { list.properties.append(property) }
                if !list.questionnaires.contains(published.id) { list.questionnaires.append(published.id) }
                lists[name] = list
            }
        }
        return lists.values.sorted { $0.name < $1.name }
    }

    /// Opens a case no record opened (through the ODK façade): a coordinator's, in a list the
    /// published questionnaires declare, about the patient `label` names, left to the team. A
    /// property a questionnaire following the list reads takes that declared type (a text that
    /// does not fit it is refused); any other is text.
    public func create(
        list: String, id: UUID, label: String, data: [String: String], by user: User, at time: Date = Date()
    ) async throws -> StoredCase {
        try await create(list: list, [NewCase(id: id, label: label, data: data)], by: user, at: time)[0]
    }

    /// A case to open by hand: its id, the label naming its patient, its properties as text.
    public struct NewCase: Sendable {
        public var id: UUID
        public var label: String
        public var data: [String: String]

        public init(id: UUID, label: String, data: [String: String]) {
            self.id = id
            self.label = label
            self.data = data
        }
    }

    /// Opens several cases by hand (ODK's bulk creation, at most 5,000): every one is checked
    /// before any is written, then each is written in its turn (a case whose id exists already
    /// stops the rest: 409 `case_exists`, those before it kept).
    public func create(list: String, _ cases: [NewCase], by user: User, at time: Date = Date()) async throws -> [StoredCase] {
        guard user.role == .coordinator, let teamId = user.teamId else {
            throw ServiceError(.forbidden(code: "not_a_coordinator"), "only a team's coordinators open cases by hand")
        }
        guard !cases.isEmpty, cases.count <= 5_000 else {
            throw ServiceError(.invalidRequest, "give 1 to 5,000 cases to open at once")
        }
        guard Set(cases.map(\.id)).count == cases.count else { throw ServiceError(.invalidRequest, "two of the cases given have one id") }
        let versions = try await published(for: user)
        guard lists(in: versions).contains(where: { $0.name == list }) else {
            throw ServiceError(.notFound, "no published questionnaire declares the case list '\(list)'")
        }
        var made: [StoredCase] = []
        for (offset, new) in cases.enumerated() {
            let patient: PatientIdentification
            let properties: [String: Answer]
            do {
                patient = try Self.patient(labelled: new.label)
                properties = try Self.properties(new.data, of: list, in: versions)
            } catch let error as ServiceError where cases.count > 1 {
                throw ServiceError(error.kind, "case \(offset + 1) of \(cases.count): \(error.description)")
            }
            made.append(
                CaseFold.folded(
                    StoredCase(
                        id: new.id, list: list, teamId: teamId, patientId: nil,
                        opening: CaseOpeningFacts(
                            recordId: new.id, at: time, collector: user.username, patient: patient, properties: properties, due: nil),
                        assignee: nil, updatedAt: time)))
        }
        var written: [StoredCase] = []
        for stored in made {
            guard try await store.insertCase(stored, at: time) else {
                throw ServiceError(
                    .conflict(code: "case_exists"),
                    "a case already has the id \(stored.id.uuidString.lowercased())"
                        + (written.isEmpty ? "" : "; the \(written.count) case(s) before it were opened"))
            }
            written.append(try await store.storedCase(id: stored.id) ?? stored)
        }
        return written
    }

    /// The patient an entity's label names (given name first), checked.
    static func patient(labelled label: String) throws -> PatientIdentification {
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        // What reaches field workers' terminals holds no control character, as records' text
        // does not; a name is one line.
        guard !ControlCharacters.contained(in: trimmed), !trimmed.contains(where: \.isNewline) else {
            throw ServiceError(.invalidRequest, "the label is one line of text: \(ControlCharacters.problem)")
        }
        let parts = trimmed.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = parts.first, trimmed.count <= 200 else {
            throw ServiceError(.invalidRequest, "a case's label names its patient: 1 to 200 characters")
        }
        return PatientIdentification(givenName: first, familyName: parts.dropFirst().joined(separator: " "))
    }

    /// Properties given as text (as ODK's entities hold them), each in the type a questionnaire
    /// following `list` declares (any other is text); a text that does not fit its type is refused.
    static func properties(_ data: [String: String], of list: String, in versions: [(PublishedQuestionnaire, Questionnaire)]) throws
        -> [String: Answer]
    {
        guard !data.contains(where: { ControlCharacters.contained(in: $0.key + $0.value) }) else {
            throw ServiceError(.invalidRequest, "a value \(ControlCharacters.problem)")
        }
        guard data.values.allSatisfy({ $0.count <= 10_000 }), data.count <= 200 else {
            throw ServiceError(.invalidRequest, "a case holds at most 200 properties of at most 10,000 characters each")
        }
        var declared: [String: QuestionType] = [:]
        for (_, questionnaire) in versions {
            guard let follows = questionnaire.cases.follows, follows.list == list else { continue }
            for property in follows.properties { declared[property.name] = property.type }
        }
        var properties: [String: Answer] = [:]
        // An empty text is no value (ODK's way of leaving a property unset).
        for (name, text) in data where !text.isEmpty {
            guard !CaseRules.reservedPropertyNames.contains(name) else {
                throw ServiceError(
                    .invalidRequest, "'\(name)' is the case's own (its status or due date), not a property: name it otherwise")
            }
            guard CaseListName.isPropertyName(name) else {
                throw ServiceError(
                    .invalidRequest, "'\(name.prefix(64))' is not a property name: letters, digits and '_', starting with a letter")
            }
            guard let type = declared[name] else {
                properties[name] = .text(text)
                continue
            }
            guard let value = CaseRules.Property(name: name, type: type).answer(fromText: text) else {
                throw ServiceError(.invalidRequest, "'\(name)' is a property of type \(type.keyword); the value given is not one")
            }
            properties[name] = value
        }
        return properties
    }

    /// Whether `list` is a case list the published questionnaires `user` sees declare, with a property `name`.
    public func declares(list: String, property name: String? = nil, for user: User) async throws -> Bool {
        guard let found = try await lists(for: user).first(where: { $0.name == list }) else { return false }
        return name.map(found.properties.contains) ?? true
    }

    /// A coordinator's change of a case by hand (an ODK entity's update): the properties `data`
    /// gives (in the types the list's questionnaires declare; an empty text changes nothing),
    /// folded as a visit made now from `baseRevision` (nil: from the case's revision, whatever
    /// it is). A revision other than the case's is refused (409 `version_mismatch`), as Central
    /// refuses a stale `baseVersion`. A new `label` renames the patient of a case opened by hand;
    /// a case a record opened takes its patient's name from that record.
    public func update(
        _ id: UUID, list: String, label: String?, data: [String: String], baseRevision: Int?, by user: User, at time: Date = Date()
    ) async throws -> StoredCase {
        guard let stored = try await store.storedCase(id: id), stored.list == list else { throw Self.notFound(id) }
        try Self.check(.update, user, stored)
        if stored.erased { throw ServiceError(.conflict(code: "case_erased"), "this case was deleted; it cannot be changed") }
        if let baseRevision, baseRevision != stored.revision {
            throw Self.versionMismatch(at: stored.revision, given: baseRevision)
        }
        var newName: PatientIdentification?
        if let label, label.trimmingCharacters(in: .whitespacesAndNewlines) != stored.label {
            guard stored.openedByHand else {
                throw ServiceError(
                    .conflict(code: "label_from_record"),
                    "a record opened this case: its label is the patient's name that record gives; correct the name there")
            }
            newName = try Self.patient(labelled: label)
        }
        let renamed = newName
        let properties = try Self.properties(data, of: list, in: try await published(for: user))
        // Nothing to change (no value, the same label): the case as it is, at its revision (the
        // revision named was checked above).
        if properties.isEmpty, renamed == nil { return stored }
        // The change is recorded only if the case is still as it was read (not deleted, at the
        // revision named): checked again where it is written, in the store's transaction.
        var edit = CaseVisit(
            recordId: UUID(), at: time, collector: user.username, baseRevision: baseRevision ?? stored.revision, arrivalRevision: 0,
            properties: properties, due: nil, closes: false)
        edit.byHand = true
        let change = edit
        guard
            let written = try await store.changeCase(
                id: id, teamId: stored.teamId, at: time,
                { current in
                    guard !current.erased, baseRevision.map({ $0 == current.revision }) ?? true else { return nil }
                    var next = current
                    if let renamed { next.opening.patient = renamed }
                    var made = change
                    if baseRevision == nil { made.baseRevision = current.revision }
                    // A change of the label alone takes a revision too, so another client sees it changed.
                    return CaseFold.recording(made, in: next, at: time)
                })
        else { throw Self.notFound(id) }
        guard written.visits.contains(where: { $0.recordId == change.recordId }) else {
            if written.erased { throw ServiceError(.conflict(code: "case_erased"), "this case was deleted; it cannot be changed") }
            throw Self.versionMismatch(at: written.revision, given: baseRevision ?? stored.revision)
        }
        return written
    }

    /// Deletes a case a coordinator opened by hand (an ODK entity's deletion): it is closed and
    /// keeps nothing of the patient, as a case whose opening record was deleted. A case a record
    /// opened is deleted with that record (409 `opened_by_record`).
    public func delete(_ id: UUID, list: String, by user: User, at time: Date = Date()) async throws -> StoredCase {
        guard let stored = try await store.storedCase(id: id), stored.list == list else { throw Self.notFound(id) }
        try Self.check(.update, user, stored)
        guard stored.openedByHand else {
            throw ServiceError(
                .conflict(code: "opened_by_record"),
                "a record opened this case: delete that record to delete the case, or close the case (PUT /v1/cases/{id}/status)")
        }
        if stored.erased { return stored }
        return try await change(id, stored.teamId, at: time) { current in CaseFold.erased(current, at: time) }
    }

    /// A list's cases `user` sees: a coordinator every case of the team in it, a field worker the
    /// open ones they follow.
    public func cases(in list: String, for user: User) async throws -> [StoredCase] {
        guard let reach = RecordAccessPolicy.casePull(by: user) else { return [] }
        var all: [StoredCase] = []
        var after: Int64 = 0
        while true {
            let page =
                reach.visibleTo == nil
                ? try await store.teamCases(teamId: reach.teamId, changedAfter: after, limit: 1000)
                : try await store.openCases(teamId: reach.teamId, visibleTo: reach.visibleTo, changedAfter: after, limit: 1000)
            all += page.filter { $0.list == list }
            guard page.count == 1000, let last = page.last else { return all }
            after = last.changeSeq
        }
    }

    // MARK: What people see and change

    /// A page of `user`'s pull: the open cases they follow changed after `after`, and, on the
    /// last page (fewer than `limit`), the ids of every open case they follow (a machine drops the
    /// cases it holds that are not among them).
    public func pull(by user: User, after: Int64, limit: Int) async throws -> (cases: [StoredCase], ids: [UUID]?) {
        guard let reach = RecordAccessPolicy.casePull(by: user) else {
            throw ServiceError(.forbidden(code: "no_cases"), "cases reach the field workers and coordinators of a team")
        }
        let cases = try await store.openCases(teamId: reach.teamId, visibleTo: reach.visibleTo, changedAfter: after, limit: limit)
        let ids = cases.count < limit ? try await store.openCaseIds(teamId: reach.teamId, visibleTo: reach.visibleTo) : nil
        return (cases, ids)
    }

    /// Every case of the coordinator's team, open or closed, in change order.
    /// The open cases `user` follows (a coordinator: the team's), soonest due first, at most
    /// `limit`, and how many there are by what they need on `today` (the team's day in its zone).
    public func board(for user: User, today: LocalDate, limit: Int) async throws -> (cases: [StoredCase], counts: CaseCounts) {
        guard let reach = RecordAccessPolicy.casePull(by: user) else {
            throw ServiceError(.forbidden(code: "no_cases"), "cases reach the field workers and coordinators of a team")
        }
        async let cases = store.openCasesByDue(teamId: reach.teamId, visibleTo: reach.visibleTo, limit: limit)
        async let counts = store.caseCounts(teamId: reach.teamId, visibleTo: reach.visibleTo, today: today)
        return (try await cases, try await counts)
    }

    public func teamCases(by user: User, after: Int64, limit: Int) async throws -> [StoredCase] {
        guard user.role == .coordinator, let team = user.teamId else {
            throw ServiceError(.forbidden(code: "not_a_coordinator"), "only a team's coordinators list all of its cases")
        }
        return try await store.teamCases(teamId: team, changedAfter: after, limit: limit)
    }

    /// One case, if `user` may see it.
    public func show(_ id: UUID, by user: User) async throws -> StoredCase {
        guard let stored = try await store.storedCase(id: id) else { throw Self.notFound(id) }
        try Self.check(.read, user, stored)
        return stored
    }

    /// The case a follow-up record `user` sends names, as the record-access policy lets them
    /// visit it (``CaseAction/visit``: a visit made offline keeps a case closed since, or given
    /// to another after they opened it).
    /// The case is given as it stood at `revision` (the version the visit's form read; nil: now).
    public func visited(_ id: UUID, by user: User, asOf revision: Int? = nil) async throws -> StoredCase {
        guard let stored = try await store.storedCase(id: id), !stored.erased else { throw Self.notFound(id) }
        // Whether the visitor opened it (the record that opened it is theirs: they met the
        // patient). A visit of theirs does not count: one can be sent for any case of the team.
        let hadIt = stored.opening.collector == user.username
        try Self.check(.visit, user, stored, hadIt: hadIt)
        return revision.map { CaseFold.asOf($0, stored) } ?? stored
    }

    /// Assigns the case to a field worker of its team, or to the team (nil).
    public func assign(_ id: UUID, to assignee: String?, by user: User, at time: Date = Date()) async throws -> StoredCase {
        guard let stored = try await store.storedCase(id: id) else { throw Self.notFound(id) }
        try Self.check(.assign, user, stored)
        if let assignee {
            let member = try await store.credentials(username: assignee)?.user
            guard let member, member.teamId == stored.teamId, member.role == .fieldworker || member.role == .coordinator, !member.disabled
            else {
                throw ServiceError(
                    .unprocessable(code: "unknown_assignee"),
                    "'\(assignee)' is no active field worker or coordinator of the case's team; assign it to one, or to the team (null)")
            }
        }
        return try await change(id, stored.teamId, at: time) { current in
            var next = current
            next.assignee = assignee
            return next
        }
    }

    /// Closes the case without a visit (`closed` false: opens it again), at `time`: a visit made
    /// before it and arriving later does not undo it (``CaseFold``). A case whose opening record
    /// was deleted stays closed.
    public func close(_ id: UUID, closed: Bool = true, by user: User, at time: Date = Date()) async throws -> StoredCase {
        guard let stored = try await store.storedCase(id: id) else { throw Self.notFound(id) }
        try Self.check(.close, user, stored)
        if stored.erased, !closed {
            throw ServiceError(
                .conflict(code: "case_erased"), "the record that opened this case was deleted; the case cannot be opened again")
        }
        let username = user.username
        return try await change(id, stored.teamId, at: time) { current in
            var next = current
            next.statusChanges.append(CaseStatusChange(at: time, closed: closed, by: username))
            next.updatedAt = time
            return CaseFold.folded(next)
        }
    }

    private func change(_ id: UUID, _ teamId: Int64, at time: Date, _ decide: @escaping @Sendable (StoredCase) -> StoredCase) async throws
        -> StoredCase
    {
        guard let changed = try await store.changeCase(id: id, teamId: teamId, at: time, decide) else { throw Self.notFound(id) }
        return changed
    }

    private static func check(_ action: CaseAction, _ user: User, _ stored: StoredCase, hadIt: Bool = false) throws {
        switch RecordAccessPolicy.decide(
            action, by: user, onCaseOf: stored.teamId, assignee: stored.assignee, isOpen: stored.status == .open, hadIt: hadIt)
        {
        case .allowed: return
        case .notFound, .gone: throw notFound(stored.id)
        case .forbidden(let code): throw ServiceError(.forbidden(code: code), "only the team's coordinators assign and close cases")
        }
    }

    /// A change named a revision the case is no longer at (Central's stale `baseVersion`).
    private static func versionMismatch(at revision: Int, given: Int) -> ServiceError {
        ServiceError(
            .conflict(code: "version_mismatch"),
            "the case is at revision \(revision), not \(given): read it again and change what it is now")
    }

    private static func notFound(_ id: UUID) -> ServiceError {
        ServiceError(.notFound, "no case \(id.uuidString.lowercased()) is yours to see")
    }
}
