import Foundation
import IntakeCore

/// Writes an export as a folder of files in one pass over the records.
///
/// The files are written into a hidden sibling folder that is renamed into place only when every
/// file is complete, so a folder with the export's name is never a half-written export.
public struct FolderExport {
    public var plan: ExportPlan
    public var formats: [ExportFormat]
    public var folder: URL

    public init(plan: ExportPlan, formats: [ExportFormat] = ExportFormat.allCases, folder: URL) {
        self.plan = plan
        self.formats = formats
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
        public var generatedAt: String
    }

    /// Runs the export; `cursor` and `since` are recorded in `export.json`; `progress` hears the
    /// number of records written so far.
    public func write(
        cursor: String?, since: String?, progress: (Int) -> Void = { _ in }, nextPage: () async throws -> [ExportInput]?
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
            let outputs = try formats.map { format in
                ExportRun.Output(
                    formatter: format.formatter(plan: plan, files: formats),
                    sink: try FileSink(url: staging.appendingPathComponent(format.fileName)))
            }
            let count = try await ExportRun.run(outputs, progress: progress, nextPage: nextPage)
            let summary = Summary(
                questionnaire: plan.questionnaireId, versions: plan.versions.map(\.version), records: count,
                files: formats.map(\.fileName), cursor: cursor, since: since, includeIdentifiers: plan.options.includeIdentifiers,
                dropFreeText: plan.options.dropFreeText, shiftDates: plan.options.shiftDates, generatedAt: Timestamp.string(from: Date()))
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
        lines.append(
            includeIdentifiers
                ? "Identifiers are INCLUDED: keep this folder safe."
                : "De-identified: names, date of birth and external id are left out.")
        if shiftDates == true { lines.append("Dates are shifted back by a secret number of days per patient.") }
        if let cursor { lines.append("For the next incremental export: --since \(cursor)") }
        return lines
    }
}
