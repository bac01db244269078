import ArgumentParser
import Foundation
import IntakeCore
import IntakeXLSForm

extension QuestionnaireCommand {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Make an Intake questionnaire folder from an XLSForm (.xlsx, .xls, or pyxform's .csv and .md forms).",
            discussion: """
                Everything Intake cannot express is listed by sheet, row and column, and nothing is written unless \
                --partial is given (errors in the form stop a partial import too). What is left out by design \
                (appearances, metadata such as start and end that Intake records itself) is listed and never stops it.
                """)

        @Argument(help: ArgumentHelp("The XLSForm file.", valueName: "form"))
        var form: String

        @Option(
            help: ArgumentHelp(
                "The folder to write (default: Questionnaires/<form_id>, or ./<form_id> outside an Intake folder).", valueName: "folder"))
        var output: String?

        @Flag(help: "Write what can be expressed, leaving out what cannot (still listed).")
        var partial = false

        @Flag(help: "Replace the folder if it exists.")
        var replace = false

        func run() throws {
            let url = URL(fileURLWithPath: form)
            let data = try readForm(url)
            let workbook: Workbook
            do {
                workbook = try XLSFormImporter.workbook(data: data, fileName: url.lastPathComponent)
            } catch {
                printError("\(form): error: \(error.message)\n    hint: \(error.hint)")
                throw ExitCode.failure
            }
            let fallback = url.deletingPathExtension().lastPathComponent
            // A file of choices beside the form (select_one_from_file), read by its plain name only.
            let beside = url.deletingLastPathComponent()
            let result = XLSFormImporter.importForm(workbook, fallbackId: fallback) { name in
                guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else { return nil }
                let path = beside.appendingPathComponent(name).path
                var info = stat()
                guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= WorkbookLimits.fileBytes else { return nil }
                return FileManager.default.contents(atPath: path)
            }
            for note in result.leftOut { print("\(form): \(note)") }
            for problem in result.problems { printError("\(form): \(problem)") }
            guard let questionnaire = result.questionnaire, !result.hasErrors else {
                printError("\(form): \(result.problems.count) problem\(result.problems.count == 1 ? "" : "s"); nothing was written.")
                throw ExitCode.failure
            }
            if !result.problems.isEmpty && !partial {
                printError(
                    "\(form): Intake cannot express \(result.problems.count) thing\(result.problems.count == 1 ? "" : "s") above; nothing was written. Change the form, or import with --partial to leave them out."
                )
                throw ExitCode.failure
            }
            let folder =
                output.map { URL(fileURLWithPath: $0) }
                ?? (QuestionnaireCatalog.commandLine.root ?? URL(fileURLWithPath: ".")).appendingPathComponent(result.id)
            do {
                try result.write(to: folder, replacing: replace)
            } catch {
                printError("error: \(error.message)\n    hint: \(error.hint)")
                throw ExitCode.failure
            }
            print(
                "imported \(questionnaire.id) into \(folder.path): \(questionnaire.sections.count) sections, \(questionnaire.questionCount) questions, languages \(questionnaire.languages.joined(separator: ", ")), version \(questionnaire.version)"
                    + (result.problems.isEmpty
                        ? "" : "; \(result.problems.count) thing\(result.problems.count == 1 ? "" : "s") left out (--partial)"))
        }

        private func readForm(_ url: URL) throws -> Data {
            var info = stat()
            guard stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                throw ValidationError("\(form) is not a file; give the path of the XLSForm (.xlsx, .xls, .csv or .md).")
            }
            guard info.st_size <= WorkbookLimits.fileBytes else {
                throw ValidationError(
                    "\(form) is \(info.st_size) bytes; an XLSForm may be at most \(WorkbookLimits.fileBytes). Check that this is the right file."
                )
            }
            do {
                return try Data(contentsOf: url)
            } catch {
                throw ValidationError("Cannot read \(form): check that you may read it.")
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract:
                "Write a questionnaire as an XLSForm (.xlsx) that ODK's tools and Excel open and 'intake questionnaire import' reads back, or as an ODK XForm."
        )

        @Argument(help: ArgumentHelp("A questionnaire id under Questionnaires/, or a folder.", valueName: "id-or-path"))
        var questionnaire: String = QuestionnaireCatalog.defaultId

        @Flag(help: "Write an XLSForm (.xlsx).")
        var xlsform = false

        @Flag(help: "Write an ODK XForm (.xml), as the server's ODK API serves it.")
        var xform = false

        @Option(help: ArgumentHelp("The file to write (default: <id>.xlsx, or <id>.xml).", valueName: "file"))
        var output: String?

        @Flag(help: "Replace the file if it exists.")
        var replace = false

        func validate() throws {
            guard xlsform != xform else { throw ValidationError("Say which format to write: --xlsform or --xform.") }
        }

        func run() throws {
            let loaded = try QuestionnaireOptions.load(questionnaire)
            let url = URL(fileURLWithPath: output ?? "\(loaded.id).\(xform ? "xml" : "xlsx")")
            if FileManager.default.fileExists(atPath: url.path) && !replace {
                throw ValidationError("\(url.path) already exists; choose another file with --output, or replace it with --replace.")
            }
            // The case rules travel whole in the XLSForm's settings (and as ODK's entities).
            let cases = (try? QuestionnaireCatalog.commandLine.folder(for: questionnaire)).flatMap {
                try? String(contentsOf: $0.appendingPathComponent(CaseRules.fileName), encoding: .utf8)
            }
            let data =
                xform
                ? Data(XFormWriter.xform(loaded, formId: loaded.id, version: loaded.version).utf8)
                : try XLSFormExporter.xlsx(loaded, casesText: cases)
            do {
                try data.write(to: url, options: .atomic)
            } catch {
                throw ValidationError("Cannot write \(url.path): check that the folder exists and that you may write there.")
            }
            print(
                "wrote \(url.path): the \(xform ? "XForm" : "XLSForm") of \(loaded.id) version \(loaded.version), \(loaded.questionCount) questions, languages \(loaded.languages.joined(separator: ", "))"
            )
        }
    }
}
