import Foundation
import IntakeCore

/// An export from JSON Lines files of records (from `intake sample`, a server export, or a
/// backup), with the questionnaire versions they answer.
public struct JSONLinesExport {
    public var inputs: [URL]
    public var plan: ExportPlan
    /// Keys patients that have no key yet; nil leaves them without one.
    public var keyer: PatientKeyer?
    public var formats: [ExportFormat]
    /// Written when their sources are given (a server's export).
    public var sideFiles: [ExportSideFile] = []
    /// Fetches a file the records name, for `attachments/` (an export from a server); without it
    /// the files are only listed in attachments.csv.
    public var fetchAttachment: (@Sendable (UUID, AttachmentRef) async throws -> Data?)?
    /// Only records of patients in one of these data groups, when not empty.
    public var dataGroups: [String] = []
    /// Only records changed (`updatedAt`) at or after this time, if set.
    public var changedSince: Date?
    /// How many records the files hold.
    public let recordCount: Int

    /// Reads the files once to find the versions their records answer, then plans over those
    /// versions, taken from `available` in its order (oldest first).
    public init(
        inputs: [URL], available: [Questionnaire], options: ExportOptions, keyer: PatientKeyer?,
        formats: [ExportFormat] = ExportFormat.allCases
    )
        throws(ExportError)
    {
        guard !inputs.isEmpty else { throw ExportError("name at least one JSON Lines file of records") }
        var referenced: [QuestionnaireReference] = []
        var count = 0
        for input in inputs {
            let scan = try JSONLinesReader.references(in: input)
            count += scan.records
            for reference in scan.references where !referenced.contains(reference) {
                referenced.append(reference)
            }
        }
        guard !referenced.isEmpty else { throw ExportError("the input holds no records; nothing to export") }
        let missing = referenced.filter { reference in !available.contains { $0.reference == reference } }
        guard missing.isEmpty else {
            throw ExportError(
                "records answer \(missing.map(\.description).joined(separator: ", ")), which no questionnaire folder given has; "
                    + "pass the folder of each version with --questionnaire")
        }
        let versions = available.filter { referenced.contains($0.reference) }
        self.init(
            inputs: inputs, plan: try ExportPlan(questionnaires: versions, options: options), keyer: keyer, formats: formats,
            recordCount: count)
    }

    /// An export over a plan made already (a server named its versions): the files are not scanned.
    public init(inputs: [URL], plan: ExportPlan, keyer: PatientKeyer?, formats: [ExportFormat] = ExportFormat.allCases, recordCount: Int) {
        self.inputs = inputs
        self.plan = plan
        self.keyer = keyer
        self.formats = formats
        self.recordCount = recordCount
    }

    /// Writes the folder (see ``FolderExport``).
    public func write(
        to folder: URL, cursor: String? = nil, since: String? = nil, side: ExportSideSources = ExportSideSources(),
        progress: (Int) -> Void = { _ in }
    ) async throws -> FolderExport.Summary {
        var remaining = inputs
        var reader: JSONLinesReader?
        let include = plan.options.includeIdentifiers
        let shift = plan.options.shiftDates
        let keyer = keyer
        let changedSince = changedSince
        let groups = Set(dataGroups)
        var folderExport = FolderExport(plan: plan, formats: formats, sideFiles: sideFiles, folder: folder)
        folderExport.fetchAttachment = fetchAttachment
        return try await folderExport.write(
            cursor: cursor, since: since, side: side, progress: progress
        ) {
            while true {
                if reader == nil {
                    guard !remaining.isEmpty else { return nil }
                    reader = try JSONLinesReader(url: remaining.removeFirst())
                }
                if let page = try reader?.nextPage() {
                    return page.filter { item in
                        (changedSince.map { item.record.updatedAt >= $0 } ?? true)
                            && (groups.isEmpty || !groups.isDisjoint(with: item.registry?.dataGroups ?? []))
                    }
                    .map { ExportInput(record: $0.prepared(keyer: keyer, includeIdentifiers: include, shiftDates: shift)) }
                }
                reader = nil
            }
        }
    }
}

/// The local secret patient keys are made with when exporting records that have none: 32 random
/// bytes in a file readable by its owner only, made on first use.
public enum PatientKeyFile {
    public static func keyer(at url: URL) throws(ExportError) -> PatientKeyer {
        let manager = FileManager.default
        if let data = manager.contents(atPath: url.path) {
            return try PatientKeyer(secret: data)
        }
        do {
            try manager.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ExportError("cannot create \(url.deletingLastPathComponent().path): \((error as NSError).localizedDescription)")
        }
        let secret = PatientKeyer.newSecret()
        guard manager.createFile(atPath: url.path, contents: secret, attributes: [.posixPermissions: 0o600]) else {
            throw ExportError("cannot write the patient-key secret at \(url.path); check the folder is writable")
        }
        return try PatientKeyer(secret: secret)
    }
}

extension JSONLinesExport {
    /// `intake export --input`: the files' records, over the questionnaire folders named in
    /// `questionnaires` (ids or paths; every folder of the catalog when empty), with patient keys
    /// from the secret at `keyFile`; `since` a time (cursors belong to server exports).
    public static func folder(
        inputs: [URL], questionnaires: [String], catalog: QuestionnaireCatalog, keyFile: URL, options: ExportOptions,
        formats: [ExportFormat], since: String?, dataGroups: [String] = [], to folder: URL, progress: (Int, Int) -> Void = { _, _ in }
    ) async throws -> FolderExport.Summary {
        var available: [Questionnaire] = []
        do {
            let folders = questionnaires.isEmpty ? catalog.folders() : try questionnaires.map { try catalog.folder(for: $0) }
            for questionnaireFolder in folders { available.append(try QuestionnaireLoader.load(directory: questionnaireFolder)) }
        } catch let error as QuestionnaireLoadError {
            throw ExportError(error.description)
        }
        var export = try JSONLinesExport(
            inputs: inputs, available: available, options: options, keyer: try PatientKeyFile.keyer(at: keyFile), formats: formats)
        export.dataGroups = dataGroups
        switch since.flatMap(ExportSince.init) {
        case .time(let date)?: export.changedSince = date
        case .cursor?, .teamCursor?:
            throw ExportError("--since: cursors come from server exports; with --input give a time such as 2026-11-01")
        case nil: break
        }
        let count = export.recordCount
        return try await export.write(to: folder, since: since) { progress($0, count) }
    }
}
