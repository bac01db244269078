import Foundation
import IntakeCore
import IntakeExport

/// Builds research exports from the store: the plan over every published version of a
/// questionnaire, the pseudonym secret, and the records page by page.
public struct ExportService: Sendable {
    /// What exports need of a store: snapshots, the pseudonym secret, questionnaires, data
    /// groups, and the teams and their cases.
    public typealias Store = ExportStore & SecretStore & QuestionnaireStore & PatientStore & CaseStore & AccountStore
    let store: any Store
    let questionnaires: QuestionnaireService
    /// The name of the server secret patient keys are made with.
    static let patientKeySecret = "patient-key"

    public init(store: any Store, questionnaires: QuestionnaireService) {
        self.store = store
        self.questionnaires = questionnaires
    }

    /// What to export.
    public struct Request: Sendable {
        /// nil when only one questionnaire is published.
        public var questionnaireId: String?
        /// nil for every team.
        public var teamId: Int64?
        public var since: Since?
        public var options: ExportOptions
        /// A researcher's export: only what consent allows (nil: a coordinator's, their team's own records).
        public var consent: ConsentFilter?
        /// Only records (and reports) of patients in one of these data groups, when not empty.
        public var dataGroups: [String]
        /// Up to this cursor rather than the newest change: an export's side files, asked for
        /// after its records, cover what the records did.
        public var until: Since?
        /// Only records in one of these review states, when not empty.
        public var reviewStates: [ReviewState]
        /// Only these records, when not empty (at most ``ExportQuery/maxRecordIds``): what a
        /// protocol reading a record by id asks, so it reads that record rather than every one.
        public var recordIds: [UUID] = []

        public init(
            questionnaireId: String? = nil, teamId: Int64? = nil, since: Since? = nil, options: ExportOptions = ExportOptions(),
            consent: ConsentFilter? = nil, dataGroups: [String] = [], until: Since? = nil, reviewStates: [ReviewState] = []
        ) {
            self.reviewStates = reviewStates
            self.consent = consent
            self.dataGroups = dataGroups
            self.until = until
            self.questionnaireId = questionnaireId
            self.teamId = teamId
            self.since = since
            self.options = options
        }
    }

    /// Where an incremental export starts (``ExportSince``).
    public typealias Since = ExportSince

    /// An export ready to stream: its plan, how many records it holds and the cursor to resume after it.
    public struct Prepared: Sendable {
        public let plan: ExportPlan
        public let count: Int
        /// Give it as `since` next time to get only later changes: `team-42` for a team's export, `42` for every team's.
        public let cursor: String
        let query: ExportQuery
        let keyer: PatientKeyer
        let snapshot: any ExportSnapshot
    }

    public func prepare(_ request: Request) async throws -> Prepared {
        // A draft has no records: its questions are no columns of an export.
        let published = try await store.questionnaires().filter { $0.status.state != .draft }
        let id = try questionnaireId(request.questionnaireId, published: published)
        var versions: [Questionnaire] = []
        for entry in published.filter({ $0.id == id }).sorted(by: { $0.publishedAt < $1.publishedAt }) {
            if let questionnaire = try await questionnaires.questionnaire(QuestionnaireReference(id: entry.id, version: entry.version)) {
                versions.append(questionnaire)
            }
        }
        let plan: ExportPlan
        guard !versions.isEmpty else { throw ServiceError(.notFound, "no version of '\(id)' can be read") }
        let defined = try await store.dataGroups().map(\.name).sorted()
        let unknown = request.dataGroups.filter { !defined.contains($0) }
        guard unknown.isEmpty else {
            throw ServiceError(
                .unprocessable(code: "unknown_data_group"),
                "no data group is named \(unknown.map { "'\($0.prefix(40))'" }.joined(separator: ", "))"
                    + (defined.isEmpty ? "; none is defined yet" : "; defined: \(defined.joined(separator: ", "))"))
        }
        var options = request.options
        options.dataGroups = defined
        do {
            plan = try ExportPlan(questionnaires: versions, options: options)
        } catch {
            throw ServiceError(.unprocessable(code: "conflicting_options"), error.description)
        }
        let snapshot = try await store.exportSnapshot(teamId: request.teamId)
        var cursor = snapshot.cursor
        switch request.until {
        case .teamCursor(let until)? where request.teamId != nil, .cursor(let until)? where request.teamId == nil:
            guard until <= cursor else {
                throw ServiceError(
                    .unprocessable(code: "unknown_cursor"),
                    "'until' is a cursor this server has not given yet; give the cursor of the export's records")
            }
            cursor = until
        case .some:
            throw ServiceError(
                .unprocessable(code: "wrong_cursor"),
                "'until' is the cursor the export's records came with (team-42 for a team's export, 42 for every team's), not a time or another kind of cursor"
            )
        case nil: break
        }
        // Pages of 128: a record read into memory is ten times its JSON (repeats make it larger
        // still), and two pages are held at once (one written while the next is read).
        var query = ExportQuery(questionnaireId: id, teamId: request.teamId, after: 0, upTo: cursor, limit: 128)
        query.consent = request.consent
        query.dataGroups = request.dataGroups
        query.reviewStates = request.reviewStates
        guard request.recordIds.count <= ExportQuery.maxRecordIds else {
            throw ServiceError(
                .unprocessable(code: "too_many_records"), "an export names at most \(ExportQuery.maxRecordIds) records by id")
        }
        query.recordIds = request.recordIds
        switch request.since {
        case .teamCursor(let after)? where request.teamId != nil, .cursor(let after)? where request.teamId == nil:
            // A cursor past the newest change was not given by this deployment for this export.
            guard after <= cursor else {
                throw ServiceError(
                    .unprocessable(code: "unknown_cursor"),
                    "'since' is a cursor this server has not given yet; give one from an earlier export, or a time")
            }
            query.after = after
            query.previous = .cursor(after)
        case .cursor?:
            throw ServiceError(
                .unprocessable(code: "wrong_cursor"),
                "'since' is a cursor of an export of every team (or one made before cursors were kept per team); "
                    + "your exports are of your team and carry cursors such as team-42: give one of those, or a time")
        case .teamCursor?:
            throw ServiceError(
                .unprocessable(code: "wrong_cursor"),
                "'since' is a cursor of one team's export; an export of every team takes cursors such as 42, or a time")
        case .time(let date)?:
            query.changedSince = date
            query.previous = .time(date)
        case nil: break
        }
        let count = try await snapshot.count(query)
        let keyer = try PatientKeyer(secret: try await store.secret(named: Self.patientKeySecret))
        return Prepared(
            plan: plan, count: count, cursor: Since.cursorText(cursor, team: request.teamId != nil), query: query, keyer: keyer,
            snapshot: snapshot)
    }

    private func questionnaireId(_ requested: String?, published: [PublishedQuestionnaire]) throws -> String {
        let ids = Set(published.map(\.id)).sorted()
        if let requested {
            guard ids.contains(requested) else {
                throw ServiceError(
                    .notFound,
                    "no questionnaire '\(requested)' is published"
                        + (ids.isEmpty ? "" : "; published: \(ids.joined(separator: ", "))"))
            }
            return requested
        }
        switch ids.count {
        case 0: throw ServiceError(.notFound, "no questionnaire is published yet, so there is nothing to export")
        case 1: return ids[0]
        default:
            throw ServiceError(
                .invalid,
                "several questionnaires are published (\(ids.joined(separator: ", "))); name one with 'questionnaire'")
        }
    }

    /// Reads a prepared export's records from its snapshot, a page at a time, de-identified as its
    /// options say, in the forms its formats read (``ExportFormat/reads``). While one page is
    /// being written, the next is read and prepared (on the other core), and the stored rows of
    /// the one after it are read from the database meanwhile: memory stays at two pages and the
    /// bytes of a third.
    public final class Pager {
        let prepared: Prepared
        let needs: ExportInput.Needs
        private var ahead: Task<Page, any Error>?
        private var after: Int64

        struct Page: Sendable {
            var inputs: [ExportInput]
            var cursor: Int64?
            /// The stored rows after this page's, being read while this one is prepared.
            var following: Task<[ExportedRecord], any Error>?
        }

        public init(_ prepared: Prepared, reading needs: ExportInput.Needs) {
            self.prepared = prepared
            self.needs = needs
            self.after = prepared.query.after
        }

        deinit { ahead?.cancel() }

        public func next() async throws -> [ExportInput]? {
            let page = try await (ahead ?? fetch(after: after, rows: nil)).value
            ahead = nil
            guard let cursor = page.cursor else { return nil }
            after = cursor
            ahead = fetch(after: cursor, rows: page.following)
            return page.inputs
        }

        /// The page after `cursor`, from its rows when they are being read already.
        private func fetch(after cursor: Int64, rows reading: Task<[ExportedRecord], any Error>?) -> Task<Page, any Error> {
            var query = prepared.query
            query.after = cursor
            let asked = query
            let snapshot = prepared.snapshot
            let plan = prepared.plan
            let keyer = prepared.keyer
            let needs = needs
            return Task { try await Pager.page(asked, reading: reading, snapshot: snapshot, plan: plan, keyer: keyer, needs: needs) }
        }

        /// Reads (or takes, from `reading`) the rows `query` asks for, starts reading the rows
        /// after them, and prepares these.
        private static func page(
            _ query: ExportQuery, reading: Task<[ExportedRecord], any Error>?, snapshot: any ExportSnapshot, plan: ExportPlan,
            keyer: PatientKeyer, needs: ExportInput.Needs
        ) async throws -> Page {
            let rows: [ExportedRecord]
            if let reading {
                rows = try await withTaskCancellationHandler {
                    try await reading.value
                } onCancel: {
                    reading.cancel()
                }
            } else {
                rows = try await snapshot.page(query)
            }
            // An export given up (its pager gone) reads no further.
            try Task.checkCancellation()
            // The database reads the next page's rows while this one is prepared (one read at
            // a time: this page's is done); given up with this page if it fails.
            var following: Task<[ExportedRecord], any Error>?
            if let last = rows.last?.cursor {
                var next = query
                next.after = last
                following = Task { try await snapshot.page(next) }
            }
            do {
                let inputs = try prepare(rows, plan: plan, keyer: keyer, needs: needs)
                try Task.checkCancellation()
                return Page(inputs: inputs, cursor: rows.last?.cursor, following: following)
            } catch {
                following?.cancel()
                throw error
            }
        }

        /// A page's stored rows in the forms the formats read.
        private static func prepare(_ rows: [ExportedRecord], plan: ExportPlan, keyer: PatientKeyer, needs: ExportInput.Needs) throws
            -> [ExportInput]
        {
            try rows.map { stored in
                var input = ExportInput()
                if needs.contains(.rows) {
                    input.row = try ExportRow(
                        body: stored.body, revision: stored.revision, plan: plan, keyer: keyer, registry: stored.registry,
                        collector: stored.collector, reviewState: stored.reviewState?.rawValue)
                }
                if needs.contains(.records) {
                    var record = try RecordCodec.decode(stored.body)
                    if let collector = stored.collector { record.collector = collector }
                    input.record = ExportRecord(
                        record, revision: stored.revision, keyer: keyer,
                        includeIdentifiers: plan.options.includeIdentifiers, shiftDates: plan.options.shiftDates,
                        registry: stored.registry,
                        reviewState: stored.reviewState?.rawValue)
                }
                return input
            }
        }
    }

    /// A pager that reads what `formats` need.
    public func pager(_ prepared: Prepared, formats: [ExportFormat]) -> Pager { Pager(prepared, reading: formats.reads) }

    /// What an incremental export's receiver held and must now delete (`removed.csv`): records
    /// deleted since the earlier export, then records whose patient's sharing scope reached the
    /// receiver when the earlier export was made and does not now. Nil when the export is not
    /// incremental.
    public func removed(_ prepared: Prepared) async throws -> [RemovedRecord]? {
        guard prepared.query.previous != nil else { return nil }
        let deleted = try await prepared.snapshot.deleted(prepared.query)
        let withdrawn = try await prepared.snapshot.withdrawn(prepared.query).map { RemovedRecord(recordId: $0, reason: .consentWithdrawn) }
        return deleted + withdrawn
    }

    /// The dated reports of the patients a prepared export reaches, keyed as their records are
    /// (and their dates moved the same way), a page at a time: every report's latest version,
    /// whether or not it changed since an earlier export.
    public final class ReportPager {
        let prepared: Prepared
        private var position: ReportPosition?
        private var done = false
        let limit = 500

        public init(_ prepared: Prepared) {
            self.prepared = prepared
        }

        public func next() async throws -> [ExportReport]? {
            guard !done else { return nil }
            let reports = try await prepared.snapshot.reports(prepared.query, after: position, limit: limit)
            if reports.count < limit { done = true }
            guard let last = reports.last else { return nil }
            position = ReportPosition(last)
            let keyer = prepared.keyer
            let shift = prepared.plan.options.shiftDates
            return reports.map { report in
                let key = keyer.key(patientId: report.patientId)
                var exported = ExportReport(
                    patientKey: key, series: report.series, date: report.date, values: Array(report.values.utf8), version: report.version,
                    recordedAt: report.recordedAt)
                if shift { exported.shift(by: keyer.dateShift(patientKey: key, recordId: report.patientId)) }
                return exported
            }
        }
    }
}
