/// The files an export can write.
public enum ExportFormat: String, CaseIterable, Sendable {
    case wideCSV = "csv"
    case longCSV = "long"
    case jsonLines = "jsonl"
    case fhir
    case codebookCSV = "codebook"
    case codebookMarkdown = "codebook-md"
    case dataPackage = "datapackage"
    case spss
    case escapedCSV = "escaped"
    case r
    case geoJSON = "geojson"
    case attachments
    /// SPSS system file, Stata 118 dataset and Excel workbook (see ``StatisticsFiles``).
    case sav
    case dta
    case xlsx

    public var fileName: String {
        switch self {
        case .wideCSV: "records.csv"
        case .longCSV: "records_long.csv"
        case .jsonLines: "records.jsonl"
        case .fhir: "fhir-bundle.json"
        case .codebookCSV: "codebook.csv"
        case .codebookMarkdown: "codebook.md"
        case .dataPackage: "datapackage.json"
        case .spss: "records.sps"
        case .escapedCSV: "records_escaped.csv"
        case .r: "records.R"
        case .geoJSON: "places.geojson"
        case .attachments: "attachments.csv"
        case .sav: "records.sav"
        case .dta: "records.dta"
        case .xlsx: "records.xlsx"
        }
    }

    public var contentType: String {
        switch self {
        case .wideCSV, .longCSV, .codebookCSV, .escapedCSV, .attachments: "text/csv; charset=utf-8"
        case .jsonLines: "application/x-ndjson; charset=utf-8"
        case .fhir: "application/fhir+json; charset=utf-8"
        case .codebookMarkdown: "text/markdown; charset=utf-8"
        case .dataPackage: "application/json; charset=utf-8"
        case .spss, .r: "text/plain; charset=utf-8"
        case .geoJSON: "application/geo+json; charset=utf-8"
        case .sav: "application/x-spss-sav"
        case .dta: "application/x-stata-dta"
        case .xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        }
    }

    /// Whether the file lists records (rather than describing the export).
    public var hasRecords: Bool {
        switch self {
        case .wideCSV, .longCSV, .jsonLines, .fhir, .escapedCSV, .geoJSON, .attachments, .sav, .dta, .xlsx: true
        case .codebookCSV, .codebookMarkdown, .dataPackage, .spss, .r: false
        }
    }

    /// Whether the file is binary and written whole after the records have passed (the
    /// statistics files, see ``StatisticsFiles``): a folder export writes it, but it cannot be
    /// streamed as text (`GET /v1/exports?format=` refuses it).
    public var isBinary: Bool {
        switch self {
        case .sav, .dta, .xlsx: true
        default: false
        }
    }

    /// The formats that can be streamed one at a time (everything but the binary files).
    public static var streamable: [ExportFormat] { allCases.filter { !$0.isBinary } }

    /// The formatter that writes this file; `files` are all the files of the export, for the data package.
    /// Nil for a binary format (``isBinary``): ``FolderExport`` writes those after the run, from
    /// the rows a ``StatisticsCollector`` keeps on disk meanwhile.
    public func formatter(plan: ExportPlan, files: [ExportFormat], sideFiles: [ExportSideFile] = []) -> (any ExportFormatter)? {
        switch self {
        case .wideCSV: WideCSVFormatter(plan: plan)
        case .longCSV: LongCSVFormatter(plan: plan)
        case .jsonLines: JSONLinesFormatter(plan: plan)
        case .fhir: FHIRBundleFormatter(plan: plan)
        case .codebookCSV: CodebookCSVFormatter(plan: plan)
        case .codebookMarkdown: CodebookMarkdownFormatter(plan: plan)
        case .dataPackage: DataPackageFormatter(plan: plan, files: files, sideFiles: sideFiles)
        case .spss: SPSSSyntaxFormatter(plan: plan)
        case .escapedCSV: WideCSVFormatter(plan: plan, lineBreaksEscaped: true)
        case .r: RScriptFormatter(plan: plan)
        case .geoJSON: GeoJSONFormatter(plan: plan)
        case .attachments: AttachmentListFormatter(plan: plan)
        case .sav, .dta, .xlsx: nil
        }
    }
}
