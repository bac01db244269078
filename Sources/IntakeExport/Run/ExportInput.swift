/// One record as it reaches an export's formatters: laid out for the columns (``ExportRow``),
/// read whole (``ExportRecord``), or both, as the formats need (``ExportFormat/reads``).
public struct ExportInput: Sendable {
    public var row: ExportRow?
    public var record: ExportRecord?

    public init(row: ExportRow? = nil, record: ExportRecord? = nil) {
        self.row = row
        self.record = record
    }

    /// What a reader of records has to give for a set of formats.
    public struct Needs: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// ``ExportInput/row``: cheap to read from stored bytes.
        public static let rows = Needs(rawValue: 1)
        /// ``ExportInput/record``: the whole record.
        public static let records = Needs(rawValue: 2)
    }
}

extension ExportFormat {
    /// What this file is written from.
    public var reads: ExportInput.Needs {
        switch self {
        case .wideCSV, .escapedCSV, .sav, .dta, .xlsx: .rows
        case .longCSV, .jsonLines, .fhir, .geoJSON, .attachments: .records
        case .codebookCSV, .codebookMarkdown, .dataPackage, .spss, .r: []
        }
    }
}

extension Sequence<ExportFormat> {
    /// What writing all these files needs of each record.
    public var reads: ExportInput.Needs { reduce([]) { $0.union($1.reads) } }
}
