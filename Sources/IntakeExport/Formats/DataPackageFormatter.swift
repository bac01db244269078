import IntakeCore

/// `datapackage.json` (Frictionless Data Package): a Table Schema for each CSV, with types, enums
/// and required fields, so `frictionless validate`, R and pandas can check and load the export.
public final class DataPackageFormatter: ExportFormatter {
    let plan: ExportPlan
    let files: [ExportFormat]
    let sideFiles: [ExportSideFile]

    /// `files` (and `sideFiles`) are written beside it; the CSV ones become resources.
    public init(plan: ExportPlan, files: [ExportFormat], sideFiles: [ExportSideFile] = []) {
        self.plan = plan
        self.files = files
        self.sideFiles = sideFiles
    }

    public func header() -> String {
        var resources: [OrderedJSON] = []
        let missing = OrderedJSON.array(["", plan.options.unansweredCode].map { .string($0) })
        if files.contains(.wideCSV) {
            let fields = CodebookEntry.entries(plan).map { entry -> OrderedJSON in
                var members: [(String, OrderedJSON)] = [
                    ("name", .string(entry.column.name)), ("type", .string(entry.column.type.tableSchemaType)),
                ]
                if entry.column.type == .datetime { members.append(("format", .string("any"))) }
                let title = entry.label(in: nil)
                if case .answer = entry.column.source, !title.isEmpty { members.append(("title", .string(title))) }
                if let fixed = entry.column.fixedDescription { members.append(("description", .string(fixed))) }
                var constraints: [(String, OrderedJSON)] = []
                if case .meta(let meta) = entry.column.source, meta.isRequired { constraints.append(("required", .bool(true))) }
                if entry.column.type == .indicator { constraints.append(("enum", .array([.integer(0), .integer(1)]))) }
                if !entry.codes.isEmpty, entry.column.type == .string {
                    constraints.append(("enum", .array(entry.codes.map { .string($0) })))
                }
                if case .meta(.status) = entry.column.source {
                    constraints.append(("enum", .array([.string("complete"), .string("draft")])))
                }
                if case .meta(.sharingScope) = entry.column.source {
                    constraints.append(("enum", .array(SharingScope.allCases.map { .string($0.rawValue) })))
                }
                if !constraints.isEmpty { members.append(("constraints", .object(constraints))) }
                return .object(members)
            }
            resources.append(
                resource(
                    name: "records", path: ExportFormat.wideCSV.fileName, title: "Records, one row per record",
                    schema: [("fields", .array(fields)), ("missingValues", missing), ("primaryKey", .array([.string("record_id")]))]))
            for table in plan.repeatTables { resources.append(repeatResource(table, missing: missing)) }
        }
        if files.contains(.longCSV) {
            let types = ["string", "string", "string", "integer", "integer", "string", "string", "string", "string", "string"]
            let fields = zip(LongCSVFormatter.columns, types).map { name, type -> OrderedJSON in
                var members: [(String, OrderedJSON)] = [("name", .string(name)), ("type", .string(type))]
                if ["record_id", "questionnaire_version", "section", "index", "question_id"].contains(name) {
                    members.append(("constraints", .object([("required", .bool(true))])))
                }
                return .object(members)
            }
            resources.append(
                resource(
                    name: "records_long", path: ExportFormat.longCSV.fileName, title: "Answers, one row per answer",
                    schema: [("fields", .array(fields)), ("missingValues", .array([.string("")]))]))
        }
        if files.contains(.attachments) {
            let fields = AttachmentListFormatter.columns.map { name -> OrderedJSON in
                var members: [(String, OrderedJSON)] = [("name", .string(name)), ("type", .string(name == "size" ? "integer" : "string"))]
                if name != "instance" { members.append(("constraints", .object([("required", .bool(true))]))) }
                return .object(members)
            }
            var schema: [(String, OrderedJSON)] = [("fields", .array(fields)), ("missingValues", .array([.string("")]))]
            if files.contains(.wideCSV) {
                schema.append(
                    (
                        "foreignKeys",
                        .array([
                            .object([
                                ("fields", .array([.string("record_id")])),
                                ("reference", .object([("resource", .string("records")), ("fields", .array([.string("record_id")]))])),
                            ])
                        ])
                    ))
            }
            resources.append(
                resource(
                    name: "attachments", path: ExportFormat.attachments.fileName, title: "Files the answers name, one row per file",
                    schema: schema))
        }
        if files.contains(.codebookCSV) {
            let fields = CodebookCSVFormatter(plan: plan).columnNames.map { name -> OrderedJSON in
                .object([("name", .string(name)), ("type", .string("string"))])
            }
            resources.append(
                resource(
                    name: "codebook", path: ExportFormat.codebookCSV.fileName, title: "Codebook, one row per column of records.csv",
                    schema: [("fields", .array(fields)), ("missingValues", .array([]))]))
        }
        if sideFiles.contains(.reportsLong) {
            let types = ["string", "string", "string", "integer", "string", "string"]
            let fields = zip(ExportReport.longColumns, types).map { name, type -> OrderedJSON in
                var members: [(String, OrderedJSON)] = [("name", .string(name)), ("type", .string(type))]
                if name != "value" { members.append(("constraints", .object([("required", .bool(true))]))) }
                return .object(members)
            }
            resources.append(
                resource(
                    name: "reports_long", path: ExportSideFile.reportsLong.fileName, title: "Dated reports, one row per value",
                    schema: [("fields", .array(fields)), ("missingValues", .array([.string("")]))]))
        }
        if sideFiles.contains(.removed) {
            let fields: [OrderedJSON] = [
                .object([
                    ("name", .string("record_id")), ("type", .string("string")), ("constraints", .object([("required", .bool(true))])),
                ]),
                .object([
                    ("name", .string("reason")), ("type", .string("string")),
                    (
                        "constraints",
                        .object([
                            ("required", .bool(true)), ("enum", .array(RemovedRecord.Reason.allCases.map { .string($0.rawValue) })),
                        ])
                    ),
                ]),
            ]
            resources.append(
                resource(
                    name: "removed", path: ExportSideFile.removed.fileName, title: "Records of earlier exports to delete, and why",
                    schema: [("fields", .array(fields)), ("missingValues", .array([])), ("primaryKey", .array([.string("record_id")]))]))
        }
        if let columns = plan.caseColumns {
            func field(_ name: String, _ type: String, in file: ExportSideFile, required: Bool = false, enumeration: [String] = [])
                -> OrderedJSON
            {
                var members: [(String, OrderedJSON)] = [("name", .string(name)), ("type", .string(type))]
                if type == "datetime" { members.append(("format", .string("any"))) }
                members.append(("description", .string(ExportCaseColumns.description(of: name, in: file))))
                var constraints: [(String, OrderedJSON)] = []
                if required { constraints.append(("required", .bool(true))) }
                if !enumeration.isEmpty { constraints.append(("enum", .array(enumeration.map { .string($0) }))) }
                if !constraints.isEmpty { members.append(("constraints", .object(constraints))) }
                return .object(members)
            }
            func fields(_ names: [String], in file: ExportSideFile, required: Set<String>) -> [OrderedJSON] {
                names.map { name in
                    let type = ExportCaseColumns.fixedColumnTypes[name]?.tableSchemaType ?? "string"
                    let enumeration =
                        switch name {
                        case "status": ["open", "closed"]
                        case "source" where file == .caseHistory: ExportCase.Change.Source.allCases.map(\.rawValue)
                        default: [String]()
                        }
                    return field(name, type, in: file, required: required.contains(name), enumeration: enumeration)
                }
            }
            if sideFiles.contains(.cases) {
                let names = columns.caseColumns(includeIdentifiers: plan.options.includeIdentifiers)
                let fields = fields(names, in: .cases, required: ["case_id", "list", "opened_at", "status", "revision", "visits"])
                resources.append(
                    resource(
                        name: "cases", path: ExportSideFile.cases.fileName, title: "Cases of \(columns.lists.joined(separator: ", "))",
                        schema: [
                            ("fields", .array(fields)), ("missingValues", .array([.string("")])),
                            ("primaryKey", .array([.string("case_id")])),
                        ]
                    ))
            }
            if sideFiles.contains(.caseHistory) {
                let fields = fields(
                    ExportCaseColumns.historyColumns, in: .caseHistory, required: ["case_id", "list", "at", "source", "property"])
                resources.append(
                    resource(
                        name: "case_history", path: ExportSideFile.caseHistory.fileName,
                        title: "What set each case's properties, status and due date, one row per change",
                        schema: [("fields", .array(fields)), ("missingValues", .array([.string("")]))]))
            }
        }
        let newest = plan.versions[plan.versions.count - 1]
        let package = OrderedJSON.object([
            ("name", .string(ExportPlan.safeName(plan.questionnaireId).lowercased().replacingOccurrences(of: "_", with: "-"))),
            ("title", .string(newest.title.base)),
            (
                "description",
                .string("Intake export of \(plan.questionnaireId), versions \(plan.versions.map(\.version).joined(separator: ", ")).")
            ),
            ("resources", .array(resources)),
        ])
        return package.text + "\n"
    }

    /// A repeat's table: its instances keyed by the record (and the outer instance), with a
    /// foreign key to the table its rows belong to.
    private func repeatResource(_ table: RepeatTable, missing: OrderedJSON) -> OrderedJSON {
        func required(_ name: String, _ type: String) -> OrderedJSON {
            .object([("name", .string(name)), ("type", .string(type)), ("constraints", .object([("required", .bool(true))]))])
        }
        var fields: [OrderedJSON] = [required("record_id", "string")]
        if table.parentKey != nil { fields.append(required("parent_instance", "integer")) }
        fields.append(required("instance", "integer"))
        for column in table.columns {
            var members: [(String, OrderedJSON)] = [("name", .string(column.name)), ("type", .string(column.type.tableSchemaType))]
            var constraints: [(String, OrderedJSON)] = []
            if column.type == .indicator { constraints.append(("enum", .array([.integer(0), .integer(1)]))) }
            let codes = plan.codes(of: column)
            if !codes.isEmpty, column.type == .string { constraints.append(("enum", .array(codes.map { .string($0) }))) }
            if !constraints.isEmpty { members.append(("constraints", .object(constraints))) }
            fields.append(.object(members))
        }
        let foreignKey: OrderedJSON
        if let parent = table.parentKey {
            foreignKey = .object([
                ("fields", .array([.string("record_id"), .string("parent_instance")])),
                (
                    "reference",
                    .object([
                        ("resource", .string(Self.resourceName(of: parent))),
                        ("fields", .array([.string("record_id"), .string("instance")])),
                    ])
                ),
            ])
        } else {
            foreignKey = .object([
                ("fields", .array([.string("record_id")])),
                ("reference", .object([("resource", .string("records")), ("fields", .array([.string("record_id")]))])),
            ])
        }
        return resource(
            name: Self.resourceName(of: table.key), path: table.fileName, title: "Repeat \(table.key), one row per instance",
            schema: [
                ("fields", .array(fields)), ("missingValues", missing), ("primaryKey", .array(table.keyColumnNames.map { .string($0) })),
                ("foreignKeys", .array([foreignKey])),
            ])
    }

    /// A repeat table's resource name (lower case, as Data Package names are).
    static func resourceName(of key: String) -> String { "repeat_" + ExportPlan.safeName(key).lowercased() }

    private func resource(name: String, path: String, title: String, schema: [(String, OrderedJSON)]) -> OrderedJSON {
        .object([
            ("name", .string(name)), ("path", .string(path)), ("title", .string(title)), ("profile", .string("tabular-data-resource")),
            ("format", .string("csv")), ("mediatype", .string("text/csv")), ("encoding", .string("utf-8")),
            (
                "dialect",
                .object([
                    ("delimiter", .string(",")), ("lineTerminator", .string("\r\n")), ("quoteChar", .string("\"")),
                    ("doubleQuote", .bool(true)),
                ])
            ),
            ("schema", .object(schema)),
        ])
    }

    public func row(_ record: ExportRecord) -> String { "" }
    public var readsRecords: Bool { false }
    public func footer() -> String { "" }
}
