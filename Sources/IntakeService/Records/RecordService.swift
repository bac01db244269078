import Foundation
import IntakeCore
import Synchronization

/// Checks records against their published questionnaire and stores them idempotently.
public struct RecordService: Sendable {
    /// What records need of a store: the records, membership (collectors), patients (their
    /// teams) and questionnaires (collector-only).
    public typealias Store = RecordDataStore & TeamStore & PatientStore & QuestionnaireStore
    public let store: any Store
    public let questionnaires: QuestionnaireService
    /// Wakes change feed readers (`GET /v1/changes?wait=`, the change stream) when this server
    /// saves or deletes a record; another server's changes are found within its poll interval.
    public let changes = NotificationHub()
    /// Collectors found to be (or to have been) members of a team: that stays true, so each is
    /// asked of the store once per server.
    let collectors = KnownCollectors()

    /// Wakes notification readers (the inbox stream, webhooks) when a stored record raised an alert.
    public let notifications: NotificationHub

    /// The files records name (nil: this server keeps none, and records naming files are refused).
    public let attachments: AttachmentStore?

    public init(
        store: any Store, questionnaires: QuestionnaireService, notifications: NotificationHub = NotificationHub(),
        attachments: AttachmentStore? = nil
    ) {
        self.store = store
        self.questionnaires = questionnaires
        self.notifications = notifications
        self.attachments = attachments
    }

    /// What became of one record sent to the server.
    public enum Result: Sendable {
        case stored(IngestOutcome, warnings: [ValidationIssue])
        case invalid(code: String, message: String, issues: [ValidationIssue])
    }

    /// A record that passed validation, with hidden answers dropped, ready to store.
    enum Checked {
        case valid(IngestItem, warnings: [ValidationIssue])
        case invalid(code: String, message: String, issues: [ValidationIssue])
    }

    /// Validates with the same `IntakeCore` validator the CLI uses. `today` is a day ahead of
    /// UTC so a device east of the server may record its own today.
    /// A record that points to a patient must point to one of `teamId`'s (the team it belongs to).
    /// Its collector must be a member of that team, now or before; an edit must keep the
    /// collector the record was stored with (`storedCollector`): who filled it does not change,
    /// and who edited is kept with each revision.
    func check(
        _ record: PatientResponse, teamId: Int64, today: LocalDate = RecordService.today(), patients: PatientTeams = PatientTeams(),
        storedCollector: String? = nil, trial: Bool = false, uploadsTeam: Int64? = nil
    ) async throws -> Checked {
        if let storedCollector {
            guard record.collector == storedCollector else {
                return .invalid(
                    code: "collector_changed",
                    message:
                        "an edit keeps the record's collector '\(storedCollector.prefix(100))' (the account that filled it); send the record with that collector: who edited it is kept with each revision",
                    issues: [])
            }
        } else if try await !collectors.isOrWasMember(record.collector, teamId: teamId, store) {
            return .invalid(
                code: "unknown_collector",
                message:
                    record.collector.isEmpty
                    ? "the record has no collector (it was filled before anyone signed in on its machine); send it with a member's user name as collector (intake flush gives it the signed-in account's)"
                    : "the record's collector '\(record.collector.prefix(100))' is not a member of this team, now or before; the collector is the account that filled the record: send it with a member's user name as collector (a draft: intake fill --resume ID --collector NAME; a record set aside: intake queue retry ID --collector NAME)",
                issues: [])
        }
        if let patientId = record.patientId, try await patients.team(of: patientId, store) != teamId {
            return .invalid(
                code: "unknown_patient",
                message:
                    "patient \(patientId.uuidString.lowercased()) is not in the team's registry; register them first (intake patient register)",
                issues: [])
        }
        guard let questionnaire = try await questionnaires.questionnaire(record.questionnaire) else {
            let current = try await questionnaires.current(id: record.questionnaire.id)?.version
            return .invalid(
                code: "unknown_questionnaire",
                message: "questionnaire \(record.questionnaire) is not published on this server; "
                    + (current.map {
                        "new records use version \($0) (intake questionnaire pull); publish this version to take records on it"
                    }
                        ?? "publish it first (POST /v1/questionnaires)"),
                issues: [])
        }
        // A draft, a version closed to new records, a retired one: refused, saying where to go.
        // A record the server holds already (sent again after a lost answer) is not refused here:
        // storing it answers that it is a duplicate.
        if !trial, let refusal = try await questionnaires.refusal(of: record, isEdit: storedCollector != nil) {
            let stored = storedCollector == nil ? try await store.record(id: record.id) : nil
            if stored == nil { return .invalid(code: refusal.code, message: refusal.message, issues: []) }
        }
        let (issues, cleaned) = Validator(questionnaire: questionnaire, today: today).validateAndClean(record)
        guard issues.errors.isEmpty else {
            return .invalid(
                code: "invalid_record", message: "the record does not pass validation: \(issues.errors.count) issue(s)", issues: issues)
        }
        // Every file the record names is on the server, whole, before the record is taken.
        let missing = missingAttachments(of: cleaned, uploadsTeam: uploadsTeam ?? teamId)
        if !missing.isEmpty {
            return .invalid(
                code: "attachment_missing",
                message: attachments == nil
                    ? "this server keeps no files (set INTAKE_SERVER_ATTACHMENTS to a folder); send the record without them"
                    : "\(missing.count) file(s) the record names are not on the server; upload each first (PUT /v1/uploads/{sha256}), then send the record again",
                issues: missing)
        }
        var item = IngestItem(record: cleaned)
        item.alerts = RecordAlert.raised(byCleaned: cleaned, questionnaire: questionnaire, today: today)
        item.caseWork = CaseService.caseWork(of: cleaned, questionnaire: questionnaire)
        return .valid(item, warnings: issues)
    }

    /// An issue for each file the record names that this server does not hold whole, for the
    /// record or in the uploads of the team that sends it (linked into the record's folder once
    /// the record is stored: ``takeFiles(of:uploadsTeam:)``).
    func missingAttachments(of record: PatientResponse, uploadsTeam: Int64) -> [ValidationIssue] {
        let files = record.attachments
        guard !files.isEmpty else { return [] }
        var issues: [ValidationIssue] = []
        for ref in files where attachments?.isAvailable(ref, record: record.id, team: uploadsTeam) != true {
            issues.append(
                ValidationIssue(
                    kind: .invalidValue, field: String(ref.sha256.prefix(12)),
                    message:
                        "the file \(ref.sha256.prefix(12))… (\(ref.mediaType), \(ref.size) bytes) is not on the server; upload it first"))
        }
        return issues
    }

    /// Links the files a stored record names from the sending team's uploads into its folder
    /// (after the store took it, so a refused record leaves no folder behind). A file not linked
    /// here (the server stopped first) is linked when it is first read.
    public func takeFiles(of record: PatientResponse, uploadsTeam: Int64) {
        guard let attachments else { return }
        for ref in record.attachments { _ = attachments.adopt(ref, record: record.id, team: uploadsTeam) }
    }

    /// A file of a stored record, linking it from its team's uploads if it was not yet.
    public func file(_ sha256: String, of stored: StoredRecord) -> Data? {
        guard let attachments, let ref = stored.record.attachments.first(where: { $0.sha256 == sha256 }) else { return nil }
        if let bytes = attachments.read(record: stored.record.id, sha256: sha256) { return bytes }
        _ = attachments.adopt(ref, record: stored.record.id, team: stored.teamId)
        return attachments.read(record: stored.record.id, sha256: sha256)
    }

    /// What became of a test record of a draft version.
    public enum TrialResult: Sendable {
        case kept(isNew: Bool, warnings: [ValidationIssue])
        case invalid(code: String, message: String, issues: [ValidationIssue])
    }

    /// Checks a record of a draft version as any record is checked and keeps it apart, as a test
    /// record of `teamId` sent by `user`: no export, change feed, lookup or count sees it, and
    /// publishing the version discards it. Refused for a version that is not a draft.
    public func tryRecord(_ record: PatientResponse, teamId: Int64, by user: String, at time: Date = Date()) async throws -> TrialResult {
        let reference = record.questionnaire
        guard let status = try await store.questionnaireStatus(id: reference.id, version: reference.version) else {
            return .invalid(
                code: "unknown_questionnaire", message: "questionnaire \(reference) is not on this server; publish it as a draft first",
                issues: [])
        }
        guard status.state == .draft else {
            return .invalid(
                code: "not_a_draft",
                message: "questionnaire \(reference) is \(status.state.rawValue), not a draft; its records go to POST /v1/records",
                issues: [])
        }
        switch try await check(record, teamId: teamId, trial: true) {
        case .invalid(let code, let message, let issues):
            return .invalid(code: code, message: message, issues: issues)
        case .valid(let item, let warnings):
            let kept = TestRecord(
                id: item.record.id, questionnaireId: reference.id, version: reference.version, teamId: teamId,
                collector: item.record.collector,
                submittedBy: user, receivedAt: time, answerCount: item.record.answerCount, payload: RecordCodec.encode(item.record))
            do {
                return .kept(isNew: try await store.storeTestRecord(kept), warnings: warnings)
            } catch RecordStoreError.alreadyExists {
                return .invalid(code: "id_taken", message: "another team has a test record with this id; send it with a new id", issues: [])
            }
        }
    }

    /// The test records of a version that team `teamId` sent, newest first (no answers).
    public func testRecords(of reference: QuestionnaireReference, teamId: Int64) async throws -> [TestRecord] {
        try await store.testRecords(questionnaireId: reference.id, version: reference.version, teamId: teamId)
    }

    /// Discards team `teamId`'s test records of a version; how many.
    public func discardTestRecords(of reference: QuestionnaireReference, teamId: Int64) async throws -> Int {
        try await store.deleteTestRecords(questionnaireId: reference.id, version: reference.version, teamId: teamId)
    }

    /// How many days a tombstone may be kept before a purge, at least and at most.
    public static let tombstoneRetention = 1...36_500

    /// Purges the tombstones of records deleted more than `days` days before `now`; returns
    /// what the purge did and the cutoff it used.
    public func purgeTombstones(olderThanDays days: Int, by user: String, now: Date = Date()) async throws -> (TombstonePurge, cutoff: Date)
    {
        let cutoff = now.addingTimeInterval(-Double(days) * 86_400)
        return (try await store.purgeTombstones(deletedBefore: cutoff, by: user, at: now), cutoff)
    }

    /// A day ahead of UTC's today, so a device east of the server may record its own today.
    public static func today(now: Date = Date()) -> LocalDate {
        let days = Int((now.timeIntervalSince1970 / 86_400).rounded(.down)) + 1
        let (year, month, day) = CivilDays.date(fromDays: Int64(days))
        return LocalDate(year: year, month: month, day: day)!
    }

    /// Validates and stores records in one transaction; invalid ones are reported, not stored.
    public func ingest(_ records: [PatientResponse], owner: RecordOwner) async throws -> [Result] {
        let today = Self.today()
        let patients = PatientTeams()
        let checked = try await checkAll(records, teamId: owner.teamId, today: today, patients: patients)
        let items = checked.compactMap { if case .valid(let item, _) = $0 { item } else { nil } }
        // Nothing valid: no transaction.
        let stored = items.isEmpty ? [] : try await store.ingest(items, owner: owner, at: Date())
        for (item, outcome) in zip(items, stored) {
            switch outcome {
            case .created, .duplicate: takeFiles(of: item.record, uploadsTeam: owner.teamId)
            default: break
            }
        }
        if stored.contains(where: { if case .created = $0 { true } else { false } }) { changes.notify() }
        if items.contains(where: { !$0.alerts.isEmpty }) { notifications.notify() }
        var outcomes = stored.makeIterator()
        return checked.map { entry in
            switch entry {
            case .valid(_, let warnings): .stored(outcomes.next()!, warnings: warnings)
            case .invalid(let code, let message, let issues): .invalid(code: code, message: message, issues: issues)
            }
        }
    }
}

extension RecordService {
    /// Checks a request's records, a large batch's on every core (each part in order; the
    /// results in the records' order).
    func checkAll(_ records: [PatientResponse], teamId: Int64, today: LocalDate, patients: PatientTeams) async throws -> [Checked] {
        let parts = min(ProcessInfo.processInfo.activeProcessorCount, records.count / 32)
        guard parts > 1 else {
            var checked: [Checked] = []
            for record in records { checked.append(try await check(record, teamId: teamId, today: today, patients: patients)) }
            return checked
        }
        let size = (records.count + parts - 1) / parts
        return try await withThrowingTaskGroup(of: (Int, [Checked]).self) { group in
            for part in 0..<parts {
                let slice = records[min(part * size, records.count)..<min((part + 1) * size, records.count)]
                group.addTask {
                    var checked: [Checked] = []
                    checked.reserveCapacity(slice.count)
                    for record in slice { checked.append(try await check(record, teamId: teamId, today: today, patients: patients)) }
                    return (part, checked)
                }
            }
            var done = [[Checked]](repeating: [], count: parts)
            for try await (part, checked) in group { done[part] = checked }
            return done.flatMap { $0 }
        }
    }
}

/// Pairs of team and user name known to be (or to have been) members: membership history only
/// grows, so a yes is kept; a no is asked again next time.
final class KnownCollectors: Sendable {
    private let known = Mutex<Set<String>>([])

    func isOrWasMember(_ username: String, teamId: Int64, _ store: any TeamStore) async throws -> Bool {
        let key = "\(teamId)\u{0}\(username)"
        if known.withLock({ $0.contains(key) }) { return true }
        guard !username.isEmpty, try await store.isOrWasMember(username: username, teamId: teamId) else { return false }
        known.withLock { _ = $0.insert(key) }
        return true
    }
}

/// The teams of the patients a request's records point to, each read once.
final class PatientTeams: Sendable {
    private let known = Mutex<[UUID: Int64?]>([:])

    /// The team of the patient, or nil when there is no such patient.
    func team(of id: UUID, _ store: any PatientStore) async throws -> Int64? {
        if let team = known.withLock({ $0[id] }) { return team }
        let team = try await store.patient(id: id)?.teamId
        known.withLock { $0[id] = team }
        return team
    }
}

/// What the routes ask of records beyond ingest, each through here (never the store itself):
/// the change feed, lookup, revisions, edits, deletions and transfers, waking change-feed readers
/// after each change.
extension RecordService {
    public func changes(teamId: Int64, after cursor: Int64, limit: Int) async throws -> ChangePage {
        try await store.changes(teamId: teamId, after: cursor, limit: limit)
    }

    public func lookup(_ query: LookupQuery) async throws -> [LookupMatch] { try await store.lookup(query) }

    public func revisions(of id: UUID) async throws -> [RecordRevision] { try await store.revisions(of: id) }

    /// Why `record` would not be taken, as a new record of `teamId` or as an edit of `stored`, or
    /// nil when it would: the checks ``ingest(_:owner:)`` and ``edit(_:of:baseRevision:savedBy:uploadsTeam:deviceId:)``
    /// make before storing, so that an import of many records can refuse all before storing any.
    public func problems(
        of record: PatientResponse, teamId: Int64, editing stored: StoredRecord?, uploadsTeam: Int64
    ) async throws -> (code: String, message: String, issues: [ValidationIssue])? {
        switch try await check(
            record, teamId: stored?.teamId ?? teamId, storedCollector: stored?.record.collector, uploadsTeam: uploadsTeam)
        {
        case .valid: nil
        case .invalid(let code, let message, let issues): (code, message, issues)
        }
    }

    /// What became of an edit sent through ``edit(_:of:baseRevision:savedBy:uploadsTeam:deviceId:)``.
    public enum EditResult: Sendable {
        case saved(UpdateOutcome)
        /// The edit holds what revision `revision` holds already: no new revision is made.
        case unchanged(revision: Int)
        case invalid(code: String, message: String, issues: [ValidationIssue])
    }

    /// Validates an edit of `stored` (a record the access service let the editor edit) as any
    /// record is, keeping its collector, and saves it over `baseRevision` in the record's team:
    /// what `PUT /v1/records/{id}` and the protocols' imports do.
    public func edit(
        _ record: PatientResponse, of stored: StoredRecord, baseRevision: Int, savedBy: String, uploadsTeam: Int64, deviceId: String? = nil
    ) async throws -> EditResult {
        switch try await check(record, teamId: stored.teamId, storedCollector: stored.record.collector, uploadsTeam: uploadsTeam) {
        case .invalid(let code, let message, let issues): return .invalid(code: code, message: message, issues: issues)
        case .valid(var item, _):
            // An edit that changes nothing (a record opened and saved again, an import of what is
            // stored) makes no revision: the history keeps only real changes.
            if Self.sameContent(item.record, stored.record) { return .unchanged(revision: stored.revision) }
            if let deviceId { item.deviceId = deviceId }
            return .saved(
                try await update(item, baseRevision: baseRevision, teamId: stored.teamId, savedBy: savedBy, uploadsTeam: uploadsTeam))
        }
    }

    /// Whether an edit holds what the stored record holds: answers, identification, registry
    /// patient, status, language and questionnaire version; when it was saved and from which
    /// device do not count.
    static func sameContent(_ edit: PatientResponse, _ stored: PatientResponse) -> Bool {
        var edit = edit
        edit.updatedAt = stored.updatedAt
        edit.createdAt = stored.createdAt
        edit.deviceId = stored.deviceId
        return edit == stored
    }

    /// Saves an edit checked by ``check(_:teamId:today:patients:storedCollector:)``.
    public func update(_ item: IngestItem, baseRevision: Int, teamId: Int64, savedBy: String, uploadsTeam: Int64? = nil) async throws
        -> UpdateOutcome
    {
        let outcome = try await store.update(item, baseRevision: baseRevision, teamId: teamId, savedBy: savedBy, at: Date())
        if case .updated = outcome {
            takeFiles(of: item.record, uploadsTeam: uploadsTeam ?? teamId)
            changes.notify()
            if !item.alerts.isEmpty { notifications.notify() }
        }
        return outcome
    }

    public func delete(_ id: UUID, teamId: Int64, reason: String, by user: String) async throws -> DeleteOutcome {
        let files = attachments == nil ? [] : try await store.revisions(of: id).flatMap { $0.record.attachments.map(\.sha256) }
        let outcome = try await store.deleteRecord(id: id, teamId: teamId, reason: reason, by: user, at: Date())
        if case .deleted = outcome {
            // Its files go with it, and the team's uploads of them: the tombstone keeps no answer, and no file either.
            attachments?.remove(record: id)
            attachments?.removeUploads(team: teamId, sha256s: files)
            changes.notify()
            // Its open referrals were closed, and their sides told: live inboxes hear of it now.
            notifications.notify()
        }
        return outcome
    }

    public func transfer(_ request: TransferRequest) async throws -> TransferOutcome {
        let outcome = try await store.transfer(request)
        if case .transferred = outcome { changes.notify() }
        return outcome
    }
}

extension RecordService {
    /// Makes a questionnaire's records visible only to their collectors (and coordinators), or
    /// team-wide again; a change re-sends its records on the change feed. Whether it changed.
    public func setCollectorOnly(questionnaireId: String, _ collectorOnly: Bool, by user: String) async throws -> Bool {
        let changed = try await store.setCollectorOnly(questionnaireId: questionnaireId, collectorOnly, by: user, at: Date())
        if changed { changes.notify() }
        return changed
    }
}
