import Foundation
import IntakeCore

/// A case on its way into an export (`cases.csv`, `case_history.csv`): its patient keyed as the
/// records of the case's patient are, its dates moved as theirs are, and only the properties the
/// export may hold (``ExportCaseColumns``).
public struct ExportCase: Sendable {
    /// The case, prepared: no names (its patient is ``patientKey``), the registry id only with
    /// identifiers, only the properties the export may hold, its dates moved when they are.
    public var facts: Facts
    public var patientKey: String?

    /// One property (or `status`, or `due`) set at a time, by the opening record, a visit or a coordinator.
    public struct Change: Sendable, Hashable {
        public enum Source: String, Sendable, Hashable, CaseIterable {
            case opened, visit, coordinator
        }

        /// What it sets: a property, or the case's own status or due date.
        public enum Kind: Sendable, Hashable {
            case property, status, due
        }

        public var at: Date
        public var source: Source
        public var recordId: UUID?
        public var by: String
        public var property: String
        public var value: Answer
        public var kind: Kind

        public init(at: Date, source: Source, recordId: UUID?, by: String, property: String, value: Answer, kind: Kind = .property) {
            self.kind = kind
            self.at = at
            self.source = source
            self.recordId = recordId
            self.by = by
            self.property = property
            self.value = value
        }
    }

    /// A case as the store holds it, whole (identifying properties and dates as collected).
    public struct Facts: Sendable {
        public var id: UUID
        public var list: String
        public var patientId: UUID?
        public var patient: PatientIdentification
        public var openedBy: UUID?
        public var openedAt: Date
        public var collector: String
        public var assignee: String?
        public var status: String
        public var due: LocalDate?
        public var revision: Int
        public var visits: Int
        public var lastVisitAt: Date?
        public var conflicts: [String]
        public var properties: [String: Answer]
        public var history: [Change]

        public init(
            id: UUID, list: String, patientId: UUID?, patient: PatientIdentification, openedBy: UUID?, openedAt: Date, collector: String,
            assignee: String?, status: String, due: LocalDate?, revision: Int, visits: Int, lastVisitAt: Date?, conflicts: [String],
            properties: [String: Answer], history: [Change]
        ) {
            self.id = id
            self.list = list
            self.patientId = patientId
            self.patient = patient
            self.openedBy = openedBy
            self.openedAt = openedAt
            self.collector = collector
            self.assignee = assignee
            self.status = status
            self.due = due
            self.revision = revision
            self.visits = visits
            self.lastVisitAt = lastVisitAt
            self.conflicts = conflicts
            self.properties = properties
            self.history = history
        }
    }

    /// Prepares a case as `options` say: keyed by its registry patient (or, without one, by the
    /// names the opening record gave, as that record is keyed), only `columns`' properties, and
    /// dates moved back by the days its opening record's are.
    public init(_ whole: Facts, columns: ExportCaseColumns, keyer: PatientKeyer?, options: ExportOptions) {
        var facts = whole
        patientKey = whole.patientId.map { keyer?.key(patientId: $0) } ?? keyer?.key(for: whole.patient)
        facts.patient = PatientIdentification()
        if !options.includeIdentifiers { facts.patientId = nil }
        let kept = Set(columns.properties)
        facts.conflicts = whole.conflicts.filter { $0 == "status" || kept.contains($0) }.sorted()
        facts.properties = whole.properties.filter { kept.contains($0.key) }
        facts.history = whole.history.filter { $0.kind == .status || ($0.kind == .due ? !columns.dueLeftOut : kept.contains($0.property)) }
        if columns.dueLeftOut { facts.due = nil }
        if options.shiftDates, let keyer {
            let days = keyer.dateShift(patientKey: patientKey, recordId: whole.openedBy ?? whole.id)
            let seconds = TimeInterval(days * 86_400)
            facts.openedAt -= seconds
            facts.lastVisitAt? -= seconds
            facts.due = facts.due?.adding(days: -days)
            facts.properties = facts.properties.mapValues { ExportRecord.shifted($0, by: days) }
            for index in facts.history.indices {
                facts.history[index].at -= seconds
                facts.history[index].value = ExportRecord.shifted(facts.history[index].value, by: days)
            }
        }
        self.facts = facts
    }
}

/// The property columns of an export's case files: the properties of the case lists the
/// exported questionnaire opens or follows, as every published questionnaire declares them,
/// less those the export may not hold (identifying ones unless identifiers are included; free
/// text when it is dropped).
public struct ExportCaseColumns: Sendable, Hashable {
    /// The lists whose cases are exported.
    public var lists: [String]
    /// The properties written, in order.
    public var properties: [String]
    /// Whether the due date is left out (worked out from an identifying answer, in a de-identified export).
    public var dueLeftOut = false

    public init(lists: [String], properties: [String]) {
        self.lists = lists
        self.properties = properties
    }

    /// A property's column in `cases.csv`.
    public static func column(_ property: String) -> String { "prop_" + property }

    /// `cases.csv`'s columns before the properties'.
    public static let fixedColumns = [
        "case_id", "list", "patient_key", "opened_by_record", "opened_at", "opened_by", "assignee", "status", "due", "revision", "visits",
        "last_visit_at", "conflicts",
    ]

    /// `case_history.csv`'s columns.
    public static let historyColumns = ["case_id", "list", "at", "source", "record_id", "by", "property", "value"]

    /// The types of the case files' columns other than properties (text when not named).
    public static let fixedColumnTypes: [String: ColumnType] = [
        "opened_at": .datetime, "last_visit_at": .datetime, "at": .datetime, "due": .date, "revision": .integer, "visits": .integer,
    ]

    /// What a column of `file` (`cases.csv` or `case_history.csv`) holds: the data package's
    /// descriptions and the statistics files' variable labels.
    public static func description(of column: String, in file: ExportSideFile) -> String {
        if column.hasPrefix("prop_") { return "The case property \(column.dropFirst(5))" }
        switch (column, file) {
        case ("case_id", _): return "The case's id"
        case ("list", _): return "The case list"
        case ("patient_key", _): return "The key of the case's patient, as in records.csv"
        case ("patient_id", _): return "The case's patient in the registry"
        case ("opened_by_record", _): return "The record that opened the case (empty: opened by hand)"
        case ("opened_at", _): return "When the case was opened"
        case ("opened_by", _): return "Who opened it"
        case ("assignee", _): return "The field worker it is assigned to (empty: the team)"
        case ("status", _): return "open or closed"
        case ("due", _): return "When the next visit is due"
        case ("revision", _): return "The case's revision: one more at each change"
        case ("visits", _): return "The follow-up records filled for it"
        case ("last_visit_at", _): return "When the latest visit was made"
        case ("conflicts", _): return "Properties two visits made offline left different, separated by spaces"
        case ("at", _): return "When the change was made"
        case ("source", _): return "What made it: the opening record (opened), a visit, or a coordinator by hand"
        case ("record_id", _): return "The record that made it (empty: a coordinator by hand)"
        case ("by", _): return "Who made it"
        case ("property", _): return "The property it set, or status, or due"
        case ("value", _): return "The value it set"
        default: return column
        }
    }

    /// Every column of `cases.csv` (the registry patient's id after the key when identifiers are in).
    public func caseColumns(includeIdentifiers: Bool) -> [String] {
        var columns = Self.fixedColumns
        if includeIdentifiers { columns.insert("patient_id", at: 3) }
        return columns + properties.map(Self.column)
    }

    /// The properties a `cases.csv` header line names (as ``caseColumns(includeIdentifiers:)`` wrote it).
    public static func properties(headerLine: String) -> [String] {
        headerLine.split(separator: ",").map(String.init).filter { $0.hasPrefix("prop_") }.map { String($0.dropFirst(5)) }
    }
}

/// Writes `cases.csv` and `case_history.csv` from pages of cases.
public enum CaseFiles {
    /// One of the case files through `write` (a file, or an HTTP response body); how many cases it covered.
    public static func stream(
        _ file: ExportSideFile, columns: ExportCaseColumns, options: ExportOptions, nextPage: () async throws -> [ExportCase]?,
        write: ([UInt8]) async throws -> Void
    ) async throws -> Int {
        let header = file == .cases ? columns.caseColumns(includeIdentifiers: options.includeIdentifiers) : ExportCaseColumns.historyColumns
        try await write(Array(CSV.line(header).utf8))
        var count = 0
        while let page = try await nextPage() {
            var chunk = ""
            for exported in page {
                chunk += file == .cases ? caseLine(exported, columns: columns, options: options) : historyLines(exported, options: options)
            }
            try await write(Array(chunk.utf8))
            count += page.count
        }
        return count
    }

    static func caseLine(_ exported: ExportCase, columns: ExportCaseColumns, options: ExportOptions) -> String {
        let facts = exported.facts
        var fields = [
            facts.id.uuidString.lowercased(), facts.list, exported.patientKey ?? "",
            facts.openedBy?.uuidString.lowercased() ?? "", Timestamp.string(from: facts.openedAt), facts.collector,
            facts.assignee ?? "", facts.status, facts.due?.description ?? "", String(facts.revision), String(facts.visits),
            facts.lastVisitAt.map(Timestamp.string(from:)) ?? "", facts.conflicts.joined(separator: " "),
        ]
        if options.includeIdentifiers { fields.insert(facts.patientId?.uuidString.lowercased() ?? "", at: 3) }
        for property in columns.properties {
            fields.append(facts.properties[property].map { cell($0, options: options) } ?? "")
        }
        return CSV.line(fields)
    }

    static func historyLines(_ exported: ExportCase, options: ExportOptions) -> String {
        var out = ""
        for change in exported.facts.history {
            out += CSV.line([
                exported.facts.id.uuidString.lowercased(), exported.facts.list, Timestamp.string(from: change.at), change.source.rawValue,
                change.recordId?.uuidString.lowercased() ?? "", change.by, change.property, cell(change.value, options: options),
            ])
        }
        return out
    }

    /// A value as the record CSVs write one: yes/no as 1/0, a date `YYYY-MM-DD`, codes separated
    /// by spaces, text escaped unless the export asks for raw cells.
    static func cell(_ value: Answer, options: ExportOptions) -> String {
        let value = ExpressionValue(value)
        switch value {
        case .bool(let yes): return yes ? "1" : "0"
        case .text(let text): return options.rawCells ? text : CSV.escape(text, marker: options.unansweredCode)
        default: return value.text
        }
    }
}
