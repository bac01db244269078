import ArgumentParser
import Foundation
import IntakeClient
import IntakeCore
import IntakeExport
import IntakeFieldwork
import IntakeServer
import IntakeService

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export records for research: CSVs, codebook, JSON Lines, FHIR R4 and a data package, in one folder.",
        discussion: """
            Records come from the server you signed in to (default; needs a researcher or coordinator \
            account), from a server database on this machine (--database), or from JSON Lines files \
            (--input, e.g. from 'intake sample'). The folder gets records.csv (one row per record), \
            records_long.csv (one row per answer), records.jsonl, fhir-bundle.json, codebook.csv, \
            codebook.md, datapackage.json, records.sav (SPSS), records.dta (Stata 118), records.xlsx (Excel, with the codebook), \
            records.sps with records_escaped.csv (SPSS syntax), records.R and export.json (with the cursor \
            for --since next time); from a server also reports.jsonl and reports_long.csv (the patients' dated reports) and, \
            with --since, removed.csv (records of earlier exports to delete, such as those whose patient withdrew consent). \
            See docs/exports.md. \
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

    @Flag(help: "Move each patient's dates and times back by a secret number of days (1 to 365), keeping intervals.")
    var shiftDates = false

    @Option(
        name: .customLong("format"),
        help: ArgumentHelp(
            "Only these files (repeatable): \(Self.formatNames.joined(separator: ", ")).", valueName: "format"))
    var formats: [String] = []

    @Option(
        name: .customLong("data-group"),
        help: ArgumentHelp("Only records (and reports) of patients in this data group (repeatable: in any of them).", valueName: "name"))
    var dataGroups: [String] = []

    @Option(
        name: .customLong("review-state"),
        help: ArgumentHelp(
            "Only records in this review state (repeatable: in any of them): received, has_issues, edited, approved, rejected.",
            valueName: "state"))
    var reviewStates: [String] = []

    static let formatNames = ExportFormat.allCases.map(\.rawValue) + ExportSideFile.allCases.map(\.rawValue)

    @Flag(
        help: """
            Write CSV cells exactly as collected. By default a cell a spreadsheet could run as a formula (starting with =, +, -, @),             a text answer equal to the unanswered code, and text starting with ' get a leading ' (see codebook.md).
            """)
    var rawCells = false

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
        for format in formats where !Self.formatNames.contains(format) {
            throw ValidationError("Unknown format '\(format)'; use \(Self.formatNames.joined(separator: ", ")).")
        }
        if unansweredCode.isEmpty || unansweredCode.contains(",") || unansweredCode.contains("\"") {
            throw ValidationError("--unanswered-code must be non-empty and hold no comma or quote, e.g. '.' or 'NA'.")
        }
        for state in reviewStates where ReviewState(rawValue: state) == nil {
            throw ValidationError(
                "Unknown review state '\(state.prefix(40))'; use \(ReviewState.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if !inputs.isEmpty, !reviewStates.isEmpty {
            throw ValidationError(
                "Review states are kept by a server: --review-state exports from a server or --database, not --input files.")
        }
        if database == nil, inputs.isEmpty, questionnaires.count > 1 {
            throw ValidationError("A server export covers one questionnaire; give --questionnaire once.")
        }
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: out)
        let options = ExportOptions(
            includeIdentifiers: includeIdentifiers, dropFreeText: dropFreeText, shiftDates: shiftDates, unansweredCode: unansweredCode,
            fhirBase: fhirBase, rawCells: rawCells)
        var chosen = formats.compactMap(ExportFormat.init(rawValue:))
        var sideFiles = formats.compactMap(ExportSideFile.init(rawValue:))
        if formats.isEmpty {
            chosen = ExportFormat.allCases
            sideFiles = ExportSideFile.allCases
        }
        let display = isatty(STDOUT_FILENO) == 1 ? ProgressDisplay(interactive: true) : nil
        let progress: (Int, Int) -> Void = { display?.show($0, of: $1) }
        do {
            let since = try since.map(ExportSince.resolve)
            let summary: FolderExport.Summary
            if !inputs.isEmpty {
                summary = try await JSONLinesExport.folder(
                    inputs: inputs.map { URL(fileURLWithPath: $0) }, questionnaires: questionnaires,
                    catalog: QuestionnaireCatalog.commandLine,
                    keyFile: keyFile.map { URL(fileURLWithPath: $0) }
                        ?? storeOptions.directory.appendingPathComponent("export-patient-key"),
                    options: options, formats: chosen, since: since, dataGroups: dataGroups, to: folder, progress: progress)
            } else if let database {
                var databaseOptions = ServerDatabaseOptions()
                databaseOptions.database = database
                let configuration = try databaseOptions.configuration()
                guard configuration.usesPostgres || FileManager.default.fileExists(atPath: database) else {
                    throw ValidationError("There is no server database at \(database); give the path 'intake serve' uses.")
                }
                summary = try await databaseOptions.services(configuration).exports.writeFolder(
                    questionnaireId: questionnaires.first, since: since, options: options, formats: chosen, sideFiles: sideFiles,
                    dataGroups: dataGroups, reviewStates: reviewStates.compactMap(ReviewState.init(rawValue:)), to: folder,
                    progress: progress)
            } else {
                guard let client = try clientOptions.client(dataDirectory: storeOptions.directory) else {
                    throw ValidationError(
                        "No server is configured; sign in with 'intake login', or export from files with --input or from a server database with --database."
                    )
                }
                var export = RemoteExport(
                    server: ClientExportServer(client: client), questionnaireId: questionnaires.first, since: since, options: options,
                    formats: chosen, sideFiles: sideFiles, dataGroups: dataGroups, idleTimeout: max(clientOptions.timeout, 60))
                export.reviewStates = reviewStates
                summary = try await export.write(to: folder, progress: progress)
            }
            display?.finish()
            summary.report(folder: folder).forEach { print($0) }
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
}
