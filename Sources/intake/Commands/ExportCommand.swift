import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeExport
import IntakeServer

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export records for research: CSVs, codebook, JSON Lines, FHIR R4 and a data package, in one folder.",
        discussion: """
            Records come from the server you signed in to (default; needs a researcher or coordinator \
            account), from a server database on this machine (--database), or from JSON Lines files \
            (--input, e.g. from 'intake sample'). The folder gets records.csv (one row per record), \
            records_long.csv (one row per answer), records.jsonl, fhir-bundle.json, codebook.csv, \
            codebook.md, datapackage.json, records.sps (SPSS), records.R and export.json (with the cursor \
            for --since next time). See docs/exports.md. \
            Exports are de-identified unless --include-identifiers is given; patients stay linkable \
            through a keyed-hash patient_key.
            """)

    @Option(name: [.short, .long], help: ArgumentHelp("The folder to create (must not exist, or be empty).", valueName: "folder"))
    var out: String

    @Option(
        name: .customLong("input"),
        help: ArgumentHelp("A JSON Lines file of records to export instead of a server (repeatable).", valueName: "file"))
    var inputs: [String] = []

    @Option(
        name: [.short, .customLong("questionnaire")],
        help: ArgumentHelp(
            "With --input: a questionnaire id or folder whose versions the records answer (repeatable; default: every folder in Questionnaires/). From a server: the questionnaire id to export.",
            valueName: "id-or-path"))
    var questionnaires: [String] = []

    @Option(help: ArgumentHelp("Export straight from a server database on this machine (all teams).", valueName: "path"))
    var database: String?

    @Option(
        help: ArgumentHelp(
            "Only records changed after a previous export: its folder, or the cursor from its export.json; or since a UTC time.",
            valueName: "folder-cursor-or-time"))
    var since: String?

    @Flag(help: "Include names, date of birth and external id (coordinators only, on a server).")
    var includeIdentifiers = false

    @Flag(help: "Leave out free-text answers, which can hold names and places.")
    var dropFreeText = false

    @Flag(help: "Move each patient's dates and times back by a secret number of days (0 to 364), keeping intervals.")
    var shiftDates = false

    @Option(
        name: .customLong("format"),
        help: ArgumentHelp(
            "Only these files (repeatable): \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "format"))
    var formats: [String] = []

    @Option(help: ArgumentHelp("Written in a cell for a question asked but not answered.", valueName: "code"))
    var unansweredCode = "."

    @Option(help: ArgumentHelp("Prefix of canonical URLs in the FHIR bundle (a urn: or https URL).", valueName: "uri"))
    var fhirBase = "urn:intake"

    @Option(
        help: ArgumentHelp(
            "With --input: the secret patient keys are made with (default: export-patient-key in the data directory; made when missing).",
            valueName: "path"))
    var keyFile: String?

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clientOptions: ClientOptions

    func validate() throws {
        if !inputs.isEmpty, database != nil { throw ValidationError("Give either --input files or --database, not both.") }
        if includeIdentifiers, shiftDates {
            throw ValidationError("--shift-dates hides dates and --include-identifiers shows them; choose one.")
        }
        for format in formats where ExportFormat(rawValue: format) == nil {
            throw ValidationError("Unknown format '\(format)'; use \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let since, ExportSince(since) == nil, !FileManager.default.fileExists(atPath: since) {
            throw ValidationError("--since: \(ExportSince.hint), or the folder of a previous export.")
        }
        if unansweredCode.isEmpty || unansweredCode.contains(",") || unansweredCode.contains("\"") {
            throw ValidationError("--unanswered-code must be non-empty and hold no comma or quote, e.g. '.' or 'NA'.")
        }
        if database == nil, inputs.isEmpty, questionnaires.count > 1 {
            throw ValidationError("A server export covers one questionnaire; give --questionnaire once.")
        }
    }

    func run() async throws {
        let since = try resolvedSince()
        let folder = URL(fileURLWithPath: out)
        let options = ExportOptions(
            includeIdentifiers: includeIdentifiers, dropFreeText: dropFreeText, shiftDates: shiftDates, unansweredCode: unansweredCode,
            fhirBase: fhirBase)
        var chosen = formats.compactMap(ExportFormat.init(rawValue:))
        if chosen.isEmpty { chosen = ExportFormat.allCases }
        let display = isatty(STDOUT_FILENO) == 1 ? ProgressDisplay(interactive: true) : nil
        do {
            let summary: FolderExport.Summary
            if !inputs.isEmpty {
                summary = try await exportFiles(to: folder, options: options, formats: chosen, since: since, display: display)
            } else if let database {
                summary = try await exportDatabase(database, to: folder, options: options, formats: chosen, since: since, display: display)
            } else {
                guard let client = try clientOptions.client(dataDirectory: storeOptions.directory) else {
                    throw ValidationError(
                        "No server is configured; sign in with 'intake login', or export from files with --input or from a server database with --database."
                    )
                }
                let export = RemoteExport(
                    server: ClientExportServer(client: client), questionnaireId: questionnaires.first, since: since, options: options, formats: chosen,
                    idleTimeout: max(clientOptions.timeout, 60))
                summary = try await export.write(to: folder) { display?.show($0, of: $1) }
            }
            display?.finish()
            print(
                "Exported \(summary.records) record(s) of \(summary.questionnaire) (version\(summary.versions.count == 1 ? "" : "s") "
                    + "\(summary.versions.joined(separator: ", "))) to \(folder.path):")
            for file in summary.files + ["export.json"] { print("  \(file)") }
            print(
                summary.includeIdentifiers
                    ? "Identifiers are INCLUDED: keep this folder safe."
                    : "De-identified: names, date of birth and external id are left out.")
            if summary.shiftDates == true { print("Dates are shifted back by a secret number of days per patient.") }
            if let cursor = summary.cursor { print("For the next incremental export: --since \(cursor)") }
        } catch let error as ExportError {
            printError(error.description)
            throw ExitCode.failure
        } catch let error as ClientError {
            printError("Export failed: \(error)")
            throw ExitCode.failure
        } catch let error as ServiceError {
            printError(error.description)
            throw ExitCode.failure
        }
    }

    /// `--since` as given, or the cursor saved in the export.json of the folder it names.
    private func resolvedSince() throws -> String? {
        guard let since, ExportSince(since) == nil else { return since }
        let summary: FolderExport.Summary
        do {
            summary = try FolderExport.Summary(folder: URL(fileURLWithPath: since))
        } catch {
            throw ValidationError("--since: \(error.description).")
        }
        guard let cursor = summary.cursor else {
            throw ValidationError("--since: the export in \(since) has no cursor (it was made from files); give a time instead.")
        }
        return cursor
    }

    private func exportFiles(to folder: URL, options: ExportOptions, formats: [ExportFormat], since: String?, display: ProgressDisplay?)
        async throws -> FolderExport.Summary
    {
        let catalog = QuestionnaireCatalog.commandLine
        let folders = questionnaires.isEmpty ? catalog.folders() : try questionnaires.map { try catalog.folder(for: $0) }
        var available: [Questionnaire] = []
        for questionnaireFolder in folders {
            do {
                available.append(try QuestionnaireLoader.load(directory: questionnaireFolder))
            } catch {
                printError(error.description)
                throw ExitCode.failure
            }
        }
        let keyURL = keyFile.map { URL(fileURLWithPath: $0) } ?? storeOptions.directory.appendingPathComponent("export-patient-key")
        var export = try JSONLinesExport(
            inputs: inputs.map { URL(fileURLWithPath: $0) }, available: available, options: options,
            keyer: try PatientKeyFile.keyer(at: keyURL),
            formats: formats)
        switch since.flatMap(ExportSince.init) {
        case .time(let date)?: export.changedSince = date
        case .cursor?: throw ValidationError("--since: cursors come from server exports; with --input give a time such as 2026-11-01.")
        case nil: break
        }
        return try await export.write(to: folder, since: since) { display?.show($0, of: export.recordCount) }
    }

    private func exportDatabase(
        _ path: String, to folder: URL, options: ExportOptions, formats: [ExportFormat], since: String?, display: ProgressDisplay?
    ) async throws -> FolderExport.Summary {
        guard ServerConfiguration(database: path).usesPostgres || FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("There is no server database at \(path); give the path 'intake serve' uses.")
        }
        var databaseOptions = ServerDatabaseOptions()
        databaseOptions.database = path
        let services = try await databaseOptions.services()
        let prepared = try await services.exports.prepare(
            ExportService.Request(questionnaireId: questionnaires.first, since: since.flatMap(ExportSince.init), options: options))
        let pager = services.exports.pager(prepared, formats: formats)
        return try await FolderExport(plan: prepared.plan, formats: formats, folder: folder).write(
            cursor: String(prepared.cursor), since: since, progress: { display?.show($0, of: prepared.count) }
        ) {
            try await pager.next()
        }
    }
}
