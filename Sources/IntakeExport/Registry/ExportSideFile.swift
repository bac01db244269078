/// Files an export writes beside the records, from the patient registry: the patients' dated
/// reports, and (in a `--since` export) the records the receiver must delete.
public enum ExportSideFile: String, CaseIterable, Sendable {
    case reports
    case reportsLong = "reports-long"
    case removed
    /// The cases of the lists the questionnaire opens or follows, one row each.
    case cases
    /// What set each case's properties, status and due date, one row per change.
    case caseHistory = "case-history"

    public var fileName: String {
        switch self {
        case .reports: "reports.jsonl"
        case .reportsLong: "reports_long.csv"
        case .removed: "removed.csv"
        case .cases: "cases.csv"
        case .caseHistory: "case_history.csv"
        }
    }

    public var contentType: String {
        switch self {
        case .reports: "application/x-ndjson; charset=utf-8"
        case .reportsLong, .removed, .cases, .caseHistory: "text/csv; charset=utf-8"
        }
    }

    /// Whether the file is written from reports.
    public var readsReports: Bool { self == .reports || self == .reportsLong }

    /// Whether the file is written from cases.
    public var readsCases: Bool { self == .cases || self == .caseHistory }
}

/// Where an export's case files come from: their property columns, and what writes each file.
public struct ExportCaseSource: Sendable {
    public var columns: ExportCaseColumns
    /// Writes `cases.csv` or `case_history.csv` through the closure it is given; how many cases it covered.
    public var write: @Sendable (ExportSideFile, _ sink: ([UInt8]) async throws -> Void) async throws -> Int

    public init(
        columns: ExportCaseColumns, write: @escaping @Sendable (ExportSideFile, _ sink: ([UInt8]) async throws -> Void) async throws -> Int
    ) {
        self.columns = columns
        self.write = write
    }
}

/// Where an export's side files come from.
public struct ExportSideSources {
    /// The records to list in `removed.csv`; nil when the export is not incremental (no file then).
    public var removed: [RemovedRecord]?
    /// The reports, a page at a time until nil; nil when reports cannot be read (no files then).
    public var nextReports: (() async throws -> [ExportReport]?)?
    /// The cases; nil when they cannot be read (no case files then).
    public var cases: ExportCaseSource?

    public init(
        removed: [RemovedRecord]? = nil, nextReports: (() async throws -> [ExportReport]?)? = nil, cases: ExportCaseSource? = nil
    ) {
        self.removed = removed
        self.nextReports = nextReports
        self.cases = cases
    }

    /// The side files of `chosen` these sources can write.
    public func files(of chosen: [ExportSideFile]) -> [ExportSideFile] {
        chosen.filter { $0.readsReports ? nextReports != nil : $0.readsCases ? cases != nil : removed != nil }
    }
}
