import Foundation
import IntakeCore

/// Writes an export as a folder of files in one pass over the records.
///
/// The files are written into a hidden sibling folder that is renamed into place only when every
/// file is complete, so a folder with the export's name is never a half-written export.
public struct FolderExport {
    public var plan: ExportPlan
    public var formats: [ExportFormat]
    /// Written when their sources are given (see ``ExportSideSources``).
    public var sideFiles: [ExportSideFile]
    public var folder: URL
    /// Fetches a file a record names into `attachments/`; nil leaves them listed only.
    public var fetchAttachment: (@Sendable (UUID, AttachmentRef) async throws -> Data?)?

    public init(
        plan: ExportPlan, formats: [ExportFormat] = ExportFormat.allCases, sideFiles: [ExportSideFile] = ExportSideFile.allCases,
        folder: URL
    ) {
        self.plan = plan
        self.formats = formats
        self.sideFiles = sideFiles
        self.folder = folder
    }

    /// What an export wrote, also saved as `export.json` in the folder.
    public struct Summary: Codable, Sendable, Equatable {
        public var questionnaire: String
        public var versions: [String]
        public var records: Int
        public var files: [String]
        /// Give this to the next export's `since` to get only what changed after this one.
        public var cursor: String?
        public var since: String?
        public var includeIdentifiers: Bool
        public var dropFreeText: Bool
        public var shiftDates: Bool?
        /// Whether collected text is written as collected, without the `'` guard (`--raw-cells`).
        public var rawCells: Bool?
        public var generatedAt: String
        /// How many records removed.csv lists (incremental exports from a server).
        public var removed: Int?
        /// How many reports reports.jsonl holds.
        public var reports: Int?
        /// How many cases cases.csv holds, and of which lists.
        public var cases: Int?
        public var caseLists: [String]?
        /// How many files `attachments/` holds, and how many attachments.csv lists that it does not.
        public var attachments: Int?
        public var attachmentsMissing: Int?
    }

    /// Runs the export; `cursor` and `since` are recorded in `export.json`; `progress` hears the
    /// number of records written so far.
    public func write(
        cursor: String?, since: String?, side: ExportSideSources = ExportSideSources(), progress: (Int) -> Void = { _ in },
        nextPage: () async throws -> [ExportInput]?
    ) async throws -> Summary {
        let manager = FileManager.default
        if let existing = try? manager.contentsOfDirectory(atPath: folder.path), !existing.isEmpty {
            throw ExportError("\(folder.path) already exists and is not empty; choose a new folder or remove it")
        }
        let parent = folder.deletingLastPathComponent()
        do {
            try manager.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw ExportError("cannot create \(parent.path): \((error as NSError).localizedDescription)")
        }
        // An export to this folder that was killed left its staging folder (patient data) behind.
        let stalePrefix = ".\(folder.lastPathComponent).partial-"
        for name in (try? manager.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(stalePrefix) {
            try? manager.removeItem(at: parent.appendingPathComponent(name))
        }
        let staging = parent.appendingPathComponent(stalePrefix + UUID().uuidString.prefix(8))
        try manager.createDirectory(at: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        do {
            let sideFiles = side.files(of: sideFiles)
            // The data package describes the case files' property columns.
            var plan = plan
            if let cases = side.cases, sideFiles.contains(where: \.readsCases) { plan.caseColumns = cases.columns }
            var outputs: [ExportRun.Output] = []
            for format in formats {
                guard let formatter = format.formatter(plan: plan, files: formats, sideFiles: sideFiles) else { continue }
                outputs.append(
                    ExportRun.Output(formatter: formatter, sink: try FileSink(url: staging.appendingPathComponent(format.fileName))))
            }
            // The statistics files (.sav, .dta, .xlsx) are written after the run, from the rows
            // one collector keeps on disk in the staging folder meanwhile (see StatisticsCollector).
            let binary = formats.filter(\.isBinary)
            let collector = binary.isEmpty ? nil : try StatisticsCollector(plan: plan, folder: staging, workbook: binary.contains(.xlsx))
            if let collector { outputs.append(ExportRun.Output(formatter: collector, sink: DiscardSink())) }
            // Beside the wide CSV, each repeat's own table.
            let repeatTables = formats.contains(.wideCSV) ? plan.repeatTables : []
            for table in repeatTables {
                outputs.append(
                    ExportRun.Output(
                        formatter: RepeatTableFormatter(plan: plan, table: table),
                        sink: try FileSink(url: staging.appendingPathComponent(table.fileName))))
            }
            let count = try await ExportRun.run(outputs, progress: progress, nextPage: nextPage)
            // The case files, after the records (read as the records were); the statistics files
            // hold them too, read from their bytes as they are written.
            var caseCount: Int?
            let caseTables = collector == nil ? nil : StatisticsCaseTables(files: sideFiles, folder: staging, options: plan.options)
            if let cases = side.cases {
                for file in sideFiles where file.readsCases {
                    let sink = try FileSink(url: staging.appendingPathComponent(file.fileName))
                    let count = try await cases.write(file) { bytes in
                        try sink.write(bytes)
                        try caseTables?.feed(file, bytes)
                    }
                    try sink.close()
                    if file == .cases { caseCount = count }
                }
            }
            var repeatStatisticsFiles: [String] = []
            if let collector {
                repeatStatisticsFiles = try StatisticsFiles.write(
                    binary, from: collector, cases: caseTables, into: staging)
            }
            var fetched: (written: Int, missing: Int)?
            if let list = outputs.lazy.compactMap({ $0.formatter as? AttachmentListFormatter }).first {
                fetched = try await fetchAttachments(list.listed, into: staging.appendingPathComponent("attachments"))
            }
            var removedCount: Int?
            if sideFiles.contains(.removed), let removed = side.removed {
                let sink = try FileSink(url: staging.appendingPathComponent(ExportSideFile.removed.fileName))
                try sink.write(Array(RemovedRecord.csv(removed).utf8))
                try sink.close()
                removedCount = removed.count
            }
            var reportCount: Int?
            if let nextReports = side.nextReports, sideFiles.contains(where: \.readsReports) {
                reportCount = try await ReportFiles(options: plan.options, files: sideFiles, folder: staging).write(nextPage: nextReports)
            }
            var summary = Summary(
                questionnaire: plan.questionnaireId, versions: plan.versions.map(\.version), records: count,
                files: formats.map(\.fileName) + repeatTables.map(\.fileName) + repeatStatisticsFiles + sideFiles.map(\.fileName),
                cursor: cursor, since: since,
                includeIdentifiers: plan.options.includeIdentifiers,
                dropFreeText: plan.options.dropFreeText, shiftDates: plan.options.shiftDates, generatedAt: Timestamp.string(from: Date()))
            summary.rawCells = plan.options.rawCells
            summary.removed = removedCount
            summary.reports = reportCount
            if let caseCount, let cases = side.cases {
                summary.cases = caseCount
                summary.caseLists = cases.columns.lists
            }
            if let fetched {
                summary.attachments = fetched.written
                summary.attachmentsMissing = fetched.missing
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let summaryPath = staging.appendingPathComponent("export.json").path
            guard manager.createFile(atPath: summaryPath, contents: try encoder.encode(summary), attributes: [.posixPermissions: 0o600])
            else {
                throw ExportError("cannot write \(summaryPath); check the disk has room")
            }
            if manager.fileExists(atPath: folder.path) { try manager.removeItem(at: folder) }
            try manager.moveItem(at: staging, to: folder)
            return summary
        } catch {
            try? manager.removeItem(at: staging)
            throw error
        }
    }
}

extension FolderExport {
    /// Writes each listed file once into `folder` (named by its content), checked against its
    /// hash; how many were written, and how many listed files could not be (no fetcher, or the
    /// server has none for the caller).
    private func fetchAttachments(_ listed: [(record: UUID, ref: AttachmentRef)], into folder: URL) async throws -> (
        written: Int, missing: Int
    ) {
        // Each file once; a file one record's answer could not give may come with another's.
        var done = Set<String>()
        var written = 0
        for (record, ref) in listed where !done.contains(ref.sha256) {
            guard let fetchAttachment, let bytes = try await fetchAttachment(record, ref), AttachmentRef(bytes: bytes)?.sha256 == ref.sha256
            else {
                continue
            }
            done.insert(ref.sha256)
            if written == 0 {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            let path = folder.appendingPathComponent(ref.fileName).path
            guard FileManager.default.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
                throw ExportError("cannot write \(path); check the disk has room")
            }
            written += 1
        }
        return (written, Set(listed.map(\.ref.sha256)).count - written)
    }
}

/// A sink for formatters that write their file themselves (``StatisticsCollector``).
final class DiscardSink: ExportSink {
    func write(_ bytes: [UInt8]) {}
    func close() {}
}

extension FolderExport.Summary {
    /// The `export.json` an earlier export wrote in `folder`.
    public init(folder: URL) throws(ExportError) {
        let file = folder.appendingPathComponent("export.json")
        guard let data = FileManager.default.contents(atPath: file.path), let summary = try? JSONDecoder().decode(Self.self, from: data)
        else {
            throw ExportError("\(folder.path) is not an export folder (no readable export.json in it)")
        }
        self = summary
    }
}

extension FolderExport.Summary {
    /// What `intake export` says when it is done: the files, whether identifiers are in, and
    /// how to continue incrementally.
    public func report(folder: URL) -> [String] {
        var lines = [
            "Exported \(records) record(s) of \(questionnaire) (version\(versions.count == 1 ? "" : "s") "
                + "\(versions.joined(separator: ", "))) to \(folder.path):"
        ]
        for file in files + ["export.json"] { lines.append("  \(file)") }
        if records == 0 {
            // Nothing to read is not nothing to explain: say what an export leaves out.
            lines.append(
                "No record was exported. An export holds the records of your team (for a researcher, of every team) that "
                    + "changed since --since if given; a researcher receives only records of registry patients whose consent "
                    + "shares with their access level (records without a registry patient are left out unless the server sets "
                    + "INTAKE_SERVER_UNLINKED_RECORDS=include).")
        }
        lines.append(
            includeIdentifiers
                ? "Identifiers are INCLUDED: keep this folder safe."
                : "De-identified: names, date of birth and external id are left out.")
        if shiftDates == true { lines.append("Dates are shifted back by a secret number of days per patient.") }
        if let reports { lines.append("\(reports) dated report(s) of the exported patients are in reports.jsonl.") }
        if let cases, let lists = caseLists {
            lines.append(
                lists.isEmpty
                    ? "The questionnaire opens and follows no case list: cases.csv is empty."
                    : "\(cases) case(s) of \(lists.joined(separator: ", ")) are in cases.csv, what set their properties in case_history.csv."
            )
        }
        if let attachments, let missing = attachmentsMissing, attachments + missing > 0 {
            lines.append(
                "\(attachments) file(s) the records name are in attachments/"
                    + (missing > 0
                        ? "; \(missing) listed in attachments.csv are not (an export from JSON Lines files has none; a researcher never receives files of identifying questions)."
                        : "."))
        }
        if let removed, removed > 0 {
            lines.append(
                "\(removed) record(s) of earlier exports must be deleted: see removed.csv (reason deleted: a coordinator deleted it; transferred: it moved to another team; consent_withdrawn: the patient no longer shares with you)."
            )
        }
        if let cursor { lines.append("For the next incremental export: --since \(cursor)") }
        return lines
    }
}
