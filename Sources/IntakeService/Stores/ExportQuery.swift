import Foundation
import IntakeCore
import IntakeExport

/// Which records an export reads: one questionnaire, optionally one team, by change cursor.
///
/// Cursors count changes: a team's export counts the team's own changes (1, 2, 3… for that team
/// alone, so nothing in them tells of another team's work), an export of every team counts the
/// deployment's. A snapshot opened for a team pages that team's queries.
public struct ExportQuery: Sendable {
    public var questionnaireId: String
    /// nil for every team.
    public var teamId: Int64?
    /// Records changed after this cursor (0 for all): the team's cursor when `teamId` is set.
    public var after: Int64
    /// …and up to this one, so records that change during an export wait for the next.
    public var upTo: Int64
    /// Only records changed at or after this time, if set.
    public var changedSince: Date?
    /// Only records the patient's consent lets this export hold (a researcher's), if set.
    public var consent: ConsentFilter?
    /// Only records of patients in at least one of these data groups, when not empty.
    public var dataGroups: [String] = []
    /// Only records in one of these review states, when not empty.
    public var reviewStates: [ReviewState] = []
    /// Only these records, when not empty (a protocol reading one record, or a few, by id):
    /// at most ``maxRecordIds``.
    public var recordIds: [UUID] = []
    public static let maxRecordIds = 1000
    /// Where the earlier export this one continues stopped: for `removed.csv`.
    public var previous: Previous?
    public var limit: Int

    /// The point an incremental export continues from.
    public enum Previous: Sendable, Hashable {
        /// A change cursor (the team's when ``teamId`` is set).
        case cursor(Int64)
        case time(Date)
    }

    public init(questionnaireId: String, teamId: Int64?, after: Int64, upTo: Int64, changedSince: Date? = nil, limit: Int = 500) {
        self.questionnaireId = questionnaireId
        self.teamId = teamId
        self.after = after
        self.upTo = upTo
        self.changedSince = changedSince
        self.limit = limit
    }
}

/// The records a researcher may receive: those whose patient's current sharing scope is one of
/// ``scopes``, and those that point to no patient when ``includeUnlinked``.
public struct ConsentFilter: Sendable, Hashable {
    public var scopes: [SharingScope]
    public var includeUnlinked: Bool

    public init(scopes: [SharingScope], includeUnlinked: Bool) {
        self.scopes = scopes
        self.includeUnlinked = includeUnlinked
    }
}

/// The records as they were when an export started: what it counts is what it pages.
public protocol ExportSnapshot: Sendable {
    /// The newest change in the snapshot (of its team, if it was opened for one): the next export starts after it.
    var cursor: Int64 { get }
    /// How many records `query` (ignoring its limit) reads.
    func count(_ query: ExportQuery) async throws -> Int
    /// Up to `query.limit` records changed after `query.after` and up to `query.upTo`, oldest change first.
    func page(_ query: ExportQuery) async throws -> [ExportedRecord]
    /// The records of `query` (ignoring `after`, with `upTo`) whose patient's sharing scope
    /// reached `query.consent` at `query.previous` and does not at `query.upTo`: what an earlier
    /// export held that its receiver must now delete. Empty without both.
    func withdrawn(_ query: ExportQuery) async throws -> [UUID]
    /// The records of `query`'s questionnaire and team (ignoring `after`, with `upTo`) deleted
    /// (or, for a team's export, moved to another team) since `query.previous` that had begun by
    /// then: what an earlier export may have held. Not filtered by consent or data groups (a
    /// deleted record keeps neither): a receiver may be told of an id it never held. Empty
    /// without `previous`.
    func deleted(_ query: ExportQuery) async throws -> [RemovedRecord]
    /// Up to `limit` reports (the latest version of each date) of the patients `query` may reach
    /// (its team, consent and data groups; records without patients aside), after `position`,
    /// ordered by patient, series and date.
    func reports(_ query: ExportQuery, after position: ReportPosition?, limit: Int) async throws -> [Report]
}

/// Where a page of an export's reports ended.
public struct ReportPosition: Sendable, Hashable {
    public var patientId: UUID
    public var series: String
    public var date: String

    public init(_ report: Report) {
        patientId = report.patientId
        series = report.series
        date = report.date
    }
}

/// A record as an export reads it: its canonical bytes, current revision and change cursor.
public struct ExportedRecord: Sendable {
    /// As ``RecordCodec`` wrote it.
    public var body: [UInt8]
    public var revision: Int
    public var cursor: Int64
    /// What the registry says of the record's patient, when it points to one.
    public var registry: RegistryFacts?
    /// Who collected it, as the server checked (the body's collector of a record stored before
    /// that check may be free text).
    public var collector: String?
    public var reviewState: ReviewState?

    package init(
        body: [UInt8], revision: Int, cursor: Int64, registry: RegistryFacts? = nil, collector: String? = nil,
        reviewState: ReviewState? = nil
    ) {
        self.reviewState = reviewState
        self.body = body
        self.revision = revision
        self.cursor = cursor
        self.registry = registry
        self.collector = collector
    }
}
