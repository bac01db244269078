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
        }
    }

    /// Whether the file lists records (rather than describing the export).
    public var hasRecords: Bool {
        switch self {
        case .wideCSV, .longCSV, .jsonLines, .fhir, .escapedCSV, .geoJSON, .attachments: true
        case .codebookCSV, .codebookMarkdown, .dataPackage, .spss, .r: false
        }
    }

    /// The formatter that writes this file; `files` are all the files of the export, for the data package.
    public func formatter(plan: ExportPlan, files: [ExportFormat], sideFiles: [ExportSideFile] = []) -> any ExportFormatter {
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
        }
    }
}
