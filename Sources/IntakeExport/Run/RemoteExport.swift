import Foundation
import IntakeCore

/// What a remote export needs of a server. IntakeClient has these calls; the command layer
/// hands the client in (IntakeExport knows no HTTP).
public protocol ExportServer: Sendable {
    /// Streams `GET /v1/exports` with `query` into `file` (never through memory).
    func downloadExport(query: [String: String], into file: URL, idleTimeout: TimeInterval) async throws -> ExportDownload
    /// A published questionnaire version, read from its files.
    func questionnaire(_ reference: QuestionnaireReference) async throws -> Questionnaire
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

    public init(file: URL, cursor: String?, records: Int?, versions: [String], questionnaireId: String?) {
        self.file = file
        self.cursor = cursor
        self.records = records
        self.versions = versions
        self.questionnaireId = questionnaireId
    }
}

/// A research export from a server: the records arrive once as JSON Lines (de-identified and
/// keyed by the server), are checked against the count the server announced, and every other
/// file is made from them locally, with the questionnaire versions fetched from the server.
public struct RemoteExport {
    public var server: any ExportServer
    public var questionnaireId: String?
    public var since: String?
    public var options: ExportOptions
    public var formats: [ExportFormat]
    public var idleTimeout: TimeInterval

    public init(
        server: any ExportServer, questionnaireId: String?, since: String?, options: ExportOptions,
        formats: [ExportFormat] = ExportFormat.allCases,
        idleTimeout: TimeInterval = 60
    ) {
        self.server = server
        self.questionnaireId = questionnaireId
        self.since = since
        self.options = options
        self.formats = formats
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
        defer { try? FileManager.default.removeItem(at: download) }
        var query = ["format": ExportFormat.jsonLines.rawValue]
        if let questionnaireId { query["questionnaire"] = questionnaireId }
        if let since { query["since"] = since }
        if options.includeIdentifiers { query["includeIdentifiers"] = "true" }
        if options.dropFreeText { query["dropFreeText"] = "true" }
        if options.shiftDates { query["shiftDates"] = "true" }
        let received = try await server.downloadExport(query: query, into: download, idleTimeout: idleTimeout)

        var lines = 0
        let reader = try JSONLinesReader(url: download)
        while try reader.nextLine() != nil { lines += 1 }
        if let expected = received.records, expected != lines {
            throw ExportError("the server announced \(expected) records but \(lines) arrived; the connection was cut — export again")
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
        let plan = try ExportPlan(questionnaires: versions, options: options)
        let export = JSONLinesExport(inputs: [download], plan: plan, keyer: nil, formats: formats, recordCount: lines)
        return try await export.write(to: folder, cursor: received.cursor, since: since) { progress($0, lines) }
    }
}
