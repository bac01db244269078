import Foundation
import IntakeCore

/// What a remote export needs of a server. IntakeClient has these calls; the command layer
/// hands the client in (IntakeExport knows no HTTP).
public protocol ExportServer: Sendable {
    /// Streams `GET /v1/exports` with `query` into `file` (never through memory).
    func downloadExport(query: [String: String], into file: URL, idleTimeout: TimeInterval) async throws -> ExportDownload
    /// A published questionnaire version, read from its files.
    func questionnaire(_ reference: QuestionnaireReference) async throws -> Questionnaire
    /// A file of a record in the caller's exports; nil when it is not one (the server decides).
    func attachment(record: UUID, sha256: String) async throws -> Data?
}

extension ExportServer {
    public func attachment(record: UUID, sha256: String) async throws -> Data? { nil }
}

/// What `GET /v1/exports` sent, saved in a file.
public struct ExportDownload: Sendable {
    public var file: URL
    /// The cursor to give as `since` next time.
    public var cursor: String?
    /// How many records the server said it would send.
    public var records: Int?
    /// The questionnaire versions the export covers, oldest first.
    public var versions: [String]
    public var questionnaireId: String?
    /// The deployment's data groups, each a column of the export.
    public var dataGroups: [String]
    /// The case lists a case file covers.
    public var caseLists: [String] = []

    public init(file: URL, cursor: String?, records: Int?, versions: [String], questionnaireId: String?, dataGroups: [String] = []) {
        self.file = file
        self.cursor = cursor
        self.records = records
        self.versions = versions
        self.questionnaireId = questionnaireId
        self.dataGroups = dataGroups
    }
}

/// A research export from a server: the records arrive once as JSON Lines (de-identified and
/// keyed by the server), are checked against the count the server announced, and every other
/// file is made from them locally, with the questionnaire versions fetched from the server.
/// The patients' reports, and in an incremental export the records to delete, follow, asked
/// for up to the cursor the records came with.
public struct RemoteExport {
    public var server: any ExportServer
    public var questionnaireId: String?
    public var since: String?
    public var options: ExportOptions
    public var formats: [ExportFormat]
    public var sideFiles: [ExportSideFile]
    /// Only records (and reports) of patients in one of these data groups, when not empty.
    public var dataGroups: [String]
    /// Only records in one of these review states (`approved`, …), when not empty.
    public var reviewStates: [String] = []
    public var idleTimeout: TimeInterval

    public init(
        server: any ExportServer, questionnaireId: String?, since: String?, options: ExportOptions,
        formats: [ExportFormat] = ExportFormat.allCases, sideFiles: [ExportSideFile] = ExportSideFile.allCases, dataGroups: [String] = [],
        idleTimeout: TimeInterval = 60
    ) {
        self.server = server
        self.questionnaireId = questionnaireId
        self.since = since
        self.options = options
        self.formats = formats
        self.sideFiles = sideFiles
        self.dataGroups = dataGroups
        self.idleTimeout = idleTimeout
    }

    /// Downloads and writes the export; `progress` hears records written so far and the total.
    public func write(to folder: URL, progress: (Int, Int) -> Void = { _, _ in }) async throws -> FolderExport.Summary {
        let parent = folder.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        // A download to this folder that was killed left its records behind: remove them.
        let stalePrefix = ".\(folder.lastPathComponent).records-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [] where name.hasPrefix(stalePrefix) {
            try? FileManager.default.removeItem(at: parent.appendingPathComponent(name))
        }
        let download = parent.appendingPathComponent(stalePrefix + UUID().uuidString.prefix(8) + ".jsonl")
        let reportsDownload = parent.appendingPathComponent(stalePrefix + UUID().uuidString.prefix(8) + ".reports.jsonl")
        let removedDownload = parent.appendingPathComponent(stalePrefix + UUID().uuidString.prefix(8) + ".removed.csv")
        let caseDownloads = Dictionary(
            uniqueKeysWithValues: ExportSideFile.allCases.filter(\.readsCases).map {
                ($0, parent.appendingPathComponent(stalePrefix + UUID().uuidString.prefix(8) + "." + $0.fileName))
            })
        defer {
            for file in [download, reportsDownload, removedDownload] + caseDownloads.values {
                try? FileManager.default.removeItem(at: file)
            }
        }
        var query = ["format": ExportFormat.jsonLines.rawValue]
        if let questionnaireId { query["questionnaire"] = questionnaireId }
        if let since { query["since"] = since }
        if !dataGroups.isEmpty { query["dataGroups"] = dataGroups.joined(separator: ",") }
        if !reviewStates.isEmpty { query["reviewStates"] = reviewStates.joined(separator: ",") }
        if options.includeIdentifiers { query["includeIdentifiers"] = "true" }
        if options.dropFreeText { query["dropFreeText"] = "true" }
        if options.shiftDates { query["shiftDates"] = "true" }
        // The case files come as the server writes them: raw when the export's cells are.
        if options.rawCells { query["rawCells"] = "true" }
        let received = try await server.downloadExport(query: query, into: download, idleTimeout: idleTimeout)
        // A cut connection is said before anything else is asked.
        var lines = 0
        let reader = try JSONLinesReader(url: download)
        while try reader.nextLine() != nil { lines += 1 }
        if let expected = received.records, expected != lines {
            throw ExportError("the server announced \(expected) records but \(lines) arrived; the connection was cut — export again")
        }
        // The side files cover what the records did: up to the cursor they came with.
        var sideQuery = query
        sideQuery["until"] = received.cursor
        sideQuery["questionnaire"] = received.questionnaireId ?? questionnaireId
        var side = ExportSideSources()
        if since != nil, sideFiles.contains(.removed) {
            sideQuery["format"] = ExportSideFile.removed.rawValue
            _ = try await server.downloadExport(query: sideQuery, into: removedDownload, idleTimeout: idleTimeout)
            guard let data = FileManager.default.contents(atPath: removedDownload.path) else {
                throw ExportError("cannot read the removed records the server sent; check the disk has room")
            }
            side.removed = try RemovedRecord.parse(csv: String(decoding: data, as: UTF8.self))
        }
        if sideFiles.contains(where: \.readsReports) {
            sideQuery["format"] = ExportSideFile.reports.rawValue
            sideQuery["since"] = nil
            _ = try await server.downloadExport(query: sideQuery, into: reportsDownload, idleTimeout: idleTimeout)
            let reader = try JSONLinesReader(url: reportsDownload)
            side.nextReports = {
                var page: [ExportReport] = []
                while page.count < 500, let line = try reader.nextLine() {
                    do {
                        page.append(try ExportReport(jsonLine: line))
                    } catch {
                        throw ExportError("a report the server sent cannot be read (\(error)); update Intake on this machine")
                    }
                }
                return page.isEmpty ? nil : page
            }
        }
        // The case files come as the server writes them; their header names the property columns.
        let caseFiles = sideFiles.filter(\.readsCases)
        if !caseFiles.isEmpty {
            var lists: [String] = []
            var served = true
            for file in caseFiles where served {
                sideQuery["format"] = file.rawValue
                sideQuery["since"] = nil
                do {
                    let received = try await server.downloadExport(query: sideQuery, into: caseDownloads[file]!, idleTimeout: idleTimeout)
                    lists = received.caseLists
                } catch  where "\(error)".contains("unknown format '\(file.rawValue)'") {
                    // A server older than cases: the export is written without them.
                    served = false
                    continue
                }
                // Every line the server writes ends with CRLF: a file that does not was cut.
                guard Self.endsWithLineBreak(caseDownloads[file]!) else {
                    throw ExportError("the \(file.fileName) the server sent was cut short; export again")
                }
            }
            var properties: [String] = []
            if served, let casesFile = caseDownloads[.cases], caseFiles.contains(.cases) {
                let reader = try JSONLinesReader(url: casesFile)
                if let header = try reader.nextLine() {
                    properties = ExportCaseColumns.properties(
                        headerLine: String(decoding: header, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                }
            }
            let downloads = caseDownloads
            if served {
                side.cases = ExportCaseSource(columns: ExportCaseColumns(lists: lists, properties: properties)) { file, write in
                    guard let url = downloads[file], let handle = try? FileHandle(forReadingFrom: url) else {
                        throw ExportError("cannot read the \(file.fileName) the server sent; check the disk has room")
                    }
                    defer { try? handle.close() }
                    var rows = CSVRowCounter()
                    while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                        let bytes = Array(chunk)
                        rows.count(bytes)
                        try await write(bytes)
                    }
                    // Its header aside: the cases (or changes) it holds.
                    return max(rows.rows - 1, 0)
                }
            }
        }

        // Columns cover every version the server has, as its own CSV does, so incremental
        // exports keep the same columns whichever versions their records answer.
        guard let id = received.questionnaireId ?? questionnaireId, !received.versions.isEmpty else {
            throw ExportError("the server names no questionnaire version for this export; nothing to export")
        }
        var versions: [Questionnaire] = []
        for version in received.versions {
            versions.append(try await server.questionnaire(QuestionnaireReference(id: id, version: version)))
        }
        var options = options
        options.dataGroups = received.dataGroups
        let plan = try ExportPlan(questionnaires: versions, options: options)
        var export = JSONLinesExport(inputs: [download], plan: plan, keyer: nil, formats: formats, recordCount: lines)
        export.sideFiles = sideFiles
        let server = self.server
        export.fetchAttachment = { record, ref in try await server.attachment(record: record, sha256: ref.sha256) }
        return try await export.write(to: folder, cursor: received.cursor, since: since, side: side) { progress($0, lines) }
    }
}

extension RemoteExport {
    /// Whether the file's last two bytes are CRLF (read from its end, not whole).
    static func endsWithLineBreak(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= 2, (try? handle.seek(toOffset: size - 2)) != nil,
            let tail = try? handle.read(upToCount: 2)
        else { return false }
        return tail == Data("\r\n".utf8)
    }
}
