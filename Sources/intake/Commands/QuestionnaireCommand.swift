import ArgumentParser
import Foundation
import IntakeCore
import IntakeForm

struct QuestionnaireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "questionnaire",
        abstract: "Check, show and list questionnaires.",
        subcommands: [Check.self, Show.self, List.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check questionnaire folders and report every problem with its file, line and column.")

        @Argument(help: ArgumentHelp("Questionnaire folders or ids.", valueName: "folder"))
        var folders: [String] = [QuestionnaireCatalog.defaultId]

        func run() throws {
            var failed = false
            for folder in folders {
                do {
                    let url = try QuestionnaireCatalog.commandLine.folder(for: folder)
                    let q = try QuestionnaireLoader.load(directory: url)
                    print(
                        "ok: \(url.path): \(q.id) version \(q.version), \(q.sections.count) sections, \(q.questionCount) questions, languages \(q.languages.joined(separator: ", "))"
                    )
                } catch {
                    printError(error.description)
                    failed = true
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the sections and questions as a field worker sees them.")

        @Argument(help: ArgumentHelp("A questionnaire folder or id.", valueName: "folder"))
        var folder: String = QuestionnaireCatalog.defaultId

        @Option(help: "Show a translation, e.g. 'ar'.")
        var language: String?

        func run() throws {
            let questionnaire = try QuestionnaireOptions.load(folder)
            if let language, !questionnaire.languages.contains(language) {
                throw ValidationError(
                    "The questionnaire has no '\(language)' translation; choose one of \(questionnaire.languages.joined(separator: ", ")).")
            }
            QuestionnairePrinter(language: language).lines(for: questionnaire).forEach { print($0) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the questionnaires in the Questionnaires/ folder.")

        func run() throws {
            let catalog = QuestionnaireCatalog.commandLine
            guard let root = catalog.root else {
                throw ValidationError("No Questionnaires/ folder found. Run intake inside the Intake folder or set INTAKE_QUESTIONNAIRES.")
            }
            print("Questionnaires in \(root.path):")
            for folder in catalog.folders() {
                do {
                    let q = try QuestionnaireLoader.load(directory: folder)
                    print(
                        "  \(q.id)  version \(q.version)  \(q.sections.count) sections, \(q.questionCount) questions  [\(q.languages.joined(separator: ", "))]  \(q.title.base)"
                    )
                } catch {
                    print(
                        "  \(folder.lastPathComponent)  has \(error.diagnostics.count) problems: run 'intake questionnaire check \(folder.path)'"
                    )
                }
            }
        }
    }
}
