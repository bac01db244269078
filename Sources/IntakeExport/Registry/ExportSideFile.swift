/// Files an export writes beside the records, from the patient registry: the patients' dated
/// reports, and (in a `--since` export) the records the receiver must delete.
public enum ExportSideFile: String, CaseIterable, Sendable {
    case reports
    case reportsLong = "reports-long"
    case removed

    public var fileName: String {
        switch self {
        case .reports: "reports.jsonl"
        case .reportsLong: "reports_long.csv"
        case .removed: "removed.csv"
        }
    }

    public var contentType: String {
        switch self {
        case .reports: "application/x-ndjson; charset=utf-8"
        case .reportsLong, .removed: "text/csv; charset=utf-8"
        }
    }

    /// Whether the file is written from reports (rather than removals).
    public var readsReports: Bool { self != .removed }
}

/// Where an export's side files come from.
public struct ExportSideSources {
    /// The records to list in `removed.csv`; nil when the export is not incremental (no file then).
    public var removed: [RemovedRecord]?
    /// The reports, a page at a time until nil; nil when reports cannot be read (no files then).
    public var nextReports: (() async throws -> [ExportReport]?)?

    public init(removed: [RemovedRecord]? = nil, nextReports: (() async throws -> [ExportReport]?)? = nil) {
        self.removed = removed
        self.nextReports = nextReports
    }

    /// The side files of `chosen` these sources can write.
    public func files(of chosen: [ExportSideFile]) -> [ExportSideFile] {
        chosen.filter { $0.readsReports ? nextReports != nil : removed != nil }
    }
}
